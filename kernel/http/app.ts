import { createHash } from 'node:crypto';
import Koa, { type Context } from 'koa';
import type { AuthInfo, HttpMethod, Logger, RouteRequest } from '../../sdk/index.js';
import { RawReply, Reply } from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import { inRequest } from '../log.js';
import type { TrustedProxies } from '../net/proxies.js';
import type { HealthReport } from '../db/storage-health.js';
import { grants } from '../auth/scopes.js';
import type { RequestVerifier } from '../auth/verifier.js';
import type { AuthFailureLimiter } from '../auth/failure-limiter.js';
import { SlidingWindowLimiter } from '../auth/rate-limiter.js';
import { DEFAULT_MAX_BODY_BYTES, dropUnreadBodyLater, parseJsonBody, refuseDeclaredOverLimit, type BodyReader } from './body.js';
import { clientIp } from './client-ip.js';
import { applyCors } from './cors.js';
import { errorBody, newRequestId, successBody } from './envelope.js';
import { openApiDocument } from './openapi.js';
import { normalizePath } from './path.js';
import { setPluginHeaders } from './plugin-content.js';
import type { MountedRoute, RouteTable } from './route-table.js';

export interface HttpDeps {
  verifier: RequestVerifier;
  /** Shared with the peer endpoint: one in-flight budget per client address for both. */
  bodies: BodyReader;
  /** Blocks a client address that keeps failing authentication (every 401 of the REST API counts). */
  authFailures: AuthFailureLimiter;
  /**
   * The same for plugins' public routes (`/p/...`), whose credentials are the plugins' own (bearer tokens): every
   * 401 they answer counts, and a blocked address is refused on public routes only, so a customer guessing tokens
   * does not lock the operator out of the REST API, nor the other way round.
   */
  publicAuthFailures: AuthFailureLimiter;
  log: Logger;
  apiEnabled(): boolean;
  corsOrigins(): string;
  trustedProxies(): TrustedProxies | null;
  /**
   * Test mode: every answer's `data` is checked against its route's response schema, and a mismatch answers 500
   * `response_schema_mismatch`, so the test that caused it fails.
   */
  checkResponses: boolean;
  /** The node's version, as the OpenAPI document states it. */
  version: string;
  /** Whether `/p/<plugin>/...` may be served now (node-wide ceiling and the plugin's own switch). */
  publicRoutesOpen(plugin: string): boolean;
  /** What `/healthz` answers (always 200: the node serves, degraded or not). */
  health(): HealthReport;
  /** The answer to a failure that is not an ApiError but has one of its own (a refused disk write); null: a 500. */
  knownFailure(err: unknown): ApiError | null;
  /** Told of every answered request: its route template (`unmatched` when no route took it), for metrics. */
  answered(request: AnsweredRequest): void;
}

export interface AnsweredRequest {
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export interface HttpMetrics {
  requests: number;
  by_status: Record<string, number>;
}

/** Where the OpenAPI document of the routes is served, without a key. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

interface State {
  requestId: string;
  /** The client's address, found once per request (the gates and the route both ask). */
  clientIp?: string;
}

/**
 * The HTTP surface. Routes come from a swappable RouteTable (a plugin reload builds a new one); this module
 * owns the pipeline every request goes through: request id, envelopes, CORS, body limits, HMAC auth, scope,
 * schema validation, then the handler.
 */
export class HttpServerApp {
  readonly koa = new Koa<State>();
  readonly metrics: HttpMetrics = { requests: 0, by_status: {} };
  #table: RouteTable | null = null;
  #dispatchRoutes: Koa.Middleware | null = null;
  /** The OpenAPI document of the current route generation, built when first asked for. */
  #openApi: string | null = null;
  readonly #publicLimiter = new SlidingWindowLimiter();

