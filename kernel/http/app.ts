import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import Koa, { type Context } from 'koa';
import type { AuthInfo, HttpMethod, Logger, RouteRequest } from '../../sdk/index.js';
import { RawReply, Reply } from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import { inRequest } from '../log.js';
import type { TrustedProxies } from '../net/proxies.js';
import type { HealthReport } from '../db/storage-health.js';
import { grants } from '../auth/scopes.js';
import type { RequestHeaders, RequestVerifier } from '../auth/verifier.js';
import type { AuthFailureLimiter } from '../auth/failure-limiter.js';
import { SlidingWindowLimiter } from '../auth/rate-limiter.js';
import { DEFAULT_MAX_BODY_BYTES, dropUnreadBodyLater, parseJsonBody, refuseDeclaredOverLimit, type BodyReader } from './body.js';
import { clientIp } from './client-ip.js';
import { applyCors } from './cors.js';
import { errorBody, newRequestId, successBody } from './envelope.js';
import { openApiDocument } from './openapi.js';
import { normalizePath } from './path.js';
import { pluginHeaders } from './plugin-content.js';
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
  /** The client's address (client-ip.ts), worked out once per request. */
  ip: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A request path Koa reads as it is (no escape to decode or normalise, no character its URL parser treats apart, such
 * as `#` or a space): the router then sees the same path on either path.
 */
