/**
 * The test kit of third-party plugins, the package entry `wallet-node/sdk/testing`: it bundles a plugin folder as
 * `node-cli plugin build` does and runs it in a real isolate, started by the node's own loader and served by the
 * node's own host operations, over a context the test controls: a store in memory, the settings, the clock, gateway
 * operations that record their calls, public events, and public and signed requests. No node process is involved,
 * so a plugin's own suite runs under vitest or `node --no-node-snapshot --test`.
 *
 *   import { loadPlugin } from 'wallet-node/sdk/testing';
 *   const plugin = await loadPlugin(new URL('.', import.meta.url), { settings: { greeting: 'hi' } });
 *   const res = await plugin.public('GET', 'hello');   // { status: 200, data: { text: 'hi', visits: 1 }, ... }
 *   plugin.stop();
 *
 * The routes, scopes and contributions a plugin registers are checked against its plugin.json as the node checks
 * them, so a test fails where the node would refuse to start the plugin. docs/plugins.md, "Testing".
 */
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { grants } from '../kernel/auth/scopes.js';
import { answer } from '../kernel/plugins/sandbox/answer.js';
import { hostOperations } from '../kernel/plugins/sandbox/host-ops.js';
import { DEFAULT_LIMITS, MAX_OUTPUT, STORE_KEYS } from '../kernel/plugins/sandbox/host.js';
import { SandboxStores } from '../kernel/plugins/sandbox/kv-store.js';
import { checkRegistrations } from '../kernel/plugins/sandbox/registrations.js';
import { RunningPlugin } from '../kernel/plugins/sandbox/running.js';
import type { PaybackRail } from './payback-rail.js';
import { bundlePlugin, withInlineMap } from './plugin-build.js';
import { coerceSetting, settingProblem, settingValues, type ThirdPartyManifest } from './plugin-manifest.js';
import { ApiError, RawReply, Reply } from './replies.js';
import type { Json, SandboxMethod } from './sandbox.js';

export { railProblems } from './rail-vectors.js';

export interface TestOptions {
  /** The operator's values of the plugin's settings (checked against plugin.json as the node checks them). */
  settings?: Record<string, Json>;
  /** The clock's start, in ms since the epoch (default 0); `plugin.clock` moves it. */
  now?: number;
  /** Gateway operations the node would offer, by name; every call is recorded in `plugin.gatewayCalls`. */
  gateway?: Record<string, (args: Json) => Json | Promise<Json>>;
  /** Smaller limits than the node's defaults, as plugin.json or the operator may set them. */
  limits?: { memory_mb?: number; cpu_ms?: number; store_kb?: number };
}

export interface RequestOptions {
  query?: Record<string, string>;
  body?: Json;
  headers?: Record<string, string>;
  ip?: string;
}

export interface SignedRequestOptions extends RequestOptions {
  /** The API key's permissions (default: the route's own scope). */
  permissions?: string[];
}

/** What the node would answer, before it writes the envelope. */
export interface TestResponse {
  status: number;
  /** The data of a success (JSON, or a Reply's data). */
  data?: unknown;
  message?: string;
  headers: Record<string, string>;
  /** A RawReply's body and content type. */
  body?: string;
  type?: string;
  /** An error: the plugin's ApiError, or the node's (plugin_error 500, permission_denied 403, not_found 404). */
  error?: { code: string; message: string; details?: unknown };
}

export interface PluginUnderTest {
  readonly manifest: ThirdPartyManifest;
  /** A request to `/p/<name>/<path>`. */
  public(method: SandboxMethod, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** An HMAC-signed request to `/api/v1/plugins/<name>/<path>`. */
  signed(method: SandboxMethod, path: string, options?: SignedRequestOptions): Promise<TestResponse>;
  /** Delivers a public event (`payment.received`, `<plugin>.<event>`) to the plugin's subscribers. */
  emit(event: string, payload: Json): Promise<void>;
  /** A contributed contract, whose functions run synchronously in the plugin's contract isolate. */
  contract<T = Record<string, (...args: unknown[]) => unknown>>(point: string, id: string): T;
  /** A contributed payback rail, as the node's rail registry sees it. */
  rail(id: string): PaybackRail;
  /** The plugin's store, the node's own key-value store (quota included) over a database in memory. */
  readonly store: { get(key: string): Json | null; set(key: string, value: Json): void; keys(): string[] };
  readonly clock: { now(): number; set(ms: number): void; advance(ms: number): void };
  /** Changes settings as `node-cli plugin settings` does (null restores the default). */
  setSettings(values: Record<string, Json | null>): void;
  readonly gatewayCalls: { op: string; args: Json }[];
  /** What the plugin published, under the name others see (`<plugin>.<event>`). */
  readonly published: { event: string; payload: Json }[];
  readonly logs: { level: string; message: string; fields?: Record<string, unknown> }[];
  /** Disposes the isolates. */
  stop(): void;
}

type Route = RunningPlugin['registrations']['routes'][number];

/** Whether `path` fills the route's pattern (`orders/:id`), and with which parameters. */
function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.replace(/^\/+|\/+$/g, '').split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, seg] of want.entries()) {
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeURIComponent(got[i]!);
    else if (seg !== got[i]) return null;
  }
  return params;
}

function responseOf(value: unknown): TestResponse {
  if (value instanceof Reply) return { status: value.status, data: value.data, headers: value.headers, ...(value.message === undefined ? {} : { message: value.message }) };
  if (value instanceof RawReply) return { status: value.status, body: String(value.body), type: value.contentType, headers: value.headers };
  return { status: 200, data: value, headers: {} };
}

function failureOf(err: unknown): TestResponse {
  if (!(err instanceof ApiError)) throw err;
  const details = err.context?.details ?? err.context;
  return { status: err.status, headers: {}, error: { code: err.code, message: err.message, ...(details === undefined ? {} : { details }) } };
}

