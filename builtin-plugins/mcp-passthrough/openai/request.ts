/**
 * The body of `POST /v1/chat/completions` (OpenAI's request format) turned into the arguments of a billed call, the
 * same `ChatArgs` the MCP tool builds: what OpenAI clients send differently (text parts for content, the `developer`
 * role, `max_completion_tokens`) is normalised here, then the tool's own parser (customer.ts) takes the rest, tools and
 * generation options included, by the same rules.
 * A field that is neither OpenAI's nor ours fails the call: a client that asks for something must not be billed for
 * an answer made without it.
 */
import { bad, parseChatArgs, positiveInt, type ChatArgs } from '../customer.js';
import { isObject } from '../upstream/protocol.js';

export interface OpenAiChatRequest {
  args: ChatArgs;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage (and our billing) of the whole call. */
  includeUsage: boolean;
}

/** Accepted and not forwarded: they change nothing an upstream would answer. */
const IGNORED = ['user', 'store', 'metadata'];
/** OpenAI's names for what the tool calls otherwise; the rest of the body has the tool's names already. */
const OWN = ['max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'n', ...IGNORED];

/** OpenAI content is a string or an array of parts; only text parts are taken, joined as OpenAI itself joins them. */
function textOf(content: unknown, at: string): unknown {
  if (!Array.isArray(content)) return content;
  return content
    .map((part: unknown, i) => {
      if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string') throw bad(`${at}[${i}] must be a text part {type: "text", text} (text only)`, `${at}[${i}]`);
      return part.text;
    })
    .join('');
}

/** `developer` is OpenAI's newer name of the system role; a participant `name` changes nothing upstream and is dropped. */
function messagesOf(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((m: unknown, i) => {
    if (!isObject(m)) return m;
    const { name: _name, ...rest } = m;
    return { ...rest, role: m.role === 'developer' ? 'system' : m.role, content: textOf(m.content, `messages[${i}].content`) };
  });
}

export function parseOpenAiChat(body: unknown): OpenAiChatRequest {
  if (!isObject(body)) throw bad('the body must be a JSON object', 'body');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw bad('stream must be a boolean', 'stream');
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw bad('n must be 1 (one choice per call)', 'n');
  const options = body.stream_options;
  if (options !== undefined && options !== null) {
    if (!isObject(options) || Object.keys(options).some((k) => k !== 'include_usage') || (options.include_usage !== undefined && typeof options.include_usage !== 'boolean')) {
      throw bad('stream_options may only hold include_usage (a boolean)', 'stream_options');
    }
  }
  const stream = body.stream === true;
  if (options && !stream) throw bad('stream_options is only allowed with stream: true', 'stream_options');
  const maxOutput = positiveInt(body, 'max_completion_tokens') ?? positiveInt(body, 'max_tokens');
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) => !OWN.includes(k)));
  return {
    args: parseChatArgs({ ...rest, messages: messagesOf(body.messages), ...(maxOutput !== undefined ? { max_output_tokens: maxOutput } : {}) }),
    stream,
    includeUsage: stream && isObject(options) && options.include_usage === true,
  };
}