const PLAIN_PATH = /^[\w.~!$&'()*+,;=:@/-]+$/;

/** A REST or public route path the router matches only as spelled: no parameter, nothing its pattern syntax would read. */
const LITERAL_PATH = /^\/(api|p)\/[A-Za-z0-9/_.~-]+$/;

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
  /** The routes without parameters, by `METHOD /path`: what the fast path serves (see #serveFast). */
  #literal = new Map<string, MountedRoute>();
  readonly #koaCallback: ReturnType<Koa['callback']>;
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
    this.#koaCallback = this.koa.callback();
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
    const literal = new Map<string, MountedRoute>();
    for (const route of table.routes()) {
      if (LITERAL_PATH.test(route.fullPath)) literal.set(`${route.def.method} ${route.fullPath}`, route);
    }
    literal.delete(`GET ${OPENAPI_PATH}`);
    this.#literal = literal;
  }

  /** The request listener: the fast path where it applies, else the Koa pipeline. */
  callback(): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const found = this.#fastRoute(req);
      if (found) void this.#serveFast(found.route, found.params, req, res);
      else void this.#koaCallback(req, res);
    };
  }

  /**
   * The route of a request the fast path can serve exactly as the Koa pipeline would: a REST request with no `Origin`
   * (no CORS to apply) or a request to a plugin's public route, to a route without parameters spelled as the route is
   * (a map lookup), or else to one the router matches in a path with nothing to normalise. Everything else
   * (preflights, HEAD, odd spellings, the OpenAPI document, 404s) goes through Koa.
   */
  #fastRoute(req: IncomingMessage): { route: MountedRoute; params: Record<string, string> } | null {
    const url = req.url;
    const method = req.method;
    if (url === undefined || method === 'HEAD' || method === 'OPTIONS') return null;
    // A plugin's public route applies no CORS of the kernel's (the plugin answers its own): an Origin changes nothing.
    const publicRoute = url.startsWith('/p/');
    if (!publicRoute && (!url.startsWith('/api/') || req.headers.origin !== undefined)) return null;
    // Koa's URL parser drops a fragment: such a (malformed) request is left to it.
    if (url.includes('#')) return null;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const literal = this.#literal.get(`${method} ${path}`);
    if (literal) return { route: literal, params: {} };
    if (!PLAIN_PATH.test(path) || path.includes('//') || path === OPENAPI_PATH) return null;
    const matched = this.#table?.match(path, method ?? '') ?? null;
    return matched && (matched.route.mount.kind === 'public') === publicRoute ? matched : null;
  }

  /**
   * A request answered straight from node:http, without Koa's context, middleware chain and router: the same gates
   * (#front), route pipeline (#answer), envelope, headers and bytes, metrics and failure counting (#envelope,
   * #observe). A reply that needs Koa's body rules (a RawReply, an empty status, its own content headers) is handed
   * to Koa to write.
   */
  async #serveFast(route: MountedRoute, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = newRequestId();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const url = req.url!;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const ip = this.#clientIp(req);
    let matched = false;
    let failure: string | null = null;
    // A public route's credentials are its plugin's: its refusals count apart from the REST API's (HttpDeps).
    const failures = route.mount.kind === 'public' ? this.deps.publicAuthFailures : this.deps.authFailures;
    await inRequest(
      () => requestId,
      async () => {
        try {
          if (route.mount.kind !== 'public' && !this.deps.apiEnabled()) throw new ApiError('api_disabled', 503, 'The REST API is disabled on this node');
          failures.refuseBlocked(ip, Date.now());
          matched = true;
          const query = q === -1 ? {} : queryOf(url.slice(q + 1));
          const result = await this.#answer(route, { req, method: req.method!, path, url, query, params, ip, secure: isSecure(req), requestId });
          const headers = this.#headersOf(route, result.headers);
          if (result instanceof RawReply) {
            if (!writeRaw(res, result, headers)) this.#writeWithKoa(req, res, requestId, result, headers);
          } else if (!plainJson(result.status, headers)) this.#writeWithKoa(req, res, requestId, result, headers);
          else writeJson(res, result.status, headers, successBody(result.data, requestId, result.message));
        } catch (err) {
          const e = this.#failure(err, requestId, path, req);
          failure = e.code;
          writeJson(res, e.status, retryAfterOf(e), errorBody(e, requestId));
        }
      },
    );
    if (res.statusCode === 401) failures.failed(ip, failure ?? 'unauthorized', Date.now());
    this.#counted(res.statusCode);
    this.deps.answered({ route: matched ? route.fullPath : 'unmatched', method: req.method!, status: res.statusCode, seconds: (performance.now() - started) / 1000 });
  }

  /** A fast-path answer Koa's body rules apply to, written by Koa (its middleware and router not involved). */
  #writeWithKoa(req: IncomingMessage, res: ServerResponse, requestId: string, result: Reply | RawReply, headers: [string, string][]): void {
    const ctx = this.koa.createContext(req, res) as unknown as Context;
    ctx.state.requestId = requestId;
    void (this.koa as unknown as KoaResponder).handleRequest(ctx, (c) => {
      writeThroughKoa(c, result, headers);
      return Promise.resolve();
    });
  }

  /** The ApiError a failure answers (a 500 for what is neither an ApiError nor a known failure, logged). */
  #failure(err: unknown, requestId: string, path: string, req: IncomingMessage): ApiError {
    dropUnreadBodyLater(req);
    const apiErr = err instanceof ApiError ? err : this.deps.knownFailure(err);
    if (!apiErr) this.deps.log.error('unhandled error', { request_id: requestId, path, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    return apiErr ?? new ApiError('internal_error', 500, 'Internal server error');
  }

  #counted(status: number): void {
    this.metrics.requests++;
    const cls = `${Math.floor(status / 100)}xx`;
    this.metrics.by_status[cls] = (this.metrics.by_status[cls] ?? 0) + 1;
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
    ctx.state.ip = this.#clientIp(ctx.req);
    let failure: string | null = null;
    try {
      await next();
    } catch (err) {
      const e = this.#failure(err, requestId, ctx.path, ctx.req);
      failure = e.code;
      ctx.status = e.status;
      for (const [k, v] of retryAfterOf(e)) ctx.set(k, v);
      ctx.body = errorBody(e, requestId);
    }
    // A 401 a route threw, or one a plugin answered itself (a public route's bearer check): each counts.
    if (ctx.status === 401) this.#failuresOf(ctx)?.failed(ctx.state.ip as string, failure ?? 'unauthorized', Date.now());
    this.#counted(ctx.status);
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
      this.deps.authFailures.refuseBlocked(ctx.state.ip as string, Date.now());
      if (ctx.path === OPENAPI_PATH && ctx.method === 'GET') {
        ctx.type = 'application/json';
        ctx.body = (this.#openApi ??= JSON.stringify(openApiDocument(this.#table?.routes() ?? [], this.deps.version)));
        return;
      }
    } else if (ctx.path.startsWith('/p/')) {
      this.deps.publicAuthFailures.refuseBlocked(ctx.state.ip as string, Date.now());
    }
    await next();
  }

  /** Which failed-authentication limiter a 401 on this path counts in (none off the REST API and public routes). */
  #failuresOf(ctx: Context): AuthFailureLimiter | null {
    if (ctx.path.startsWith('/api/')) return this.deps.authFailures;
    return ctx.path.startsWith('/p/') ? this.deps.publicAuthFailures : null;
  }

  #clientIp(req: IncomingMessage): string {
    return clientIp(req.socket.remoteAddress, req.headers, this.deps.trustedProxies());
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

  /** The Koa path's side of a route: its exchange in, its answer written through the context. */
  async #dispatch(route: MountedRoute, ctx: Context): Promise<void> {
    const query: Record<string, unknown> = ctx.query;
    const params = { ...(ctx as unknown as { params?: Record<string, string> }).params };
    const result = await this.#answer(route, {
      req: ctx.req,
      method: ctx.method,
      path: ctx.path,
      url: ctx.originalUrl,
      query,
      params,
      ip: ctx.state.ip as string,
      secure: ctx.secure,
      requestId: ctx.state.requestId as string,
    });
    writeThroughKoa(ctx, result, this.#headersOf(route, result.headers));
  }

  /**
   * What every route runs, on either path: the route's gates, body limits, authentication, scope, validation, then the
   * handler. It answers the handler's reply; it writes nothing.
   */
  async #answer(route: MountedRoute, x: Exchange): Promise<Reply | RawReply> {
    const { def, mount } = route;
    const { req, ip } = x;
    const headers = req.headers;
    if (mount.kind === 'public') {
      if (!this.deps.publicRoutesOpen(mount.plugin)) throw new ApiError('unknown_action', 404, 'Unknown action');
    }
    if (def.rateLimitPerMinute) {
      const credential = def.rateLimitBy === 'credential' ? headerOf(headers, 'authorization') : undefined;
      // Hashed: the limiter's keys outlive the request and must not hold a bearer in memory.
      const subject = credential ? `credential ${createHash('sha256').update(credential).digest('base64url')}` : ip;
      const wait = this.#publicLimiter.take(`${def.method} ${route.fullPath} ${subject}`, def.rateLimitPerMinute, Date.now());
      if (wait > 0) throw new ApiError('rate_limit_exceeded', 429, `Rate limit exceeded. Please try again in ${wait} seconds.`, { retry_after: wait });
    }
    const limit = def.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // Everything that needs no body is checked before the body is read: a request that cannot pass costs the node
    // its headers only. The size comes first, as it did when the body was read first.
    refuseDeclaredOverLimit(req, limit);
    // A request without an API key may be authenticated another way a builtin plugin offers (a session cookie).
    let auth: AuthInfo | null =
      'scope' in def.access && headerOf(headers, 'x-api-key') === undefined
        ? (this.#table?.authenticate({ method: x.method as HttpMethod, path: x.path, headers, ip, secure: x.secure }) ?? null)
        : null;
    const signed = 'scope' in def.access && !auth ? this.deps.verifier.precheck(headersOf(headers), Date.now()) : null;
    // A request without a body (a GET, mostly) is not waited on: nothing would arrive.
    const rawBody = hasBody(headers) ? await this.deps.bodies.read(req, limit, ip) : EMPTY_BODY;
    if (signed) auth = this.deps.verifier.verifyBody(signed, { method: x.method, path: rawPath(x.url), rawBody }, Date.now());
    if (auth && 'scope' in def.access) {
      if (!grants(auth.permissions, def.access.scope)) {
        const needed = typeof def.access.scope === 'string' ? def.access.scope : def.access.scope.join(' or ');
        throw new ApiError('permission_denied', 403, `This API key lacks the required permission: ${needed}`);
      }
    }
    const body = def.body ? parseJsonBody(rawBody) : {};
    route.validateBody?.(body);
    const query: Record<string, unknown> = {};
    for (const k in x.query) {
      const v = x.query[k];
      query[k] = Array.isArray(v) ? v[v.length - 1] : v;
    }
    route.validateQuery?.(query);
    const routeReq: RouteRequest<unknown, Record<string, string | undefined>> = {
      method: x.method as HttpMethod,
      params: x.params,
      query: query as Record<string, string | undefined>,
      body,
      rawBody,
      headers,
      auth,
      ip,
      secure: x.secure,
      requestId: x.requestId,
    };
    if (auth?.confirmed === false && def.confirm && (def.confirm === true || def.confirm(routeReq))) {
      throw new ApiError('confirmation_required', 403, 'This action needs a fresh confirmation: enter the auth code again, then retry');
    }
    const result = await def.handler(routeReq);
    if (result instanceof RawReply) return result;
    const reply = result instanceof Reply ? result : new Reply(result);
    const mismatch = this.deps.checkResponses && route.checkResponse ? route.checkResponse(reply.data) : null;
    if (mismatch) throw new ApiError('response_schema_mismatch', 500, `${def.method} ${route.fullPath} answered outside its response schema: ${mismatch}`);
    return reply;
  }

  /** The headers a route's answer sets, in order: a plugin's without the kernel's own (plugin-content.ts). */
  #headersOf(route: MountedRoute, headers: Readonly<Record<string, string>>): [string, string][] {
    return route.mount.kind === 'api' ? Object.entries(headers) : pluginHeaders(headers);
  }
}