  constructor(private readonly deps: HttpDeps) {
    this.koa.proxy = false;
    this.koa.silent = true;
    this.koa.use((ctx, next) => this.#observe(ctx as Context, next));
    this.koa.use((ctx, next) => this.#envelope(ctx as Context, next));
    this.koa.use((ctx, next) => this.#front(ctx as Context, next));
    this.koa.use((ctx, next) => (this.#dispatchRoutes ? this.#dispatchRoutes(ctx, next) : next()));
    this.koa.use((ctx) => this.#notFound(ctx as Context));
  }

  setRoutes(table: RouteTable): void {
    this.#table = table;
    this.#compose(table);
    // A development node starts and stops a plugin within a generation; a reload's teardown of the old table is not
    // such a change, and the old dispatcher serves until the new table is set.
    table.onChanged(() => {
      if (this.#table === table) this.#compose(table);
    });
  }

  /** routes() composes a dispatcher: built once per route table and change, never per request. */
  #compose(table: RouteTable): void {
    this.#openApi = null;
    this.#dispatchRoutes = table.router((route) => (ctx) => this.#dispatch(route, ctx as unknown as Context)).routes() as unknown as Koa.Middleware;
  }

  callback(): ReturnType<Koa['callback']> {
    return this.koa.callback();
  }

  /**
   * Outside everything else: the request's scope, so every log line written while serving it carries the request id
   * #envelope gives it, and its measurement once the answer (an error envelope included) is settled.
   */
  async #observe(ctx: Context, next: Koa.Next): Promise<void> {
    const started = performance.now();
    await inRequest(() => ctx.state.requestId as string | undefined, next);
    const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
    const route = matched ?? (ctx.path === '/healthz' ? '/healthz' : 'unmatched');
    this.deps.answered({ route, method: ctx.method, status: ctx.status, seconds: (performance.now() - started) / 1000 });
  }

  async #envelope(ctx: Context, next: Koa.Next): Promise<void> {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    // No answer of the node is ever to be sniffed into another type (a JSON error read as HTML).
    ctx.set('X-Content-Type-Options', 'nosniff');
    let failure: string | null = null;
    try {
      await next();
    } catch (err) {
      dropUnreadBodyLater(ctx.req);
      const apiErr = err instanceof ApiError ? err : this.deps.knownFailure(err);
      if (!apiErr) this.deps.log.error('unhandled error', { request_id: requestId, path: ctx.path, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      const e = apiErr ?? new ApiError('internal_error', 500, 'Internal server error');
      failure = e.code;
      ctx.status = e.status;
      if (e.code === 'rate_limit_exceeded' && typeof e.context?.retry_after === 'number') {
        ctx.set('Retry-After', String(e.context.retry_after));
      }
      ctx.body = errorBody(e, requestId);
    }
    // A 401 a route threw, or one a plugin answered itself (a public route's bearer check): each counts.
    if (ctx.status === 401) this.#failuresOf(ctx)?.failed(this.#clientIp(ctx), failure ?? 'unauthorized', Date.now());
    this.metrics.requests++;
    const cls = `${Math.floor(ctx.status / 100)}xx`;
    this.metrics.by_status[cls] = (this.metrics.by_status[cls] ?? 0) + 1;
  }

  async #front(ctx: Context, next: Koa.Next): Promise<void> {
    // Gates and the router see one spelling of the path; the signature covers the one the client sent.
    const path = normalizePath(ctx.path);
    if (path !== ctx.path) ctx.path = path;
    if (ctx.path === '/healthz') {
      ctx.body = successBody(this.deps.health(), ctx.state.requestId as string);
      return;
    }
    if (ctx.path.startsWith('/api/')) {
      if (applyCors(ctx, this.deps.corsOrigins())) return;
      if (!this.deps.apiEnabled()) throw new ApiError('api_disabled', 503, 'The REST API is disabled on this node');
      this.deps.authFailures.refuseBlocked(this.#clientIp(ctx), Date.now());
      if (ctx.path === OPENAPI_PATH && ctx.method === 'GET') {
        ctx.type = 'application/json';
        ctx.body = (this.#openApi ??= JSON.stringify(openApiDocument(this.#table?.routes() ?? [], this.deps.version)));
        return;
      }
    } else if (ctx.path.startsWith('/p/')) {
      this.deps.publicAuthFailures.refuseBlocked(this.#clientIp(ctx), Date.now());
    }
    await next();
  }

  /** Which failed-authentication limiter a 401 on this path counts in (none off the REST API and public routes). */
  #failuresOf(ctx: Context): AuthFailureLimiter | null {
    if (ctx.path.startsWith('/api/')) return this.deps.authFailures;
    return ctx.path.startsWith('/p/') ? this.deps.publicAuthFailures : null;
  }

  #clientIp(ctx: Context): string {
    const state = ctx.state as State;
    return (state.clientIp ??= clientIp(ctx.req.socket.remoteAddress, ctx.headers, this.deps.trustedProxies()));
  }

  #notFound(ctx: Context): never {
    const segments = ctx.path.split('/').filter(Boolean);
    const matchedPath = (ctx as unknown as { matched?: unknown[] }).matched?.length;
    if (segments[0] !== 'api' || segments[1] !== 'v1' || segments.length < 3) {
      if (segments[0] === 'p' && segments.length >= 3) throw new ApiError('unknown_action', 404, 'Unknown action');
      throw new ApiError('invalid_path', 404, 'Invalid API path');
    }
    if (matchedPath || this.#table?.knowsResource(segments[2]!)) {
      throw new ApiError('unknown_action', 404, `Unknown action for ${ctx.method} ${ctx.path}`);
    }
    throw new ApiError('unknown_resource', 404, `Unknown resource: ${segments[2]}`);
  }

  async #dispatch(route: MountedRoute, ctx: Context): Promise<void> {
    const { def, mount } = route;
    const ip = this.#clientIp(ctx);
    if (mount.kind === 'public') {
      if (!this.deps.publicRoutesOpen(mount.plugin)) throw new ApiError('unknown_action', 404, 'Unknown action');
    }
    if (def.rateLimitPerMinute) {
      const credential = def.rateLimitBy === 'credential' ? headerValue(ctx, 'authorization') : undefined;
      // Hashed: the limiter's keys outlive the request and must not hold a bearer in memory.
      const subject = credential ? `credential ${createHash('sha256').update(credential).digest('base64url')}` : ip;
      const wait = this.#publicLimiter.take(`${def.method} ${route.fullPath} ${subject}`, def.rateLimitPerMinute, Date.now());
      if (wait > 0) throw new ApiError('rate_limit_exceeded', 429, `Rate limit exceeded. Please try again in ${wait} seconds.`, { retry_after: wait });
    }
    const limit = def.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // Everything that needs no body is checked before the body is read: a request that cannot pass costs the node
    // its headers only. The size comes first, as it did when the body was read first.
    refuseDeclaredOverLimit(ctx.req, limit);
    // A request without an API key may be authenticated another way a builtin plugin offers (a session cookie).
    let auth: AuthInfo | null =
      'scope' in def.access && headerValue(ctx, 'x-api-key') === undefined
        ? (this.#table?.authenticate({ method: ctx.method as HttpMethod, path: ctx.path, headers: ctx.headers, ip, secure: ctx.secure }) ?? null)
        : null;
    const signed = 'scope' in def.access && !auth ? this.deps.verifier.precheck({ header: (n) => headerValue(ctx, n) }, Date.now()) : null;
    const rawBody = await this.deps.bodies.read(ctx.req, limit, ip);
    if (signed) auth = this.deps.verifier.verifyBody(signed, { method: ctx.method, path: rawPath(ctx.originalUrl), rawBody }, Date.now());
    if (auth && 'scope' in def.access) {
      if (!grants(auth.permissions, def.access.scope)) {
        const needed = typeof def.access.scope === 'string' ? def.access.scope : def.access.scope.join(' or ');
        throw new ApiError('permission_denied', 403, `This API key lacks the required permission: ${needed}`);
      }
    }
    const body = def.body ? parseJsonBody(rawBody) : {};
    route.validateBody?.(body);
    const query: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(ctx.query)) query[k] = Array.isArray(v) ? v[v.length - 1] : v;
    route.validateQuery?.(query);
    const req: RouteRequest<unknown, Record<string, string | undefined>> = {
      method: ctx.method as HttpMethod,
      params: { ...(ctx as unknown as { params?: Record<string, string> }).params },
      query: query as Record<string, string | undefined>,
      body,
      rawBody,
      headers: ctx.headers,
      auth,
      ip,
      secure: ctx.secure,
      requestId: ctx.state.requestId as string,
    };
    if (auth?.confirmed === false && def.confirm && (def.confirm === true || def.confirm(req))) {
      throw new ApiError('confirmation_required', 403, 'This action needs a fresh confirmation: enter the auth code again, then retry');
    }
    const result = await def.handler(req);
    const setHeaders = (headers: Record<string, string>): void => {
      if (mount.kind === 'api') for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      else setPluginHeaders(ctx, headers);
    };
    if (result instanceof RawReply) {
      ctx.status = result.status;
      setHeaders(result.headers);
      ctx.type = result.contentType;
      ctx.body = result.body;
      return;
    }
    const reply = result instanceof Reply ? result : new Reply(result);
    const mismatch = this.deps.checkResponses && route.checkResponse ? route.checkResponse(reply.data) : null;
    if (mismatch) throw new ApiError('response_schema_mismatch', 500, `${def.method} ${route.fullPath} answered outside its response schema: ${mismatch}`);
    ctx.status = reply.status;
    setHeaders(reply.headers);
    ctx.body = successBody(reply.data, req.requestId, reply.message);
  }
}

function headerValue(ctx: Context, name: string): string | undefined {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The path exactly as the client sent it (still percent-encoded): that is what the client signed. */
function rawPath(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
