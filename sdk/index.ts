/**
 * The plugin contract. Builtin plugins (trusted, in-process) and third-party plugins (isolated-vm) implement the
 * same shape: a manifest (`plugin.json`) and an entry that default-exports `definePlugin({ setup(ctx) { ... } })`.
 * Builtin plugins get the full context; sandboxed ones a narrowed one (`SandboxPluginContext`, sdk/sandbox.ts):
 * their own route namespaces, a key-value store, public events, their settings, a log, the gateway operations they
 * list and contributions to extension points (docs/plugins.md).
 */
export type { PaybackRail, RailCatalogEntry, RailField, RailFieldError, RailFields } from './payback-rail.js';
export { defineRail } from './payback-rail.js';
export * from './money.js';
export * from './paging.js';
export * from './read-cache.js';
export * from './sliding-window.js';
export * from './statements.js';
export * from './storage.js';

// ---------------------------------------------------------------------------------------------------------
// Manifest

export interface PluginManifest {
  /** `^[a-z0-9][a-z0-9-_]{0,63}$` */
  name: string;
  version: string;
  description?: string;
  author?: string;
  license?: string;
  homepage?: string;
  /** Services this plugin needs; the host starts providers first and refuses to start it without them. */
  requires?: string[];
  /** Services this plugin provides through `ctx.services.provide`. */
  provides?: string[];
  /** Scopes it registers beyond the core ones (e.g. `myplugin:read`). */
  scopes?: string[];
  /** Actions it serves publicly under `/p/<name>/<action>`. */
  public_routes?: string[];
  /** Rail ids it adds to the payback registry. */
  payback_types?: string[];
  /** Builtin plugins the node cannot run without (system, api-keys, plugins admin): never disabled. */
  essential?: boolean;
  /** Whether a builtin plugin starts enabled on a fresh node. Third-party plugins are always disabled first. */
  enabled_by_default?: boolean;
  has_changelog?: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Errors

export { ApiError, RawReply, Reply, created } from './replies.js';

// ---------------------------------------------------------------------------------------------------------
// Routes

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

// ---------------------------------------------------------------------------------------------------------
// Settings

export type SettingType = 'boolean' | 'integer' | 'number' | 'decimal' | 'string' | 'enum' | 'list';

export interface SettingDefinition {
  /** camelCase name as in Document 2 (`defaultFee`); the REST name is its snake_case form. */
  key: string;
  type: SettingType;
  default: unknown;
  category: string;
  description: string;
  min?: number;
  max?: number;
  /** Allowed values of an `enum` (matched case-insensitively, stored as listed). */
  options?: readonly string[];
  /** Extra rule after type and range checks; returns an error message or null. Receives the coerced value. */
  validate?: (value: unknown) => string | null;
  /** Canonical form stored after validation (upper-casing codes, trimming). */
  normalize?: (value: unknown) => unknown;
  /**
   * A rule that spans settings (a default that must be in a list). Checked on every update, for every
   * setting that has one, against the values the update would produce: `valueOf` answers with the pending
   * changes applied. Returns an error message or null; any message fails the whole update.
   */
  crossCheck?: (value: unknown, valueOf: (key: string) => unknown) => string | null;
  /** Environment variable that, when set, overrides the stored value (Document 2 names a few). */
  env?: string;
  /**
   * The setting decides who may reach or act on the node (proxies, CORS, rate limits, peer address trust): a browser
   * session changes it only after a fresh confirmation (`RouteDefinition.confirm`).
   */
  security?: boolean;
}

export type SettingsChangeListener = (key: string, value: unknown, previous: unknown) => void;

export interface SettingsApi {
  declare(definitions: readonly SettingDefinition[]): void;
  get<T = unknown>(key: string): T;
  onChange(key: string | '*', listener: SettingsChangeListener): () => void;
}

// ---------------------------------------------------------------------------------------------------------
// Events, jobs, services, log, clock

export type EventHandler<P = unknown> = (payload: P) => void | Promise<void>;

/** Events the kernel itself publishes on the bus. */
export const KERNEL_EVENTS = {
  /** The dead letter queue changed (an item parked, retried, resolved or abandoned); payload `{ pending }`. */
  dlqChanged: 'dlq.changed',
  /**
   * The disk takes writes again after a fault (full, read-only, failing); payload `{}`. Work a plugin held because a
   * write was refused is resumed on it.
   */
  storageRecovered: 'storage.recovered',
} as const;

export interface EventsApi {
  publish(name: string, payload?: unknown): void;
  subscribe<P = unknown>(name: string, handler: EventHandler<P>): () => void;
}

export interface JobDefinition {
  /** Unique within the plugin; the host prefixes it with the plugin name. */
  name: string;
  /**
   * The background processor this job belongs to, reported in `system/status.processors`
   * (`p2p`, `transaction`, `cleanup`, or a plugin's own).
   */
  processor?: string;
  /** Re-run every so many milliseconds (retries, sweeps). */
  everyMs?: number;
  /** Run daily at this UTC time. */
  dailyAt?: { hour: number; minute: number };
  /**
   * A schedule of the job's own: the next run time (ms since the epoch) after `now`, asked again after every timed
   * run (a daily time plus a fresh random delay, for example); null leaves the job unscheduled until kicked.
   */
  nextRunAt?: (now: number) => number | null;
  /** Runs the work. A job never runs twice at once; a kick while running queues one more run. */
  run(): Promise<void> | void;
}

export interface JobsApi {
  register(job: JobDefinition): void;
  /** Runs a job now (event-driven work: called right after the commit that created the work). */
  kick(name: string): void;
  /** Asks the job's `nextRunAt` again now and re-arms it: what its schedule depends on (a setting) changed. */
  reschedule(name: string): void;
  /** When the job's next timed run is armed (ms since the epoch, `ctx.clock`'s time), or null when none is. */
  nextRun(name: string): number | null;
}

export interface ServicesApi {
  provide<T extends object>(name: string, service: T): void;
  use<T extends object>(name: string): T;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Prometheus families a plugin registers (`ctx.metrics`); the node serves them at its scrape endpoint (`GET /metrics`,
 * docs/operations.md). Names get the node's prefix (`wallet_node_`); a family keeps its values across a plugin restart.
 * Label values are whatever the plugin passes, so keep them few: past `maxSeries` distinct label sets (default 100)
 * a new set is recorded under the value `_other` for every label.
 */
export interface MetricFamily {
  /** snake_case, without the prefix; counters end in `_total` by Prometheus convention. */
  name: string;
  help: string;
  labels?: readonly string[];
  maxSeries?: number;
}

export type MetricLabels = Record<string, string>;

export interface CounterMetric {
  inc(labels?: MetricLabels, value?: number): void;
}

export interface HistogramMetric {
  observe(labels: MetricLabels | undefined, value: number): void;
}

/** One series of a gauge read at scrape time. */
export interface GaugeSample {
  labels?: MetricLabels;
  value: number;
}

export interface MetricsApi {
  counter(family: MetricFamily): CounterMetric;
  histogram(family: MetricFamily & { buckets: readonly number[] }): HistogramMetric;
  /** A gauge whose series `read` returns at each scrape (keep it cheap); it stops being served when the plugin stops. */
  gauge(family: MetricFamily, read: () => Iterable<GaugeSample>): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

// ---------------------------------------------------------------------------------------------------------
// Storage

/** A builtin plugin's database access: its own migrations, statements and the one transaction helper. */
export interface PluginDb {
  /** Applies the plugin's migrations in order, once each, recorded under the plugin's name. */
  migrate(migrations: readonly Migration[]): void;
  /** The better-sqlite3 handle. A plugin only reads and writes the tables its own migrations created. */
  readonly handle: import('better-sqlite3').Database;
  /** Runs `fn` in one IMMEDIATE transaction; work queued with `afterCommit` runs only if it commits. */
  tx<T>(fn: () => T): T;
  afterCommit(fn: () => void): void;
}

export interface Migration {
  version: number;
  up: string | ((db: import('better-sqlite3').Database) => void);
}

/** The key-value store a sandboxed plugin gets instead of SQL (sdk/sandbox.ts). */
export type { SandboxStore as KeyValueStore } from './sandbox.js';

// ---------------------------------------------------------------------------------------------------------
// Identity (builtin plugins only)

export interface NodeAddresses {
  http: string | null;
  https: string | null;
  tor: string | null;
}

export interface IdentityApi {
  readonly pubkeyHash: string;
  /** Raw Ed25519 public key. */
  readonly publicKey: Buffer;
  /** Raw X25519 public key others seal to. */
  readonly sealingPublicKey: Buffer;
  readonly authCode: string;
  sign(data: Uint8Array): Buffer;
  verify(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean;
  /** A key for encrypting this plugin's data at rest, derived from the node seed and a label. */
  storageKey(label: string): Buffer;
  /**
   * A plugin assertion: the node signs `bytes` for this plugin under `domain` (1-128 printable ASCII characters). The
   * signature covers the plugin's name and the domain too (docs/protocol.md, "Plugin assertions"), so it can stand
   * for nothing else the node signs.
   */
  assert(domain: string, bytes: Uint8Array): Buffer;
  /** Whether `signature` is an assertion of the node with Ed25519 key `publicKey`, made by `plugin` under `domain`. */
  verifyAssertion(publicKey: Uint8Array, plugin: string, domain: string, bytes: Uint8Array, signature: Uint8Array): boolean;
}

/** The node's identity before a plugin is named: the host adds the plugin's assertions to it. */
export type NodeIdentityApi = Omit<IdentityApi, 'assert' | 'verifyAssertion'>;

// ---------------------------------------------------------------------------------------------------------
// Node-to-node messages (builtin plugins only)

/** A peer as the message layer knows it: its key hash (when known) and where it listens. */
export interface PeerTarget {
  /** Hex SHA-256 of the peer's Ed25519 key; unknown before the first hello with a new address. */
  pubkeyHash?: string | null;
  /** Raw X25519 key to seal to; fetched with a hello when absent. */
  sealingKey?: Buffer | null;
  addresses: Partial<NodeAddresses>;
}

/** The verified sender of an inbound message. */
export interface PeerSender {
  pubkeyHash: string;
  publicKey: Buffer;
  sealingKey: Buffer;
  addresses: NodeAddresses;
}

/** What a plugin sends: a `type` the receiving plugin registered, plus its own fields. */
export type PeerPayload = { type: string } & Record<string, unknown>;

export interface InboundPeerMessage {
  type: string;
  payload: PeerPayload;
  sender: PeerSender;
  /** The sender's stable id for this message; the same across retries. */
  messageId: string;
  receivedAt: number;
}

/**
 * A handler's answer. Throw `PeerRefusal` to refuse (the sender sees ok:false with the code and does not
 * retry); return data for ok:true.
 */
export type PeerHandler = (message: InboundPeerMessage) => Record<string, unknown> | Promise<Record<string, unknown>>;

export class PeerRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'PeerRefusal';
  }
}

export interface PeerReply {
  ok: boolean;
  data: Record<string, unknown>;
  error: { code: string; message: string } | null;
  /** The replying node, verified from its signed reply. */
  sender: PeerSender;
}

/** A message queued in the outbox: delivered after commit, retried with backoff, then dead-lettered. */
export interface QueuedPeerMessage {
  id: string;
  target: PeerTarget;
  payload: PeerPayload;
  attempts: number;
}

export interface OutboxHooks {
  /** The peer accepted the message (ok:true). Runs once. */
  delivered?(message: QueuedPeerMessage, reply: PeerReply): void | Promise<void>;
  /** The peer answered ok:false: a final refusal, not retried. */
  refused?(message: QueuedPeerMessage, reply: PeerReply): void | Promise<void>;
  /** Every attempt failed: the message went to the dead letter queue. */
  dead?(message: QueuedPeerMessage, reason: string): void | Promise<void>;
  /** Whether an operator may retry it from the dead letter queue, and how to refresh it first. */
  retryable?: boolean;
  refresh?(payload: PeerPayload): PeerPayload;
  /** The dead letter queue's `message type` column (transaction, contact, p2p, rp2p, ...). */
  label?: string;
  /**
   * How an operator retry runs, for the messages a plugin delivers itself and parks with `ctx.peer.deadLetter`:
   * resolve with the outcome once the peer answered (final either way); throw `PeerDeliveryError` when it could not
   * be reached (the item stays pending with that reason). When set, it replaces the outbox resend and the
   * delivered/refused hooks.
   */
  retry?(message: QueuedPeerMessage): Promise<DeadLetterOutcome>;
}

/** What the owner's retry of a dead letter came to: delivered, or refused (by the peer, or by the owner for it). */
export type DeadLetterOutcome =
  | { ok: true; /** The message as finally sent (re-signed), kept with the item. */ payload?: PeerPayload }
  | { ok: false; /** The refusal code; the item's reason becomes `refused: <code>`. */ refusal: string; payload?: PeerPayload };

/** A message a plugin delivered itself (`request`) whose every attempt failed: parked like an outbox message. */
export interface DeadLetter {
  /** The message's stable id, the same across its attempts (the owner's own id): unique in the queue. */
  messageId: string;
  /** Its peer message type: the hooks registered with `outcomes(type)` give its label and run its retry. */
  type: string;
  target: PeerTarget;
  payload: PeerPayload;
  /** Attempts made so far (the item's retry count). */
  attempts: number;
  reason: string;
}

/** Dead letters of messages a plugin delivers itself (part of `ctx.peer`). */
export interface PeerDeadLetterApi {
  /**
   * Parks a message whose delivery failed for good, inside the caller's transaction (`ctx.db.tx`). Parking an id that
   * is already pending or retrying updates its attempts, reason and payload; a finished item stays finished.
   */
  deadLetter(letter: DeadLetter): void;
  /**
   * The message reached its peer another way (its owner resent it): resolves its pending item with the outcome, in
   * the caller's transaction. False when there is no pending item of that type and id.
   */
  resolveDeadLetter(type: string, messageId: string, outcome: DeadLetterOutcome): boolean;
}

export interface PeerHello {
  pubkeyHash: string;
  publicKey: Buffer;
  sealingKey: Buffer;
  addresses: NodeAddresses;
  version: string;
}

export interface PeerApi extends PeerDeadLetterApi {
  /** Registers the handler of a message type; one plugin owns each type. */
  handle(type: string, handler: PeerHandler): void;
  /** Refuses messages before any handler runs (a blocked peer); return a refusal or null. */
  filter(fn: (sender: PeerSender, type: string) => PeerRefusal | null): void;
  /** Sends now and waits for the signed reply; throws `PeerDeliveryError` when the peer cannot be reached. */
  request(target: PeerTarget, payload: PeerPayload): Promise<PeerReply>;
  /** Queues a message inside the caller's transaction (`ctx.db.tx`); it is sent right after commit. */
  enqueue(target: PeerTarget, payload: PeerPayload, options?: { messageId?: string }): string;
  /** Hooks for the outcome of queued messages of a type. */
  outcomes(type: string, hooks: OutboxHooks): void;
  /** Fetches and verifies the keys a node publishes at an address. */
  hello(address: string): Promise<PeerHello>;
  /**
   * The address a message to these addresses goes to under the node's transport settings (`defaultTransportMode`,
   * then tor > https > http); a fallback is tried only when that one fails. Null when none is usable.
   */
  firstAddress(addresses: Partial<NodeAddresses>): string | null;
  /**
   * An HTTP exchange with a route a plugin serves on a peer node (`/p/<plugin>/...`), for a protocol of the plugin's
   * own toward a contact (a client library's session, say), trusted as peer messages are: at an https address the
   * node must show the certificate pinned for that address (pinned on first use, like the peer transport's), at an
   * http address it goes as is. Connections are kept per address. `address` is an http or https peer address (not an onion: use
   * `ctx.kernel.outbound` through Tor). The answer's body streams; rejects with `OutboundError`.
   */
  fetch(address: string, path: string, init?: PeerFetchInit): Promise<Response>;
}

export interface PeerFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Ends the exchange (the request or the body being read) as the Fetch API's signal does. */
  signal?: AbortSignal;
}

export class PeerDeliveryError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** False when trying again cannot help (the address answers for another node). */
    readonly transient = true,
  ) {
    super(message);
    this.name = 'PeerDeliveryError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Context

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

export interface PluginContext {
  readonly name: string;
  readonly manifest: PluginManifest;
  readonly db: PluginDb;
  readonly routes: RoutesApi;
  readonly events: EventsApi;
  readonly jobs: JobsApi;
  readonly settings: SettingsApi;
  readonly services: ServicesApi;
  readonly identity: IdentityApi;
  readonly peer: PeerApi;
  readonly log: Logger;
  readonly metrics: MetricsApi;
  readonly clock: Clock;
  /** Mechanisms of the kernel that only builtin plugins reach (key store, plugin host, lifecycle). */
  readonly kernel: KernelApi;
  /** What this plugin offers third-party (sandboxed) plugins: gateway operations, public events, extension points. */
  readonly sandbox: SandboxBridgeApi;
  /**
   * Called when the plugin stops; release timers and handles here. `restart`: an in-process restart reloads the
   * plugins; `shutdown`: the node stops (the listener and the background jobs have stopped, the database is open).
   */
  onStop(fn: (reason: StopReason) => void | Promise<void>): void;
  /**
   * Lines for the operator in the startup banner of wallet-node, printed as given (a call replaces the plugin's
   * earlier lines; an empty list removes them). The daemon prints the banner once, after every plugin's setup.
   */
  banner(lines: readonly string[]): void;
}

/** What a sandboxed plugin gets (the isolated-vm host implements it): sdk/sandbox.ts, docs/plugins.md. */
export type { SandboxPluginContext } from './sandbox.js';

/** The sandboxed plugin a gateway operation serves. */
export interface SandboxCaller {
  plugin: string;
}

/**
 * A contract a sandboxed plugin put into an extension point (`ctx.contribute`): its JSON data properties, and
 * functions that run in the plugin's isolate, synchronously, with JSON in and out. A call that fails (throws, loops,
 * runs out of memory, answers something else than JSON) throws a `SandboxCallError`; the plugin's own exceptions
 * too. After repeated failures every call throws at once.
 */
export interface SandboxContribution {
  plugin: string;
  point: string;
  id: string;
  contract: Record<string, unknown>;
}

export class SandboxCallError extends Error {
  constructor(
    readonly plugin: string,
    /** threw, cpu_limit, wall_limit, memory_limit, output_limit, bad_output, unavailable */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxCallError';
  }
}

/** What a builtin plugin opens for sandboxed contributions; `accept` throws to refuse one. */
export interface ExtensionSlot {
  accept(contribution: SandboxContribution): void;
  /** Undoes an accepted contribution whose plugin then failed to start. */
  withdraw?(contribution: SandboxContribution): void;
}

/**
 * How builtin plugins serve third-party (sandboxed) plugins. The kernel carries the calls; the builtin plugin
 * decides what it exposes, so what a third party can reach reads in one place per feature.
 */
export interface SandboxBridgeApi {
  /**
   * Serves gateway operation `op` to sandboxed plugins that list it in their manifest's `permissions`. Arguments
   * and result are JSON; throw `ApiError` (4xx) to refuse. One builtin plugin serves an operation.
   */
  gateway(op: string, handler: (args: unknown, caller: SandboxCaller) => unknown | Promise<unknown>): void;
  /** Publishes a public event to the sandboxed plugins subscribed to it: its payload must hold nothing secret. */
  publish(event: string, payload: Record<string, unknown>): void;
  /** Opens an extension point sandboxed plugins fill with `ctx.contribute(point, contract)`. */
  extensionPoint(point: string, slot: ExtensionSlot): void;
}

export type StopReason = 'restart' | 'shutdown';

export interface PluginDefinition {
  setup(ctx: PluginContext): void | Promise<void>;
  /**
   * Boot recovery (builtin plugins only): runs at every start, before the identity and the database are opened,
   * and may fill an empty data directory with a node state it recovered (`BootRecoveryContext.install`). Throwing
   * stops the start with the error's message; nothing is installed then.
   */
  recover?(boot: BootRecoveryContext): void | Promise<void>;
}

/** A plugin the node is started with, in its own process (the builtin ones): its manifest and its definition. */
export interface BuiltinPlugin {
  manifest: PluginManifest;
  definition: PluginDefinition;
}

export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}

