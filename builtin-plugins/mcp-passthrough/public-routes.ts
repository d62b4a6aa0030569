/**
 * The customer surfaces under `/p/mcp-passthrough/`: the MCP endpoint and the three customer HTTP routes of
 * Document 2. The host enforces each route's rate and body limit before this code runs (the table below, per
 * bearer: many customers share the Tor daemon's address); authentication, the Origin rules and everything after
 * are ours. The customer HTTP routes answer plain JSON `{ok, ...}` (or JSON-RPC for the `tools/call` envelope of
 * legacy chat), not the operator's host envelope.
 */
import { RawReply, type Logger, type PluginContext, type RouteRequest } from '../../sdk/index.js';
import { ToolFailure } from './billing.js';
import { MAX_ORIGINS_PER_KEY } from './config.js';
import { KEYINFO_USAGE_ROWS, parseChatArgs, type CustomerApi } from './customer.js';
import type { Keys } from './keys.js';
import type { McpEndpoint } from './mcp/endpoint.js';
import type { OpenAiDoor } from './openai/door.js';
import { checkOrigin } from './origins.js';
import { customerUsageView } from './present.js';
import type { KeyRow, McpStore } from './store.js';

/** Document 2, "Plugin routes (enforced by the host before plugin code runs)". */
export const ROUTE_LIMITS = {
  mcp: { rateLimitPerMinute: 600, maxBodyBytes: 1_048_576 },
  /** The OpenAI-compatible door: a call each, as on the MCP endpoint. */
  openai: { rateLimitPerMinute: 600, maxBodyBytes: 1_048_576 },
  chat: { rateLimitPerMinute: 60, maxBodyBytes: 1_048_576 },
  keyinfo: { rateLimitPerMinute: 120, maxBodyBytes: 4096 },
  origins: { rateLimitPerMinute: 60, maxBodyBytes: 16_384 },
} as const;

export interface PublicDeps {
  ctx: PluginContext;
  store: McpStore;
  keys: Keys;
  api: CustomerApi;
  endpoint: McpEndpoint;
  openai: OpenAiDoor;
  log: Logger;
}

/** What the customer routes answer: plain JSON (not the host envelope), or a stream of server-sent events. */
export const JSON_TYPE = 'application/json';
const JSON_OR_STREAM = [JSON_TYPE, 'text/event-stream'];

export const json = (data: unknown, status = 200, headers: Record<string, string> = {}): RawReply => new RawReply(JSON.stringify(data), JSON_TYPE, status, headers);

export const failure = (status: number, code: string, message: string, extra: Record<string, unknown> = {}): RawReply =>
  json({ ok: false, error: { code, message, ...extra } }, status, status === 401 ? { 'WWW-Authenticate': 'Bearer realm="mcp-passthrough"' } : {});

/** What each path with a preflight serves. */
const PREFLIGHT_METHODS: Record<string, string> = { mcp: 'POST, DELETE', chat: 'POST', 'v1/chat/completions': 'POST', 'v1/models': 'GET' };

function preflight(req: RouteRequest, path: string): RawReply {
  const origin = typeof req.headers.origin === 'string' ? req.headers.origin : null;
  const methods = PREFLIGHT_METHODS[path]!;
  if (!origin) return new RawReply('', 'text/plain', 204, { Allow: `${methods}, OPTIONS` });
  return new RawReply('', 'text/plain', 204, {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': methods,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID',
    'Access-Control-Expose-Headers': 'Mcp-Session-Id, MCP-Protocol-Version',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  });
}

