/**
 * OpenAI-compatible chat completions (`POST <endpoint>/chat/completions`): OpenAI, OpenRouter, vLLM, llama.cpp
 * server, Ollama and others. Streams are unnamed events of `chat.completion.chunk` JSON ending with `[DONE]`;
 * `stream_options.include_usage` asks for a last chunk with the usage of the whole call (servers that ignore it
 * send none, and the call is billed on an estimate). Servers differ in details the decoder tolerates: `choices`
 * null or missing on the usage chunk, usage on the finishing chunk, an `{"error": ...}` event under HTTP 200.
 */
import { count, isObject, type StreamItem, type UpstreamCall, type UpstreamProtocol, type UsageReport } from './protocol.js';

function usageOf(u: unknown): UsageReport | null {
  if (!isObject(u)) return null;
  return { inputTokens: count(u.prompt_tokens) ?? null, outputTokens: count(u.completion_tokens) ?? null };
}

function firstChoice(body: Record<string, unknown>): Record<string, unknown> | null {
  const choices = body.choices;
  return Array.isArray(choices) && isObject(choices[0]) ? choices[0] : null;
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
    request(call: UpstreamCall) {
      const body: Record<string, unknown> = {
        model: call.model,
        messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
        [maxTokensField]: call.maxOutputTokens,
        stream: call.stream,
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
