import { describe, expect, it } from 'vitest';
import { anthropicProtocol } from '../../../builtin-plugins/mcp-passthrough/upstream/anthropic.js';
import { openAiProtocol } from '../../../builtin-plugins/mcp-passthrough/upstream/openai.js';

const call = { endpoint: 'http://up/v1', token: 'sk', model: 'm', messages: [{ role: 'system' as const, content: 'sys' }, { role: 'user' as const, content: 'hi' }], maxOutputTokens: 9, stream: true, generation: {} };

describe('OpenAI-compatible protocol', () => {
  it('asks for usage on streams and sends the token as a bearer', () => {
    const p = openAiProtocol();
    const req = p.request(call);
    expect(req.url).toBe('http://up/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk');
    expect(JSON.parse(req.body)).toEqual({ model: 'm', messages: call.messages, max_tokens: 9, stream: true, stream_options: { include_usage: true } });
    expect(JSON.parse(openAiProtocol('max_completion_tokens').request({ ...call, stream: false }).body)).toMatchObject({ max_completion_tokens: 9 });
  });

  it('decodes deltas, the usage chunk (choices null or empty), an error event and [DONE]', () => {
    const d = openAiProtocol().streamDecoder();
    expect(d.decode({ data: '{"choices":[{"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}' })).toEqual([]);
    expect(d.decode({ data: '{"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}' })).toEqual([{ type: 'delta', text: 'Hi' }]);
    expect(d.decode({ data: '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}' })).toEqual([
      { type: 'finish', reason: 'stop' },
      { type: 'usage', inputTokens: 3, outputTokens: 1 },
    ]);
    expect(d.decode({ data: '{"choices":null,"usage":{"prompt_tokens":4,"completion_tokens":2}}' })).toEqual([{ type: 'usage', inputTokens: 4, outputTokens: 2 }]);
    expect(d.decode({ data: '{"error":{"message":"overloaded"}}' })).toEqual([{ type: 'error', message: 'overloaded' }]);
    expect(d.decode({ data: '[DONE]' })).toEqual([{ type: 'done' }]);
    expect(d.decode({ data: 'not json' })).toEqual([]);
  });
});

describe('Anthropic protocol', () => {
  it('moves system text to the system field and the token to x-api-key', () => {
    const req = anthropicProtocol().request(call);
    expect(req.url).toBe('http://up/v1/v1/messages');
    expect(req.headers['x-api-key']).toBe('sk');
    expect(JSON.parse(req.body)).toEqual({ model: 'm', max_tokens: 9, stream: true, system: 'sys', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('counts input from message_start (cache included), output as the last running total', () => {
    const d = anthropicProtocol().streamDecoder();
    const ev = (type: string, data: object) => d.decode({ event: type, data: JSON.stringify({ type, ...data }) });
    expect(ev('message_start', { message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } })).toEqual([{ type: 'usage', inputTokens: 15 }]);
    expect(ev('ping', {})).toEqual([]);
    expect(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'a' } })).toEqual([{ type: 'delta', text: 'a' }]);
    expect(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{' } })).toEqual([]);
    expect(ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } })).toEqual([
      { type: 'usage', inputTokens: 15, outputTokens: 7 },
      { type: 'finish', reason: 'end_turn' },
    ]);
    expect(ev('message_delta', { delta: {}, usage: { input_tokens: 12, output_tokens: 9 } })).toEqual([{ type: 'usage', inputTokens: 17, outputTokens: 9 }]);
    expect(ev('error', { error: { type: 'overloaded_error', message: 'busy' } })).toEqual([{ type: 'error', message: 'overloaded_error: busy' }]);
    expect(ev('message_stop', {})).toEqual([{ type: 'done' }]);
  });

  it('parses a whole answer', () => {
    const answer = anthropicProtocol().parse({
      content: [{ type: 'text', text: 'a' }, { type: 'tool_use', id: 't1', name: 'f', input: { x: 1 } }, { type: 'text', text: 'b' }],
      usage: { input_tokens: 3, cache_creation_input_tokens: 2, output_tokens: 4 },
      stop_reason: 'max_tokens',
    });
    expect(answer).toEqual({ text: 'ab', toolCalls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }], usage: { inputTokens: 5, outputTokens: 4 }, finishReason: 'max_tokens' });
  });
});
