/** Kernel mechanisms exposed to builtin plugins (`ctx.kernel`); those of outbound requests and state snapshots: sdk/outbound.ts, sdk/snapshots.ts. */
import type { NodeAddresses } from './identity.js';
import type { OutboundMechanism } from './outbound.js';
import type { LogLevel } from './runtime.js';
import type { SettingDefinition } from './settings.js';
import type { SnapshotMechanism } from './snapshots.js';

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