/** Koa's own request handling, given a context and what answers it: used to have Koa write a fast path's reply. */
interface KoaResponder {
  handleRequest(ctx: Context, answer: (ctx: Context) => Promise<void>): Promise<void>;
}

/** Statuses whose answers carry no body: Koa strips their content headers. */
const EMPTY_STATUSES = new Set([204, 205, 304]);

/** Whether a success is written as Koa writes a JSON body: a status with a body, and no content header of the route's. */
function plainJson(status: number, headers: [string, string][]): boolean {
  if (EMPTY_STATUSES.has(status)) return false;
  for (const [k] of headers) {
    const name = k.toLowerCase();
    if (name === 'content-type' || name === 'content-length' || name === 'transfer-encoding') return false;
  }
  return true;
}

/** A JSON answer written as Koa writes `ctx.body = object`: the headers given, then its type and length. */
function writeJson(res: ServerResponse, status: number, headers: [string, string][], body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  for (const [k, v] of headers) res.setHeader(k, v);
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * The Content-Type Koa gives the types plugins' doors answer (`ctx.type = ...`, which adds the charset its MIME table
 * names); a RawReply of another type is left to Koa to write.
 */
const KOA_TYPES: ReadonlyMap<string, string> = new Map([
  ['application/json', 'application/json; charset=utf-8'],
  ['text/event-stream', 'text/event-stream; charset=utf-8'],
]);

