/** HTTP routes: what a plugin mounts (`ctx.routes`), what its handlers receive, and who may call them. */

/** OPTIONS: a public route answering browsers' CORS preflight itself (`/api/` preflights are the kernel's). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';

/** A JSON schema (ajv, draft 2020-12 subset). Kept loose on purpose: ajv checks it when the route mounts. */
export type JsonSchema = Record<string, unknown>;

export interface AuthInfo {
  keyId: string;
  permissions: readonly string[];
  /**
   * Set by interactive credentials only (a browser session): whether the person behind it proved the node's secret
   * again a moment ago. Routes marked `confirm` refuse an interactive credential that is not confirmed (403
   * `confirmation_required`). API keys leave it out: whoever holds one was given that power on purpose.
   */
  confirmed?: boolean;
}

export interface RouteRequest<B = unknown, Q = Record<string, string | undefined>> {
  method: HttpMethod;
  /** Path parameters, URL-decoded. */
  params: Record<string, string>;
  /** Query parameters after schema validation and coercion (the last value of a repeated key). */
  query: Q;
  /** The JSON body after schema validation (`{}` for an empty body). */
  body: B;
  /** The exact transmitted bytes of the body. */
  rawBody: Buffer;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The authenticated API key, or null on public and peer routes. */
  auth: AuthInfo | null;
  /** The client address, honouring forwarded headers only from trusted proxies. */
  ip: string;
  /** The request came over the node's HTTPS listener. */
  secure?: boolean;
  requestId: string;
}


export type RouteHandler<B = unknown, Q = Record<string, string | undefined>> = (
  req: RouteRequest<B, Q>,
) => unknown | Promise<unknown>;

/**
 * Which credential a route takes: a scope string (or any of several) for HMAC-signed REST routes, `public`
 * for unauthenticated plugin routes under `/p/`, `none` for health-style routes the kernel owns.
 */
export type RouteAccess = { scope: string | readonly string[] } | { public: true };

export interface RouteDefinition<B = unknown, Q = Record<string, string | undefined>> {
  method: HttpMethod;
  /** Koa-router style path, e.g. `/api/v1/keys/:key_id`. For plugin namespaces: the action, e.g. `status`. */
  path: string;
  access: RouteAccess;
  /** JSON schema of the body; omitted means the body is ignored. */
  body?: JsonSchema;
  /** JSON schema of the query string (values arrive as strings; ajv coerces types). */
  query?: JsonSchema;
  /**
   * JSON schema of the success envelope's `data` (Fastify's habit): it documents the route in the OpenAPI document
   * (`GET /api/v1/openapi.json`), and a node in test mode checks every answer against it. A route answering a
   * `RawReply` names its content type instead (`produces`).
   */
  response?: JsonSchema;
  /**
   * The content type of a route that answers a `RawReply` (a CSV export, an HTML page, a stream of events), or the
   * types it chooses from (an export's `format`); an empty list for an empty body (a 204).
   */
  produces?: string | readonly string[];
  /**
   * Spec error code per body/query property for schema failures other than a missing required field
   * (which is always `missing_field`). Falls back to `fallbackCode`, then `validation_error`.
   */
  errorCodes?: Record<string, string>;
  fallbackCode?: string;
  /** Largest accepted body; larger requests get 413 before the handler runs. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Requests per minute per client address, enforced by the host before the handler (public routes). */
  rateLimitPerMinute?: number;
  /**
   * What `rateLimitPerMinute` counts by: the client address (default), or the request's credential, its
   * `Authorization` header, when it carries one (requests without it still count by address). Many customers can
   * share one address (everyone over Tor arrives from the local Tor daemon); a bearer each is their own budget.
   */
  rateLimitBy?: 'address' | 'credential';
  /**
   * An action that shows secrets or widens power (new keys, plugins, security settings, restores): an interactive
   * session must have confirmed it a moment ago (see `AuthInfo.confirmed`), whatever spelling of the path reached the
   * route. A function decides from the validated request (a settings change that touches a security setting).
   */
  confirm?: boolean | ((req: RouteRequest<B, Q>) => boolean);
  handler: RouteHandler<B, Q>;
}

/** A request as an authenticator sees it, before its body is read. */
export interface AuthCandidate {
  method: HttpMethod;
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  ip: string;
  /** The request came over the node's HTTPS listener. */
  secure: boolean;
}

/**
 * Another way than HMAC signing to authenticate a REST request that carries no `X-API-Key` (a browser session
 * cookie, say): the key id and permissions it grants, or null when it does not apply (the request then needs a
 * signature as usual). It may throw an ApiError (401, 403) to refuse the request outright.
 */
export type RequestAuthenticator = (req: AuthCandidate) => AuthInfo | null;

export interface RoutesApi {
  /**
   * Adds an authenticator for scoped routes (builtin plugins only). Whatever it grants goes through the same scope
   * check, validation and handlers as a signed request.
   */
  authenticateWith(authenticator: RequestAuthenticator): void;
  /** A core REST route (`/api/v1/...`); builtin plugins only. */
  add<B = unknown, Q = Record<string, string | undefined>>(route: RouteDefinition<B, Q>): void;
  /** A route in the plugin's own namespace: `/api/v1/plugins/<name>/<path>` (HMAC with the given scope). */
  plugin<B = unknown, Q = Record<string, string | undefined>>(route: RouteDefinition<B, Q>): void;
  /** A public route: `/p/<name>/<path>`, gated by NODE_PUBLIC_PLUGIN_ROUTES and the per-plugin switch. */
  public<B = unknown, Q = Record<string, string | undefined>>(
    route: Omit<RouteDefinition<B, Q>, 'access'>,
  ): void;
}
