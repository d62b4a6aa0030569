/** The OpenAI door names an upstream's stop reason in OpenAI's words; one it does not know passes as the upstream wrote it. */
import { describe, expect, it } from 'vitest';
import type { CompletionResult } from '../../../builtin-plugins/mcp-passthrough/inference.js';
import { finishReason } from '../../../builtin-plugins/mcp-passthrough/openai/answer.js';

const ended = (reason: string | null, failure: CompletionResult['failure'] = null): CompletionResult =>
  ({ finishReason: reason, failure }) as unknown as CompletionResult;

describe('finishReason', () => {
  it("maps Anthropic's reasons, passes unknown ones, and says stop or error when the upstream said none", () => {
    expect(['end_turn', 'max_tokens', 'tool_use', 'refusal', 'stop', 'length'].map((r) => finishReason(ended(r)))).toEqual([
      'stop',
      'length',
      'tool_calls',
      'content_filter',
      'stop',
      'length',
    ]);
    expect(finishReason(ended(null))).toBe('stop');
    expect(finishReason(ended(null, { code: 'upstream_error', message: 'lost' }))).toBe('error');
  });

  it('passes a reason named like an object member as text (it became a function, which the JSON answer dropped)', () => {
    for (const reason of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(finishReason(ended(reason))).toBe(reason);
  });
});
