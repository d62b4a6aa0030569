/**
 * Our failures in OpenAI's error format `{error: {message, type, param, code}}` with the HTTP status OpenAI gives the
 * same situation, so that OpenAI clients raise their usual error classes (an empty balance is OpenAI's
 * `insufficient_quota` under 429, an unknown model `model_not_found` under 404). Our own code stays readable in
 * `error.code` where OpenAI has none for it, and the failure's details (`needed`, `usage_id`...) ride along.
 * `x-should-retry` tells OpenAI's clients which failures are worth their automatic retries: only an upstream busy or
 * down; retrying an empty balance or a bad argument only repeats the refusal.
 */
import { RawReply } from '../../../sdk/index.js';
import type { ToolFailure } from '../billing.js';

type Shape = [status: number, type: string, code: string];

const SHAPES: Record<string, Shape> = {
  invalid_arguments: [400, 'invalid_request_error', 'invalid_value'],
  insufficient_funds: [429, 'insufficient_quota', 'insufficient_quota'],
  key_revoked: [401, 'invalid_request_error', 'invalid_api_key'],
  admission_refused: [403, 'permission_error', 'admission_refused'],
  model_not_found: [404, 'invalid_request_error', 'model_not_found'],
  no_active_model: [404, 'invalid_request_error', 'model_not_found'],
  currency_mismatch: [409, 'invalid_request_error', 'currency_mismatch'],
  no_route: [503, 'server_error', 'no_route'],
  upstream_timeout: [504, 'timeout', 'upstream_timeout'],
  upstream_error: [502, 'server_error', 'upstream_error'],
  upstream_unreachable: [502, 'server_error', 'upstream_unreachable'],
  budget_exceeded: [429, 'insufficient_quota', 'budget_exceeded'],
  model_not_allowed: [403, 'permission_error', 'model_not_allowed'],
};

function shapeOf(f: ToolFailure): Shape {
  // An upstream that refused for its own rate limit: the customer meets a rate limit too, and may retry later.
  if (f.code === 'upstream_error' && f.data.upstream_status === 429) return [429, 'requests', 'rate_limit_exceeded'];
  if (f.code === 'rate_limit_exceeded') return [429, f.data.limit === 'tokens_per_minute' ? 'tokens' : 'requests', 'rate_limit_exceeded'];
  return SHAPES[f.code] ?? [500, 'server_error', f.code];
}

export function openAiError(status: number, type: string, code: string, message: string, param: string | null = null, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): RawReply {
  return new RawReply(JSON.stringify({ error: { message, type, param, code, ...extra } }), 'application/json', status, { 'x-should-retry': 'false', ...headers });
}

export function failureReply(f: ToolFailure, headers: Record<string, string> = {}): RawReply {
  const [status, type, code] = shapeOf(f);
  const { field, ...details } = f.data;
  // A key's own rate limit passes again after its wait: OpenAI's clients retry it, after Retry-After.
  const retry = ('retry' in f.data && f.code.startsWith('upstream_')) || f.code === 'rate_limit_exceeded';
  const after: Record<string, string> = typeof f.data.retry_after === 'number' ? { 'Retry-After': String(f.data.retry_after) } : {};
  return openAiError(status, type, code, f.message, typeof field === 'string' ? field : null, { ...details, ...(code !== f.code ? { reason: f.code } : {}) }, {
    ...headers,
    ...after,
    ...(retry ? { 'x-should-retry': 'true' } : {}),
  });
}

export const unauthorized = (): RawReply =>
  openAiError(401, 'invalid_request_error', 'invalid_api_key', 'Incorrect API key provided: a valid customer bearer token is required', null, {}, {
    'WWW-Authenticate': 'Bearer realm="mcp-passthrough"',
  });