// ---------------------------------------------------------------------------------------------------------
// Kernel mechanisms exposed to builtin plugins

export interface ApiKeyRecord {
  key_id: string;
  name: string;
  permissions: string[];
  rate_limit_per_minute: number;
  enabled: boolean;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export interface NewApiKey {
  name: string;
  permissions: string[];
  rate_limit_per_minute?: number;
  expires_at?: string | null;
}

export interface ApiKeysMechanism {
  list(): ApiKeyRecord[];
  get(keyId: string): ApiKeyRecord | null;
  /** Returns the record and the secret, which is never retrievable again. */
  create(input: NewApiKey): { record: ApiKeyRecord; secret: string };
  setEnabled(keyId: string, enabled: boolean): ApiKeyRecord | null;
  remove(keyId: string): boolean;
  /** Every scope a key may be given (core and plugin-registered). */
  knownScopes(): string[];
}

export interface PluginStatusRow {
  name: string;
  version: string;
  enabled: boolean;
  /** active, disabled, failed, restart_pending (enabled flag changed since the last start). */
  status: string;
  license: string | null;
  author: string | null;
  homepage: string | null;
  has_changelog: boolean;
  description: string | null;
  builtin: boolean;
  essential: boolean;
  public_routes: string[];
  public_routes_enabled: boolean;
  error: string | null;
  /** Third-party plugins only (`builtin: false`): what the operator weighs before enabling one. */
  sandbox?: SandboxPluginInfo;
}

/** The sandbox side of a third-party plugin's row (docs/api/keys-and-plugins.md). */
export interface SandboxPluginInfo {
  entry: string;
  /** Gateway operations it may call. */
  permissions: string[];
  scopes: string[];
  /** Public routes with the limits the node enforces before the plugin runs. */
  public_route_limits: { path: string; method: string; rate_per_minute: number; max_body_bytes: number }[];
  /** Extension point → contribution ids. */
  contributes: Record<string, string[]>;
  /** trusted (signed by a trusted key), untrusted (valid signature, key not trusted), unsigned, invalid (tampered). */
  signature: { status: 'trusted' | 'untrusted' | 'unsigned' | 'invalid'; signer: string | null; public_key: string | null; reason: string | null };
  /** Whether the node runs plugins that are not trusted (NODE_PLUGINS_DEV_MODE). */
  development_mode: boolean;
  /** The limits its next start gets: the operator's (or the defaults), lowered by the manifest's own. */
  limits: { memory_mb: number; cpu_ms: number; store_kb: number; store_keys: number };
  store: { bytes: number; keys: number };
  settings: Record<string, unknown>;
  /** Failed calls since it started (recent window); `failed` status after too many. */
  failures: number;
  /** Its isolate: running, restarting (a new one starts after a failure; calls wait or fail meanwhile), stopped. */
  isolate: 'running' | 'restarting' | 'stopped';
}

/** A third-party plugin to install: the files, as text. */
export interface PluginBundle {
  /** plugin.json, byte for byte (the signature covers these bytes). */
  manifest: string;
  /** The entry module named by the manifest. */
  entry: string;
  /** plugin.sig, or null for an unsigned plugin. */
  signature: string | null;
  changelog?: string | null;
  /** Replace an installed (disabled) plugin of the same name, keeping its data. */
  replace?: boolean;
}

export interface PluginHostMechanism {
  list(): PluginStatusRow[];
  get(name: string): PluginStatusRow | null;
  setEnabled(name: string, enabled: boolean): PluginStatusRow;
  setPublicRoutes(name: string, enabled: boolean): PluginStatusRow;
  remove(name: string): void;
  /** Checks the manifest and the signature, then writes the plugin into the plugins directory, disabled. */
  install(bundle: PluginBundle): PluginStatusRow;
  /** The operator's limits of a third-party plugin (applied at its next start); null values go back to the defaults. */
  setLimits(name: string, limits: { memory_mb?: number | null; cpu_ms?: number | null; store_kb?: number | null }): PluginStatusRow;
  /** Values of a third-party plugin's declared settings (applied at once). */
  setSettings(name: string, values: Record<string, unknown>): PluginStatusRow;
  /** Whether the node-wide NODE_PUBLIC_PLUGIN_ROUTES ceiling lets public routes be served at all. */
  publicRoutesAllowed(): boolean;
  /**
   * On a development node (NODE_PLUGINS_DEV_MODE), starts or stops a third-party plugin now as its flag says, without
   * a restart, and answers its row; null where a restart is still needed (a builtin plugin, a production node).
   */
  applyNow(name: string): Promise<PluginStatusRow | null>;
  /** Development: installs a new build of a plugin over the running one, enables it and swaps its isolate now. */
  devLoad(bundle: PluginBundle): Promise<PluginStatusRow>;
}

export interface ProcessorState {
  name: string;
  processor: string | null;
  running: boolean;
  busy: boolean;
  last_run_at: string | null;
  last_error: string | null;
}

export interface JobsMechanism {
  states(): ProcessorState[];
  /** Whether any job of the named processor is scheduled (the status `processors` flags). */
  processorRunning(processor: string): boolean;
  stopAll(): number;
  startAll(): number;
  running(): boolean;
}

export interface LogEntry {
  at: string;
  level: LogLevel;
  source: string;
  message: string;
  /** The REST request it was logged for (its X-Request-Id). */
  request_id?: string;
  fields?: Record<string, unknown>;
}

export interface NodeInfo {
  version: string;
  pubkeyHash: string;
  addresses: NodeAddresses;
  /** Where the node's own listener is bound (NODE_BIND, and the port it got): HTTP and HTTPS share it. */
  listener: { host: string; port: number };
  dataDir: string;
  startedAt: number;
  environment: string;
  testMode: boolean;
  torSocks: { host: string; port: number };
}

export interface SettingsMechanism {
  definitions(): SettingDefinition[];
  /** Every setting's effective value, camelCase. */
  values(): Record<string, unknown>;
  /** Validates every change first, then applies all and persists atomically; nothing changes on error. */
  update(changes: Record<string, unknown>): Record<string, unknown>;
  reset(): void;
  /** camelCase names whose value comes from an environment variable (an update cannot change them). */
  overridden(): string[];
  toSnake(key: string): string;
  fromSnake(name: string): string | null;
}

export type DeadLetterStatus = 'pending' | 'retrying' | 'resolved' | 'abandoned';

export interface DeadLetterItem {
  id: number;
  message_id: string;
  /** transaction, contact, p2p, rp2p, ... as the owning plugin labels it. */
  message_type: string;
  status: DeadLetterStatus;
  retry_count: number;
  recipient_address: string | null;
  failure_reason: string | null;
  added_at: string;
  updated_at: string;
  retryable: boolean;
}

export interface DlqMechanism {
  list(statuses: readonly DeadLetterStatus[]): DeadLetterItem[];
  get(id: number): DeadLetterItem | null;
  /** Sends the item again now (an owned item: its owner's `retry` hook does); resolves it on delivery. */
  retry(id: number): Promise<DeadLetterItem>;
  abandon(id: number): DeadLetterItem;
  pendingCount(): number;
}

/** An HTTP(S) request of a plugin to a server outside the peer network (a release feed, a report collector). */
export interface OutboundRequest {
  method: 'GET' | 'POST';
  /** http: or https: URL. */
  url: string;
  headers?: Record<string, string>;
  /** Sent as is; `Content-Type` defaults to application/json. */
  body?: string;
  /** Through the node's Tor SOCKS5 proxy (NODE_TOR_SOCKS), the host name handed to the proxy: DNS stays inside Tor. */
  viaTor: boolean;
  /** Until the request can be written: TCP connect (to the proxy), the SOCKS5 CONNECT and the TLS handshake. */
  connectTimeoutMs: number;
  /** The whole exchange, the connection included. */
  timeoutMs: number;
  /** A larger answer fails the request. */
  maxResponseBytes: number;
  /** PEM certificates trusted for an https URL besides the system's roots (a private collector's own CA). */
  extraCa?: string;
  /** Cancels the request (the caller stopping). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  body: string;
}

export type OutboundErrorCode =
  /** The connection was not ready within connectTimeoutMs. */
  | 'connect_timeout'
  /** The exchange did not finish within timeoutMs. */
  | 'timeout'
  /** The local SOCKS5 proxy (Tor) could not be reached. */
  | 'tor_unavailable'
  /** Refused, reset, unknown host, or the proxy could not reach it. */
  | 'unreachable'
  /** The server's certificate is not trusted for the host name. */
  | 'tls'
  | 'too_large'
  | 'bad_url'
  | 'cancelled';

/** Why an outbound request failed; the message names no secret and is fit for a log or an operator. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/**
 * A streamed exchange (`OutboundMechanism.fetch`): what a client library that takes a `fetch` (an SSE or streaming
 * HTTP client) needs, over Tor too. There is no overall deadline: the caller's signal ends a long stream.
 */
export interface OutboundFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** As in OutboundRequest. */
  viaTor: boolean;
  connectTimeoutMs: number;
  extraCa?: string;
}

export interface OutboundMechanism {
  /** Resolves with any HTTP status (the caller judges it); rejects with `OutboundError`. */
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /**
   * The same connection (direct or through Tor), answered as a WHATWG Response whose headers are there at once and
   * whose body streams as it arrives. One connection per exchange, closed after it. Rejects with `OutboundError`.
   */
  fetch(url: string, init: OutboundFetchInit): Promise<Response>;
}

/** A file of a state snapshot: `node.db`, `settings.json` or `plugins-state.json`. */
export interface StateFile {
  name: string;
  path: string;
  size: number;
}

/** A consistent copy of the node's state in a private scratch directory of the data directory. */
export interface StateSnapshot {
  /**
   * `node.db` first (one self-contained file: rollback-journal mode, no WAL beside it), then the state files
   * present. Not in it: the identity (it comes back from the seed phrase), cli.json and the TLS certificate
   * (made again at start).
   */
  readonly files: readonly StateFile[];
  /** Deletes the copy. */
  dispose(): Promise<void>;
}

export interface DatabaseCheck {
  /** SQLite's `PRAGMA integrity_check` answered ok. */
  ok: boolean;
  /** What it found otherwise (at most 100 lines), or why the file could not be opened as a database. */
  problems: string[];
}

/** A private directory inside the data directory (mode 700), for plaintext that must not leave its volume. */
export interface ScratchDir {
  readonly dir: string;
  dispose(): Promise<void>;
}

export interface SnapshotMechanism {
  /** The names a snapshot's files may have (`node.db` and the state files). */
  readonly fileNames: readonly string[];
  /** Which of them is the database (the file `check` examines). */
  readonly databaseFile: string;
  /** Which of them hold JSON. */
  readonly jsonFiles: readonly string[];
  /**
   * Copies the database with SQLite's online backup, a few pages per turn of the event loop, so the node keeps
   * serving (writes made meanwhile through the node's connection reach the copy); then the state files.
   */
  take(options?: { onProgress?: (copiedPages: number, totalPages: number) => void }): Promise<StateSnapshot>;
  /** Scratch space beside the database; leftovers of a crash are removed at the next start. */
  scratch(): Promise<ScratchDir>;
  /** Opens a database file read-only and runs SQLite's integrity check in a worker thread. */
  check(path: string): Promise<DatabaseCheck>;
}

/** What a plugin's `recover` gets: the data directory before the node opens anything in it. */
export interface BootRecoveryContext {
  readonly dataDir: string;
  /** Names of the entries in the data directory besides its lock file: none on a new volume. */
  readonly entries: readonly string[];
  /** A `NODE_*` variable of the node's environment. */
  env(name: string): string | undefined;
  /**
   * The node the seed phrase given with RESTORE or RESTORE_FILE restores: its key hash, and the plugin's storage
   * keys exactly as `ctx.identity.storageKey` will derive them once it runs. Null when no seed phrase was given.
   */
  readonly restoring: { pubkeyHash: string; storageKey(label: string): Buffer } | null;
  readonly snapshots: Pick<SnapshotMechanism, 'fileNames' | 'databaseFile' | 'jsonFiles' | 'scratch' | 'check'>;
  /**
   * Moves the files of a recovered state into the data directory (`node.db` required; names from
   * `snapshots.fileNames`). Refused unless the directory holds no node state yet; allowed once per start.
   */
  install(files: readonly { name: string; path: string }[]): void;
  readonly log: Logger;
}

/** Peer messages of one UTC day in one direction, of one type and result. */
export interface PeerTrafficDay {
  /** `YYYY-MM-DD`. */
  day: string;
  direction: 'in' | 'out';
  type: string;
  result: string;
  count: number;
}

export interface KernelApi {
  readonly node: NodeInfo;
  /** Consistent copies of the node's state, taken while it serves. */
  readonly snapshots: SnapshotMechanism;
  /** A `NODE_*` variable of the node's environment (the daemon's, or the one a test node was given); others: undefined. */
  env(name: string): string | undefined;
  /** HTTP(S) requests to servers outside the peer network, directly or through Tor. */
  readonly outbound: OutboundMechanism;
  readonly dlq: DlqMechanism;
  readonly apiKeys: ApiKeysMechanism;
  readonly plugins: PluginHostMechanism;
  readonly jobs: JobsMechanism;
  readonly settings: SettingsMechanism;
  /** Health of the database: a trivial query within a short time. */
  databaseHealthy(): boolean;
  /** Recent log entries, newest last (the debug report uses them). */
  recentLogs(limit?: number): LogEntry[];
  /** Request counters since start, per status class, for metrics. */
  httpMetrics(): Record<string, number>;
  /** Peer messages per UTC day, kept `cleanupMetricsRetentionDays` days, oldest first. */
  peerTrafficDays(): PeerTrafficDay[];
  /** Full in-process restart: stop plugins, reload them, remount routes. */
  restart(): Promise<void>;
  /** Retired nodes stop processors and refuse peer traffic until unretired. */
  setRetired(retired: boolean): void;
  isRetired(): boolean;
  /**
   * Takes the node's peer transports down (true) or up: while down, nothing reaches peers (sends fail as unreachable
   * and are retried as usual) and peers get 503 `transports_down`; the node otherwise runs. For tests of outages
   * (NODE_TEST_MODE); the caller decides whether it is allowed.
   */
  setTransportsDown(down: boolean): void;
  transportsDown(): boolean;
}
