/**
 * What a third-party plugin imports, and all it imports: the package entry `wallet-node/sdk/sandbox` (types in
 * dist/sdk/sandbox.d.ts; semver rules in docs/plugins.md, "The SDK package"). The plugin runs in an isolate of its own
 * (isolated-vm): no file system, network, process, timers or SQL, a memory limit, and a CPU-time limit on every call.
 * Everything it gets comes through the context below, and only JSON crosses between the plugin and the node.
 * Tutorial and rules: docs/plugins.md.
 *
 *   import { ApiError, definePlugin } from 'wallet-node/sdk/sandbox';
 *
 *   export default definePlugin({
 *     setup(ctx) {
 *       ctx.routes.plugin({ method: 'GET', path: 'hello', scope: 'hello:read', handler: () => ({ hello: 'world' }) });
 *     },
 *   });
 *
 * At run time the node serves this module's values (`definePlugin`, `ApiError`, `Reply`, `RawReply`, `created`)
 * itself inside the isolate: a plugin may import them and types, and nothing else.
 */
import type { PaybackRail } from './payback-rail.js';

export type { PaybackRail, RailCatalogEntry, RailField, RailFieldError, RailFields, SettlementPrecision } from './payback-rail.js';
import { ApiError, RawReply, Reply, created } from './replies.js';

export { ApiError, RawReply, Reply, created };

/** What crosses the boundary: JSON values only (no bigint, no functions, no class instances). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type SandboxMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** A request as the plugin's handler receives it, after the node's own checks (auth, scope, rate, size). */
export interface SandboxRequest {
  method: SandboxMethod;
  /** The action path as registered, e.g. `orders/:id`. */
  path: string;
  /** Path parameters, URL-decoded. */
  params: Record<string, string>;
  /** Query parameters (the last value of a repeated key). */
  query: Record<string, string>;
  /** The JSON body (`{}` when there is none; GET bodies are ignored). */
  body: Json;
  /** `content-type`, `accept`, `user-agent`, `origin`; on public routes also `authorization`. */
  headers: Record<string, string>;
  /** The API key on `/api/v1/plugins/<name>/...` routes; null on public routes. */
  auth: { key_id: string; permissions: string[] } | null;
  /** The client address (forwarded headers only from the node's trusted proxies). */
  ip: string;
  request_id: string;
}

/**
 * What a handler returns: JSON data (a 200 success envelope on REST routes), a `Reply` (status, message, headers),
 * a `RawReply` with a string body (public routes answering as they like), or it throws an `ApiError` (4xx).
 */
export type SandboxHandler = (req: SandboxRequest) => unknown | Promise<unknown>;

export interface SandboxRoute {
  method: SandboxMethod;
  /** The action under `/api/v1/plugins/<name>/`: segments of `a-z 0-9 - _`, parameters as `:name`. */
  path: string;
  /** A scope the plugin declares in `plugin.json` (`<name>:read`) or a core scope (`wallet:read`, `admin`). */
  scope: string | string[];
  handler: SandboxHandler;
}

/** A public route `/p/<name>/<path>`; `plugin.json` declares its method, rate and body size limit. */
export interface SandboxPublicRoute {
  method: SandboxMethod;
  path: string;
  handler: SandboxHandler;
}

/**
 * The plugin's own key-value store, under a quota (bytes and keys, `plugin.json` limits and the operator's).
 * Keys are 1-256 characters; values are JSON of at most 64 KiB. Nobody else reads it; uninstalling deletes it.
 */
export interface SandboxStore {
  get<T extends Json = Json>(key: string): Promise<T | null>;
  /** Fails with `quota_exceeded` when the write would pass the quota. */
  set(key: string, value: Json): Promise<void>;
  /** Whether the key existed. */
  delete(key: string): Promise<boolean>;
  /** Keys in order, those starting with `prefix`, after `after`, at most `limit` (default and cap 1000). */
  list(prefix?: string, options?: { after?: string; limit?: number }): Promise<string[]>;
  usage(): Promise<{ bytes: number; keys: number; quota_bytes: number; quota_keys: number }>;
}

/** The settings the plugin declares in `plugin.json`; the operator changes them (POST /api/v1/plugins/<name>/settings). */
export interface SandboxSettings {
  get<T extends Json = Json>(key: string): Promise<T>;
  all(): Promise<Record<string, Json>>;
}

/**
 * Public events. The node publishes `payment.received` ({txid, amount, currency, description, counterparty_hash,
 * completed_at}); plugins publish their own, which others see as `<plugin>.<event>`.
 */
export interface SandboxEvents {
  publish(event: string, payload: Json): Promise<void>;
  /** During setup only. A handler failure counts like a route failure. */
  subscribe(event: string, handler: (payload: Json) => void | Promise<void>): void;
}