export function parseBody(req: RouteRequest): { ok: true; body: unknown } | { ok: false } {
  if (req.rawBody.length === 0) return { ok: true, body: {} };
  try {
    return { ok: true, body: JSON.parse(req.rawBody.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

export function registerPublicRoutes(deps: PublicDeps): void {
  const { ctx, store, keys, api, endpoint, openai, log } = deps;
  const limited = { ...ROUTE_LIMITS.mcp, rateLimitBy: 'credential' as const };

  ctx.routes.public({ method: 'POST', path: 'mcp', ...limited, produces: JSON_OR_STREAM, handler: (req) => endpoint.handle(req) });
  ctx.routes.public({ method: 'DELETE', path: 'mcp', ...limited, produces: [], handler: (req) => endpoint.handle(req) });
  ctx.routes.public({ method: 'GET', path: 'mcp', ...limited, maxBodyBytes: 4096, produces: JSON_OR_STREAM, handler: (req) => endpoint.handle(req) });
  // A preflight carries no bearer, so it cannot know a key's own origins: it permits the shape of the request, and
  // the request itself is then checked with its bearer and Origin like any other.
  const door = { ...ROUTE_LIMITS.openai, rateLimitBy: 'credential' as const };
  ctx.routes.public({ method: 'POST', path: 'v1/chat/completions', ...door, produces: JSON_OR_STREAM, handler: (req) => openai.chat(req) });
  ctx.routes.public({ method: 'GET', path: 'v1/models', ...door, maxBodyBytes: 4096, produces: JSON_TYPE, handler: (req) => openai.models(req) });
  for (const path of Object.keys(PREFLIGHT_METHODS)) {
    ctx.routes.public({ method: 'OPTIONS', path, rateLimitPerMinute: 600, maxBodyBytes: 0, produces: [], handler: (req) => preflight(req, path) });
  }

  /** The key of the request's bearer, or the 401 answer. */
  const authenticate = (req: RouteRequest): KeyRow | RawReply => keys.authenticate(req.headers.authorization) ?? failure(401, 'unauthorized', 'a valid customer bearer token is required');

  ctx.routes.public({
    method: 'GET',
    path: 'admin-keyinfo',
    produces: JSON_TYPE,
    ...ROUTE_LIMITS.keyinfo,
    rateLimitBy: 'credential',
    handler: (req) => {
      const key = authenticate(req);
      if (key instanceof RawReply) return key;
      return json({
        ok: true,
        key: { ...keys.view(key), ...api.balance(key) },
        usage: store.usage(KEYINFO_USAGE_ROWS, key.id).map(customerUsageView),
        max_allowed_origins: MAX_ORIGINS_PER_KEY,
      });
    },
  });

  ctx.routes.public({
    method: 'POST',
    path: 'admin-origins',
    produces: JSON_TYPE,
    ...ROUTE_LIMITS.origins,
    rateLimitBy: 'credential',
    handler: (req) => {
      const key = authenticate(req);
      if (key instanceof RawReply) return key;
      const parsed = parseBody(req);
      if (!parsed.ok) return failure(400, 'invalid_json', 'the body is not JSON');
      const body = parsed.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body) || !('allowed_origins' in body)) {
        return failure(400, 'missing_field', 'allowed_origins is required (an array of origins, or null to clear)', { field: 'allowed_origins' });
      }
      try {
        const origins = keys.setOrigins(key, (body as { allowed_origins: unknown }).allowed_origins);
        return json({
          ok: true,
          key_id: key.id,
          allowed_origins: origins,
          effective_origins: keys.effectiveOrigins(store.key(key.id)!),
          uses_operator_default: origins.length === 0,
          max_allowed_origins: MAX_ORIGINS_PER_KEY,
        });
      } catch (err) {
        const e = err as { code?: string; message?: string; context?: Record<string, unknown> };
        if (e.code) return failure(400, e.code, e.message ?? 'invalid', e.context ?? {});
        throw err;
      }
    },
  });

  ctx.routes.public({
    method: 'POST',
    path: 'chat',
    produces: JSON_TYPE,
    ...ROUTE_LIMITS.chat,
    rateLimitBy: 'credential',
    handler: async (req) => {
      const key = authenticate(req);
      if (key instanceof RawReply) return key;
      const origin = checkOrigin(req.headers.origin, keys.effectiveOrigins(key));
      if (!origin.ok) return failure(403, 'origin_not_allowed', `Origin not allowed: ${origin.origin}`);
      const cors: Record<string, string> = origin.origin ? { 'Access-Control-Allow-Origin': origin.origin, Vary: 'Origin' } : {};
      const parsed = parseBody(req);
      if (!parsed.ok) return json({ ok: false, error: { code: 'invalid_json', message: 'the body is not JSON' } }, 400, cors);
      const body = parsed.body as Record<string, unknown> | null;
      const rpc = body && typeof body === 'object' && body.jsonrpc === '2.0';
      if (rpc) return json(await legacyRpc(body, key), 200, cors);
      const log_: string[] = [];
      try {
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ToolFailure('invalid_arguments', 'the body must be {messages, model?}');
        const args = parseChatArgs(body, true);
        log_.push(`model ${args.model ?? 'active'}; ${args.messages.length} message(s)`);
        const result = await api.chat(api.fresh(key.id), args, { tool: 'chat', cancel: new AbortController().signal });
        log_.push(`provider ${String(result.provider)}; ${String(result.input_tokens)} in, ${String(result.output_tokens)} out; charged ${String(result.charge)} ${String(result.currency)}`);
        return json({ ok: true, result, _log: log_ }, 200, cors);
      } catch (err) {
        if (!(err instanceof ToolFailure)) throw err;
        log_.push(`refused: ${err.code}`);
        const after: Record<string, string> = typeof err.data.retry_after === 'number' ? { 'Retry-After': String(err.data.retry_after) } : {};
        return json({ ok: false, error: { code: err.code, message: err.message, ...err.data }, _log: log_ }, statusOf(err.code), { ...cors, ...after });
      }
    },
  });

  /** The JSON-RPC form of legacy chat: one `tools/call` of a tool named `chat`. */
  async function legacyRpc(body: Record<string, unknown>, key: KeyRow): Promise<Record<string, unknown>> {
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    const error = (code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });
    if (body.method !== 'tools/call') return error(-32601, `Method not found: ${String(body.method)}`);
    const params = (body.params ?? {}) as Record<string, unknown>;
    if (params.name !== 'chat') return error(-32602, `Unknown tool: ${String(params.name)}`);
    try {
      const args = parseChatArgs((params.arguments ?? {}) as Record<string, unknown>, true);
      const result = await api.chat(api.fresh(key.id), args, { tool: 'chat', callId: id === null ? undefined : String(id), cancel: new AbortController().signal });
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(result.output) }], structuredContent: result, ...(result.error ? { isError: true } : {}) } };
    } catch (err) {
      if (!(err instanceof ToolFailure)) {
        log.error('legacy chat failed', { error: err instanceof Error ? err.message : String(err) });
        return error(-32603, 'Internal error');
      }
      const e = { code: err.code, message: err.message, ...err.data };
      return { jsonrpc: '2.0', id, result: { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}` }], structuredContent: { error: e } } };
    }
  }
}

function statusOf(code: string): number {
  switch (code) {
    case 'invalid_arguments':
      return 400;
    case 'insufficient_funds':
      return 402;
    case 'rate_limit_exceeded':
    case 'budget_exceeded':
      return 429;
    case 'model_not_allowed':
      return 403;
    case 'admission_refused':
    case 'key_revoked':
      return 403;
    case 'model_not_found':
    case 'no_active_model':
      return 404;
    case 'upstream_timeout':
      return 504;
    case 'upstream_error':
    case 'upstream_unreachable':
    case 'no_route':
      return 502;
    default:
      return 400;
  }
}