/**
 * A route's own reply written as Koa writes it (writeThroughKoa): the headers given, then its type, then its length
 * (none for a stream, which is piped and destroyed if the client leaves first). False, and nothing written, when
 * Koa's body rules would change something: a type it spells otherwise, an empty status, content headers of the
 * route's.
 */
function writeRaw(res: ServerResponse, reply: RawReply, headers: [string, string][]): boolean {
  const type = KOA_TYPES.get(reply.contentType);
  if (type === undefined || !plainJson(reply.status, headers)) return false;
  res.statusCode = reply.status;
  for (const [k, v] of headers) res.setHeader(k, v);
  res.setHeader('Content-Type', type);
  const body = reply.body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  } else {
    pipeStream(body, res);
  }
  return true;
}

/**
 * A stream piped to the answer as Koa pipes one: destroyed when the answer closes first (the client left), the answer
 * destroyed when the stream fails. Not `stream.pipeline`, which builds an AbortSignal per call and, on Node 20,
 * a DOMException with its stack when it ends: a fifth of a streamed call's own CPU.
 */
function pipeStream(body: Readable, res: ServerResponse): void {
  body.once('error', () => res.destroy());
  res.once('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  body.pipe(res);
}

const NO_HEADERS: [string, string][] = [];

/** The `Retry-After` header a refusal carries (a rate limit's), if any. */
function retryAfterOf(e: ApiError): [string, string][] {
  if (e.code === 'rate_limit_exceeded' && typeof e.context?.retry_after === 'number') return [['Retry-After', String(e.context.retry_after)]];
  return NO_HEADERS;
}

/**
 * The query as Koa 3 reads it (`koa/lib/search-params.js`: URLSearchParams, keys in order of first appearance, each an
 * own property even `__proto__`), keeping the last value of a repeated key, which is what #answer keeps.
 */
function queryOf(search: string): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    Object.defineProperty(query, key, { value, writable: true, enumerable: true, configurable: true });
  }
  return query;
}

/** Koa's `ctx.secure` without a proxy: whether the connection is TLS. */
const isSecure = (req: IncomingMessage): boolean => (req.socket as { encrypted?: boolean }).encrypted === true;

/** What the route pipeline needs of a request, whichever path (Koa or the fast one) carries it. */
interface Exchange {
  req: IncomingMessage;
  method: string;
  /** Normalised (path.ts): what the router matched. */
  path: string;
  /** As the client sent it: the signature covers this spelling. */
  url: string;
  query: Record<string, unknown>;
  params: Record<string, string>;
  ip: string;
  secure: boolean;
  requestId: string;
}

const EMPTY_BODY = Buffer.alloc(0);

/** Whether the request announces a body (a length above zero, or chunks). */
function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A route's answer set on a Koa context: Koa writes it (its content type, length and empty-status rules). */
function writeThroughKoa(ctx: Context, result: Reply | RawReply, headers: [string, string][]): void {
  ctx.status = result.status;
  for (const [k, v] of headers) ctx.set(k, v);
  if (result instanceof RawReply) {
    ctx.type = result.contentType;
    ctx.body = result.body;
  } else {
    ctx.body = successBody(result.data, ctx.state.requestId as string, result.message);
  }
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function headersOf(headers: IncomingHttpHeaders): RequestHeaders {
  return { header: (name) => headerOf(headers, name) };
}

/** The path exactly as the client sent it (still percent-encoded): that is what the client signed. */
function rawPath(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