export interface SandboxLog {
  debug(message: string, fields?: Record<string, Json>): void;
  info(message: string, fields?: Record<string, Json>): void;
  warn(message: string, fields?: Record<string, Json>): void;
  error(message: string, fields?: Record<string, Json>): void;
}

// ---------------------------------------------------------------------------------------------------------
// The gateway: core services a plugin lists in plugin.json `permissions`, shown to the operator at enable.

export interface GatewayContact {
  name: string | null;
  pubkey_hash: string | null;
  status: 'pending' | 'accepted' | 'blocked';
  /** Currencies with an accepted credit line. */
  currencies: string[];
}

export interface GatewayTransaction {
  txid: string;
  /** sent, received or relay. */
  direction: string;
  status: string;
  /** Trimmed decimal string. */
  amount: string;
  currency: string;
  description: string | null;
  counterparty_hash: string;
  created_at: string;
  completed_at: string | null;
}

export interface GatewayOps {
  /** A contact by name, address or key hash; null when unknown or ambiguous. Permission `contacts.lookup`. */
  'contacts.lookup': { args: { contact: string }; result: GatewayContact | null };
  /**
   * Asks an accepted contact to pay (a payment request, as POST /api/v1/requests). Permission
   * `payment_requests.create`.
   */
  'payment_requests.create': {
    args: { contact: string; amount: string; currency: string; description?: string };
    result: { request_id: string; contact_hash: string; amount: string; currency: string; status: string };
  };
  /** A transaction by txid, or the newest received one whose description is `memo`. Permission `transactions.lookup`. */
  'transactions.lookup': { args: { txid: string } | { memo: string }; result: GatewayTransaction | null };
}

export interface SandboxGateway {
  call<K extends keyof GatewayOps>(op: K, args: GatewayOps[K]['args']): Promise<GatewayOps[K]['result']>;
  call(op: string, args: Json): Promise<Json>;
}

// ---------------------------------------------------------------------------------------------------------
// Context and definition

/** Extension points of builtin plugins that a sandboxed plugin may fill (listed in plugin.json `contributes`). */
export interface ContributionPoints {
  /** A payback rail (sdk/payback-rail.ts); its functions run synchronously, must not await, and get 50 ms. */
  payback_rail: PaybackRail;
}

export interface SandboxPluginContext {
  readonly name: string;
  readonly version: string;
  readonly routes: {
    plugin(route: SandboxRoute): void;
    public(route: SandboxPublicRoute): void;
  };
  readonly store: SandboxStore;
  readonly settings: SandboxSettings;
  readonly events: SandboxEvents;
  readonly log: SandboxLog;
  /** The node's clock at the start of the current call (ms since the epoch). */
  readonly clock: { now(): number };
  readonly gateway: SandboxGateway;
  /** Fills an extension point; during setup only, with an id listed under `contributes.<point>` in plugin.json. */
  contribute<P extends keyof ContributionPoints>(point: P, contract: ContributionPoints[P]): void;
  contribute(point: string, contract: { id: string }): void;
}

export interface SandboxPluginDefinition {
  /** Runs at every start of the plugin's isolate (again after the node recreated it): register, do not act. */
  setup(ctx: SandboxPluginContext): void | Promise<void>;
}

export function definePlugin(definition: SandboxPluginDefinition): SandboxPluginDefinition {
  return definition;
}

// ---------------------------------------------------------------------------------------------------------
// plugin.json of a third-party plugin

export interface SandboxPublicRouteManifest {
  /** The action, as the route registers it. */
  path: string;
  method: SandboxMethod;
  /** Requests per minute per client address, enforced by the node before the plugin runs. */
  rate_per_minute: number;
  /** Larger bodies get 413 before the plugin runs. */
  max_body_bytes: number;
}

export interface SandboxSettingManifest {
  key: string;
  type: 'boolean' | 'integer' | 'number' | 'string' | 'enum';
  default: Json;
  description: string;
  min?: number;
  max?: number;
  options?: string[];
}

export interface SandboxManifest {
  name: string;
  version: string;
  description?: string;
  author?: string;
  license?: string;
  homepage?: string;
  /** The built JavaScript module, a file beside plugin.json (default `index.js`). */
  entry?: string;
  /** Scopes the plugin's REST routes may require; each `<name>:<verb>`. */
  scopes?: string[];
  /** Gateway operations it calls (`contacts.lookup`, ...). */
  permissions?: string[];
  public_routes?: SandboxPublicRouteManifest[];
  /** Extension point → contribution ids (`{"payback_rail": ["aud_bsb"]}`). */
  contributes?: Record<string, string[]>;
  settings?: SandboxSettingManifest[];
  /** At most the node's limits: a plugin may ask for less. */
  limits?: { memory_mb?: number; cpu_ms?: number; store_kb?: number };
}
