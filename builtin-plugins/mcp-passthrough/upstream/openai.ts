/**
 * OpenAI-compatible chat completions (`POST <endpoint>/chat/completions`): OpenAI, OpenRouter, vLLM, llama.cpp
 * server, Ollama and others. Streams are unnamed events of `chat.completion.chunk` JSON ending with `[DONE]`;
 * `stream_options.include_usage` asks for a last chunk with the usage of the whole call (servers that ignore it
 * send none, and the call is billed on an estimate). Servers differ in details the decoder tolerates: `choices`
 * null or missing on the usage chunk, usage on the finishing chunk, an `{"error": ...}` event under HTTP 200.
 */
import { count, isObject, type ChatMessage, type StreamItem, type ToolCall, type UpstreamCall, type UpstreamProtocol, type UsageReport } from './protocol.js';

function usageOf(u: unknown): UsageReport | null {
  if (!isObject(u)) return null;
  return { inputTokens: count(u.prompt_tokens) ?? null, outputTokens: count(u.completion_tokens) ?? null };
}

function firstChoice(body: Record<string, unknown>): Record<string, unknown> | null {
  const choices = body.choices;
  return Array.isArray(choices) && isObject(choices[0]) ? choices[0] : null;
}

/** An assistant turn that only called tools has no content (null, as OpenAI writes it). */
function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
  if (m.tool_calls?.length) return { role: m.role, content: m.content || null, tool_calls: m.tool_calls };
  return { role: m.role, content: m.content };
}

function toolCallsOf(message: Record<string, unknown> | null): ToolCall[] {
  const calls = message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.filter(isObject).map((c) => {
    const fn = isObject(c.function) ? c.function : {};
    return { id: String(c.id ?? ''), type: 'function', function: { name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : '' } };
  });
}

function errorText(body: unknown): string | null {
  if (!isObject(body)) return null;
  const e = body.error;
  if (typeof e === 'string') return e;
  if (isObject(e) && typeof e.message === 'string') return e.message;
  return typeof body.message === 'string' ? body.message : null;
}

/** `maxTokensField`: OpenAI's own API wants `max_completion_tokens`; most compatible servers know only `max_tokens`. */
export function openAiProtocol(maxTokensField: 'max_tokens' | 'max_completion_tokens' = 'max_tokens'): UpstreamProtocol {
  return {
    id: 'openai',
    unsupported: [],
    request(call: UpstreamCall) {
      const body: Record<string, unknown> = {
        model: call.model,
        messages: call.messages.map(wireMessage),
        [maxTokensField]: call.maxOutputTokens,
        stream: call.stream,
        ...call.generation,
      };
      if (call.stream) body.stream_options = { include_usage: true };
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: call.stream ? 'text/event-stream' : 'application/json' };
      if (call.token) headers.authorization = `Bearer ${call.token}`;
      return { url: `${call.endpoint}/chat/completions`, headers, body: JSON.stringify(body) };
    },
    parse(body) {
      if (!isObject(body)) return { text: '', usage: { inputTokens: null, outputTokens: null }, finishReason: null };
      const choice = firstChoice(body);
      const message = choice && isObject(choice.message) ? choice.message : null;
      return {
        text: message && typeof message.content === 'string' ? message.content : '',
        toolCalls: toolCallsOf(message),
        usage: usageOf(body.usage) ?? { inputTokens: null, outputTokens: null },
        finishReason: choice && typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
      };
    },
    streamDecoder() {
      return {
        decode(event) {
          if (event.data.startsWith('[DONE]')) return [{ type: 'done' }];
          let chunk: unknown;
          try {
            chunk = JSON.parse(event.data);
          } catch {
            return [];
          }
          if (!isObject(chunk)) return [];
          const items: StreamItem[] = [];
          const err = chunk.error !== undefined ? errorText(chunk) : null;
          if (err !== null) items.push({ type: 'error', message: err });
          const choice = firstChoice(chunk);
          if (choice) {
            const delta = isObject(choice.delta) ? choice.delta : null;
            if (delta && typeof delta.content === 'string' && delta.content !== '') items.push({ type: 'delta', text: delta.content });
            for (const [i, c] of (delta && Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
              if (!isObject(c)) continue;
              const fn = isObject(c.function) ? c.function : {};
              items.push({
                type: 'tool_call',
                index: count(c.index) ?? i,
                ...(typeof c.id === 'string' ? { id: c.id } : {}),
                ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
                arguments: typeof fn.arguments === 'string' ? fn.arguments : '',
              });
            }
            if (typeof choice.finish_reason === 'string') items.push({ type: 'finish', reason: choice.finish_reason });
          }
          const usage = usageOf(chunk.usage);
          if (usage) {
            items.push({
              type: 'usage',
              ...(usage.inputTokens !== null ? { inputTokens: usage.inputTokens } : {}),
              ...(usage.outputTokens !== null ? { outputTokens: usage.outputTokens } : {}),
            });
          }
          return items;
        },
      };
    },
    errorMessage: errorText,
  };
}
