/**
 * The contract between the plugin and an upstream's wire format. A preset (presets.ts) names a protocol, a default
 * endpoint and whether it needs a token; a protocol turns a call into an HTTP request and reads the answer back,
 * whole or as server-sent events. Other plugins add presets through the service (api.ts), the way rails fill the
 * payback registry.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
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
  usage: UsageReport;
  finishReason: string | null;
}

/** What one server-sent event carried. */
export type StreamItem =
  | { type: 'delta'; text: string }
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
