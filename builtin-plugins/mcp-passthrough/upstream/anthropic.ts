/**
 * Anthropic Messages (`POST <endpoint>/v1/messages`). System messages travel in the top-level `system` field. A
 * stream is a sequence of named events: `message_start` carries the input usage, `content_block_delta` the text,
 * `message_delta` running totals (its `output_tokens` is the total so far, not an increment; its input fields, when
 * not null, replace those of `message_start`), then `message_stop`; `ping` and unknown events are ignored; an
 * `error` event may arrive mid-stream. Billed input counts cache writes and reads as input tokens.
 */
import { count, isObject, type ChatMessage, type StreamItem, type UpstreamCall, type UpstreamProtocol } from './protocol.js';

export const ANTHROPIC_VERSION = '2023-06-01';

interface InputParts {
  input?: number;
  cacheWrite?: number;
  cacheRead?: number;
}

function inputParts(u: Record<string, unknown>): InputParts {
  const parts: InputParts = {};
  const input = count(u.input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  const cacheRead = count(u.cache_read_input_tokens);
  if (input !== undefined) parts.input = input;
  if (cacheWrite !== undefined) parts.cacheWrite = cacheWrite;
  if (cacheRead !== undefined) parts.cacheRead = cacheRead;
  return parts;
}

const inputTotal = (p: InputParts): number | undefined =>
  p.input === undefined && p.cacheWrite === undefined && p.cacheRead === undefined ? undefined : (p.input ?? 0) + (p.cacheWrite ?? 0) + (p.cacheRead ?? 0);

function errorText(body: unknown): string | null {
  if (!isObject(body)) return null;
  const e = body.error;
  if (isObject(e) && typeof e.message === 'string') return typeof e.type === 'string' ? `${e.type}: ${e.message}` : e.message;
  return typeof body.message === 'string' ? body.message : null;
}

function split(messages: readonly ChatMessage[]): { system: string | null; turns: { role: string; content: string }[] } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  return {
    system: system.length ? system.join('\n\n') : null,
    turns: messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
  };
}

export function anthropicProtocol(): UpstreamProtocol {
  return {
    id: 'anthropic',
    request(call: UpstreamCall) {
      const { system, turns } = split(call.messages);
      const body: Record<string, unknown> = { model: call.model, max_tokens: call.maxOutputTokens, messages: turns, stream: call.stream };
      if (system !== null) body.system = system;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: call.stream ? 'text/event-stream' : 'application/json',
        'anthropic-version': ANTHROPIC_VERSION,
      };
      if (call.token) headers['x-api-key'] = call.token;
      return { url: `${call.endpoint}/v1/messages`, headers, body: JSON.stringify(body) };
    },
    parse(body) {
      if (!isObject(body)) return { text: '', usage: { inputTokens: null, outputTokens: null }, finishReason: null };
      const blocks = Array.isArray(body.content) ? body.content : [];
      const text = blocks
        .filter((b): b is Record<string, unknown> => isObject(b) && b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text as string)
        .join('');
      const usage = isObject(body.usage) ? body.usage : {};
      return {
        text,
        usage: { inputTokens: inputTotal(inputParts(usage)) ?? null, outputTokens: count(usage.output_tokens) ?? null },
        finishReason: typeof body.stop_reason === 'string' ? body.stop_reason : null,
      };
    },
    streamDecoder() {
      const input: InputParts = {};
      return {
        decode(event) {
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch {
            return [];
          }
          if (!isObject(data)) return [];
          const type = typeof data.type === 'string' ? data.type : event.event;
          const items: StreamItem[] = [];
          const takeInput = (u: unknown): void => {
            if (!isObject(u)) return;
            Object.assign(input, inputParts(u));
            const total = inputTotal(input);
            const output = count(u.output_tokens);
            if (total !== undefined || output !== undefined) {
              items.push({ type: 'usage', ...(total !== undefined ? { inputTokens: total } : {}), ...(output !== undefined ? { outputTokens: output } : {}) });
            }
          };
          switch (type) {
            case 'message_start': {
              // message_start's output_tokens is a placeholder (about one): only message_delta's totals count.
              const usage = isObject(data.message) && isObject(data.message.usage) ? { ...data.message.usage, output_tokens: undefined } : null;
              takeInput(usage);
              break;
            }
            case 'content_block_delta': {
              const delta = isObject(data.delta) ? data.delta : null;
              if (delta && delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') items.push({ type: 'delta', text: delta.text });
              break;
            }
            case 'message_delta': {
              takeInput(data.usage);
              const delta = isObject(data.delta) ? data.delta : null;
              if (delta && typeof delta.stop_reason === 'string') items.push({ type: 'finish', reason: delta.stop_reason });
              break;
            }
            case 'message_stop':
              items.push({ type: 'done' });
              break;
            case 'error':
              items.push({ type: 'error', message: errorText(data) ?? 'upstream error event' });
              break;
            default:
              break;
          }
          return items;
        },
      };
    },
    errorMessage: errorText,
  };
}
