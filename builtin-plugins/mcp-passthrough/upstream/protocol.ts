/**
 * The contract between the plugin and an upstream's wire format. A preset (presets.ts) names a protocol, a default
 * endpoint and whether it needs a token; a protocol turns a call into an HTTP request and reads the answer back,
 * whole or as server-sent events. Other plugins add presets through the service (api.ts), the way rails fill the
 * payback registry.
 */

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

/**
 * Messages, tool calls and generation options are kept in OpenAI's wire form (validated in customer.ts): the
 * OpenAI-compatible protocol sends them as they are, a reselling node forwards them to its seller unchanged, and the
 * Anthropic protocol maps them.
 */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  /** Text; empty for an assistant turn that only called tools. */
  content: string;
  /** An assistant turn's calls of the customer's tools. */
  tool_calls?: ToolCall[];
  /** A tool turn: the call it answers. */
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: Record<string, unknown> };

/** What the customer asked of the generation beside the messages; absent fields are left to the upstream. */
export interface Generation {
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  response_format?: ResponseFormat;
}

export type GenerationOption = keyof Generation;

/** A piece of a tool call as a stream brings it: the first names it, the others add to its arguments. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments: string;
}

export interface UpstreamCall {
  /** The provider's base URL as the operator configured it (no trailing slash). */
  endpoint: string;
  /** The provider token, decrypted just for this request; null when none is stored. */
  token: string | null;
  model: string;
  messages: readonly ChatMessage[];
  maxOutputTokens: number;
  stream: boolean;
  generation: Generation;
}

export interface HttpRequestSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Token counts as the upstream reported them; null when it did not. */
export interface UsageReport {
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface WholeAnswer {
  text: string;
  /** Calls of the customer's tools the answer made (none when absent). */
  toolCalls?: ToolCall[];
  usage: UsageReport;
  finishReason: string | null;
}

/** What one server-sent event carried. */
export type StreamItem =
  | { type: 'delta'; text: string }
  | ({ type: 'tool_call' } & ToolCallDelta)
  /** Counts so far; a later report replaces the fields it names (both formats send running totals). */
  | { type: 'usage'; inputTokens?: number; outputTokens?: number }
  | { type: 'finish'; reason: string }
  | { type: 'error'; message: string }
  | { type: 'done' };

export interface StreamDecoder {
  /** One event as eventsource-parser gives it (`event` is the `event:` field, absent for unnamed events). */
  decode(event: { event?: string | undefined; data: string }): StreamItem[];
}

export interface UpstreamProtocol {
  readonly id: string;
  /** Generation options this wire format cannot carry: a call asking for one is not routed to it. */
  readonly unsupported?: readonly GenerationOption[];
  request(call: UpstreamCall): HttpRequestSpec;
  /** A whole JSON answer (a non-streamed call, or a stream request the server answered in one piece). */
  parse(body: unknown): WholeAnswer;
  streamDecoder(): StreamDecoder;
  /** The upstream's own error text from an error body, for the operator's log and the tool error. */
  errorMessage(body: unknown): string | null;
}

export interface ProviderPreset {
  /** `^[a-z0-9][a-z0-9-]{0,31}$`, what `configure.provider.preset` names. */
  readonly id: string;
  readonly label: string;
  readonly protocol: UpstreamProtocol;
  /** Used when the operator gives no endpoint; null: the operator must give one. */
  readonly defaultEndpoint: string | null;
  /** Hosted APIs refuse calls without a token: such a provider is not a route until one is stored. */
  readonly requiresToken: boolean;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** Assembles streamed tool-call pieces (a piece without a known index opens a new call). */
export function addToolCallDelta(calls: ToolCall[], d: ToolCallDelta): void {
  const call = (calls[d.index] ??= { id: d.id ?? '', type: 'function', function: { name: d.name ?? '', arguments: '' } });
  if (d.id) call.id = d.id;
  if (d.name) call.function.name = d.name;
  call.function.arguments += d.arguments;
}
