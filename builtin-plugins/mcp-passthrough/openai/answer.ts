/**
 * OpenAI's answer formats for a billed call: the whole `chat.completion` object, and the `chat.completion.chunk`s
 * of a stream. Beside OpenAI's fields each carries `billing` (ours: the charge, the balance after it, the usage row),
 * where a client reads what the call cost; OpenAI's clients keep unknown fields as they are.
 */
import { formatMinor, lookup } from '../../../sdk/index.js';
import type { CompletionResult } from '../inference.js';
import type { ToolCallDelta } from '../upstream/protocol.js';

/** Upstreams' stop reasons in OpenAI's words (Anthropic's `end_turn`, `max_tokens`...); unknown ones pass. */
const FINISH: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter' };

export function finishReason(r: CompletionResult): string {
  if (r.finishReason === null) return r.failure ? 'error' : 'stop';
  return lookup(FINISH, r.finishReason) ?? r.finishReason;
}

export function usageOf(r: CompletionResult): Record<string, number> {
  return { prompt_tokens: r.usage.inputTokens, completion_tokens: r.usage.outputTokens, total_tokens: r.usage.inputTokens + r.usage.outputTokens };
}

export function billingOf(r: CompletionResult): Record<string, unknown> {
  return {
    charge: formatMinor(r.usage.charge),
    currency: r.usage.currency,
    balance: formatMinor(r.key.balance),
    debt: formatMinor(r.key.debt),
    usage_id: r.usage.id,
    estimated: r.usage.estimated,
    transfer_bytes: r.usage.transferBytes,
    provider: r.provider,
    route: { kind: r.route.kind, hops: r.route.hops, ...(r.route.seller ? { seller: r.route.seller } : {}), failovers: r.failovers },
    ...(r.failure ? { error: r.failure } : {}),
  };
}

/** An answer that only called tools has no content (null, as OpenAI writes it). */
function messageOf(r: CompletionResult): Record<string, unknown> {
  if (!r.toolCalls.length) return { role: 'assistant', content: r.output, refusal: null };
  return { role: 'assistant', content: r.output || null, refusal: null, tool_calls: r.toolCalls };
}

export function wholeAnswer(id: string, created: number, r: CompletionResult): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion',
    created,
    model: r.model,
    choices: [{ index: 0, message: messageOf(r), logprobs: null, finish_reason: finishReason(r) }],
    usage: usageOf(r),
    billing: billingOf(r),
  };
}

/** The server-sent events of one streamed call, each `data: <chunk>` as OpenAI writes them. */
export class ChunkWriter {
  #started = false;

  constructor(
    private readonly id: string,
    private readonly created: number,
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {}

  #event(choices: unknown[], extra: Record<string, unknown> = {}, model = this.model): string {
    const chunk = { id: this.id, object: 'chat.completion.chunk', created: this.created, model, choices, ...(this.includeUsage ? { usage: null } : {}), ...extra };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  #piece(delta: Record<string, unknown>): string {
    // The first piece comes after a chunk naming the role, as OpenAI sends it.
    const role = this.#started ? '' : this.#event([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    this.#started = true;
    return role + this.#event([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  }

  delta(text: string): string {
    return this.#piece({ content: text });
  }

  /** A tool call's first piece carries its id and name, the others only more of its arguments. */
  toolCall(d: ToolCallDelta): string {
    const named = d.id !== undefined || d.name !== undefined;
    const fn = { ...(d.name !== undefined ? { name: d.name } : {}), arguments: d.arguments };
    return this.#piece({ tool_calls: [{ index: d.index, ...(named ? { id: d.id ?? '', type: 'function' } : {}), function: fn }] });
  }

  /** The finishing chunk, the usage chunk when asked for, then `[DONE]`. A call that failed after output ends in an error event. */
  end(r: CompletionResult): string {
    const opening = this.#started ? '' : this.delta('');
    const finish = this.#event([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(r) }], {}, r.model);
    const usage = this.includeUsage ? this.#event([], { usage: usageOf(r), billing: billingOf(r) }, r.model) : '';
    const error = r.failure ? `data: ${JSON.stringify({ error: { message: r.failure.message, type: 'server_error', param: null, code: r.failure.code }, billing: billingOf(r) })}\n\n` : '';
    return opening + finish + usage + error + 'data: [DONE]\n\n';
  }
}