/** Bundles the plugin of `folder` and starts it in an isolate, its setup run; throws when the node would refuse it. */
export async function loadPlugin(folder: string | URL, options: TestOptions = {}): Promise<PluginUnderTest> {
  const dir = folder instanceof URL ? fileURLToPath(folder) : folder;
  const bundle = await bundlePlugin(dir);
  const m = bundle.manifest;
  const limits = { ...DEFAULT_LIMITS, ...m.limits, ...options.limits };
  let now = options.now ?? 0;
  let stored: Record<string, unknown> = {};
  const db = new Database(':memory:');
  const stores = new SandboxStores(db);
  const gatewayCalls: PluginUnderTest['gatewayCalls'] = [];
  const published: PluginUnderTest['published'] = [];
  const logs: PluginUnderTest['logs'] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, ...(fields ? { fields } : {}) });
  const log = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const offered = options.gateway ?? {};

  const setSettings = (values: Record<string, Json | null>): void => {
    const next = { ...stored };
    for (const [key, value] of Object.entries(values)) {
      const def = m.settings.find((s) => s.key === key);
      if (!def) throw new Error(`plugin.json declares no setting ${key}`);
      if (value === null) {
        delete next[key];
        continue;
      }
      const problem = settingProblem(def, coerceSetting(def, value));
      if (problem) throw new Error(`${key}: ${problem}`);
      next[key] = coerceSetting(def, value);
    }
    stored = next;
  };
  setSettings(options.settings ?? {});

  const host = hostOperations({
    manifest: m,
    stores,
    quota: { bytes: limits.store_kb * 1024, keys: STORE_KEYS },
    settings: () => settingValues(m, stored),
    publish: (event, payload) => void published.push({ event, payload: payload as Json }),
    gateway: (op) => {
      const handler = offered[op];
      if (!handler) return null;
      return (args) => {
        gatewayCalls.push({ op, args: args as Json });
        return handler(args as Json);
      };
    },
    log,
    takeLogLine: () => true,
    hostLog: log,
  });
  const running = await RunningPlugin.start({
    name: m.name,
    version: m.version,
    entryName: m.entry,
    source: withInlineMap(bundle),
    limits: { memoryMb: limits.memory_mb, cpuMs: limits.cpu_ms, wallMs: Math.max(3_000, limits.cpu_ms * 10), maxOutput: MAX_OUTPUT },
    host,
    now: () => now,
    log,
  });
  const stop = (): void => {
    running.stop();
    db.close();
  };
  try {
    // The node takes its own and other builtin plugins' scopes; the kit cannot know the latter and takes any.
    checkRegistrations(m, running.registrations, () => true);
  } catch (err) {
    stop();
    throw new Error(`the node would not start ${m.name}: ${err instanceof Error ? err.message : String(err)}`);
  }

  const request = async (kind: 'public' | 'plugin', method: SandboxMethod, path: string, o: SignedRequestOptions): Promise<TestResponse> => {
    let found: { route: Route; params: Record<string, string> } | null = null;
    for (const route of running.registrations.routes) {
      const params = route.kind === kind && route.method === method ? match(route.path, path) : null;
      if (params) found = { route, params };
    }
    if (!found) return failureOf(new ApiError('not_found', 404, `No ${kind} route ${method} ${path}`));
    const { route, params } = found;
    const scope = route.scope as string | string[] | undefined;
    const permissions = o.permissions ?? (typeof scope === 'string' ? [scope] : (scope ?? []));
    if (kind === 'plugin' && !grants(permissions, scope!)) {
      return failureOf(new ApiError('permission_denied', 403, `This API key lacks the required permission: ${String(scope)}`));
    }
    try {
      const outcome = await running.call({
        kind: 'route',
        id: `${route.kind} ${route.method} ${route.path}`,
        request: {
          method,
          path: route.path,
          params,
          query: o.query ?? {},
          headers: o.headers ?? {},
          auth: kind === 'plugin' ? { key_id: 'test-key', permissions } : null,
          ip: o.ip ?? '127.0.0.1',
          request_id: `test-${Math.random().toString(36).slice(2)}`,
        },
        body: method === 'GET' || o.body === undefined ? '' : JSON.stringify(o.body),
      });
      return responseOf(answer(m.name, outcome));
    } catch (err) {
      return failureOf(err);
    }
  };

  const contract = <T>(point: string, id: string): T => {
    const c = running.registrations.contracts.find((x) => x.point === point && x.id === id);
    if (!c) throw new Error(`${m.name} contributes no ${point} ${id}`);
    const out: Record<string, unknown> = { ...c.data, id };
    for (const method of c.methods) out[method] = (...args: unknown[]) => running.callContract(point, id, method, args);
    return out as T;
  };

  return {
    manifest: m,
    public: (method, path, o = {}) => request('public', method, path, o),
    signed: (method, path, o = {}) => request('plugin', method, path, o),
    emit: async (event, payload) => {
      if (running.registrations.events.includes(event)) await running.call({ kind: 'event', event, payload });
    },
    contract,
    rail: (id) => contract<PaybackRail>('payback_rail', id),
    store: {
      get: (key) => {
        const text = stores.get(m.name, key);
        return text === null ? null : (JSON.parse(text) as Json);
      },
      set: (key, value) => stores.set(m.name, key, JSON.stringify(value), { bytes: limits.store_kb * 1024, keys: STORE_KEYS }),
      keys: () => stores.list(m.name, null, null, null) as string[],
    },
    clock: {
      now: () => now,
      set: (ms) => void (now = ms),
      advance: (ms) => void (now += ms),
    },
    setSettings,
    gatewayCalls,
    published,
    logs,
    stop,
  };
}
