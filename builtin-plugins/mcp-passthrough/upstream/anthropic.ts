/**
 * Anthropic Messages (`POST <endpoint>/v1/messages`). System messages travel in the top-level `system` field. A
 * stream is a sequence of named events: `message_start` carries the input usage, `content_block_delta` the text,
 * `message_delta` running totals (its `output_tokens` is the total so far, not an increment; its input fields, when
 * not null, replace those of `message_start`), then `message_stop`; `ping` and unknown events are ignored; an
 * `error` event may arrive mid-stream. Billed input counts cache writes and reads as input tokens.
 *
 * Tools are mapped from OpenAI's form: definitions to `{name, description, input_schema}`, `tool_choice` `required`
 * to `any` and a named function to `tool`, an assistant's `tool_calls` to `tool_use` blocks, tool turns to
 * `tool_result` blocks of one user turn; answers' `tool_use` blocks (streamed: `content_block_start` then
 * `input_json_delta` pieces) back to OpenAI's tool calls. `stop` is `stop_sequences`; `seed` and `response_format`
 * have no Anthropic form, so a call asking for them is not routed here.
 */
import { count, isObject, type ChatMessage, type Generation, type StreamItem, type ToolCall, type UpstreamCall, type UpstreamProtocol } from './protocol.js';

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

type Turn = { role: 'user' | 'assistant'; content: string | Record<string, unknown>[] };

function toolInput(args: string): unknown {
  try {
    const input: unknown = JSON.parse(args || '{}');
    return isObject(input) ? input : {};
  } catch {
    return {};
  }
}

function turnOf(m: ChatMessage): Turn {
  if (m.role === 'tool') return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content }] };
  if (!m.tool_calls?.length) return { role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content };
  const uses = m.tool_calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.function.name, input: toolInput(c.function.arguments) }));
  return { role: 'assistant', content: [...(m.content ? [{ type: 'text', text: m.content }] : []), ...uses] };
}

function split(messages: readonly ChatMessage[]): { system: string | null; turns: Turn[] } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const turns: Turn[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const turn = turnOf(m);
    const last = turns[turns.length - 1];
    // The results of one turn's tool calls travel together, in the user turn that follows it.
    if (m.role === 'tool' && last?.role === 'user' && Array.isArray(last.content) && last.content.every((b) => b.type === 'tool_result')) {
      last.content.push(...(turn.content as Record<string, unknown>[]));
    } else turns.push(turn);
  }
  return { system: system.length ? system.join('\n\n') : null, turns };
}

function generationOf(g: Generation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (g.temperature !== undefined) out.temperature = g.temperature;
  if (g.top_p !== undefined) out.top_p = g.top_p;
  if (g.stop !== undefined) out.stop_sequences = g.stop;
  if (g.tools !== undefined) {
    out.tools = g.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      input_schema: t.function.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const choice = g.tool_choice;
  if (choice !== undefined) {
    out.tool_choice = typeof choice === 'object' ? { type: 'tool', name: choice.function.name } : { type: choice === 'required' ? 'any' : choice };
  }
  return out;
}

function toolCallsOf(blocks: unknown[]): ToolCall[] {
  return blocks
    .filter((b): b is Record<string, unknown> => isObject(b) && b.type === 'tool_use')
    .map((b) => ({ id: String(b.id ?? ''), type: 'function', function: { name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) } }));
}

export function anthropicProtocol(): UpstreamProtocol {
  return {
    id: 'anthropic',
    unsupported: ['seed', 'response_format'],
    request(call: UpstreamCall) {
      const { system, turns } = split(call.messages);
      const body: Record<string, unknown> = { model: call.model, max_tokens: call.maxOutputTokens, messages: turns, stream: call.stream, ...generationOf(call.generation) };
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
        toolCalls: toolCallsOf(blocks),
        usage: { inputTokens: inputTotal(inputParts(usage)) ?? null, outputTokens: count(usage.output_tokens) ?? null },
        finishReason: typeof body.stop_reason === 'string' ? body.stop_reason : null,
      };
    },
    streamDecoder() {
      const input: InputParts = {};
      // Content block index → tool call index (text blocks take block indexes, not tool call ones).
      const tools = new Map<number, number>();
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
            case 'content_block_start': {
              const block = isObject(data.content_block) ? data.content_block : null;
              const at = count(data.index);
              if (block?.type === 'tool_use' && at !== undefined) {
                tools.set(at, tools.size);
                items.push({ type: 'tool_call', index: tools.get(at)!, id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: '' });
              }
              break;
            }
            case 'content_block_delta': {
              const delta = isObject(data.delta) ? data.delta : null;
              if (delta && delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') items.push({ type: 'delta', text: delta.text });
              const tool = tools.get(count(data.index) ?? -1);
              if (delta && delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && tool !== undefined) {
                items.push({ type: 'tool_call', index: tool, arguments: delta.partial_json });
              }
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
