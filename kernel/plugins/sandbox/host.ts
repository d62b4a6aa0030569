import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ivm from 'isolated-vm';
import {
  type Clock,
  type PluginBundle,
  type PluginStatusRow,
  type RouteDefinition,
  type RouteRequest,
  type SandboxBridgeApi,
  type SandboxContribution,
  type SandboxPluginInfo,
} from '../../../sdk/index.js';
import { ConfigError } from '../../config.js';
import type { Db } from '../../db/open.js';
import { ApiError } from '../../errors.js';
import type { RouteTable } from '../../http/route-table.js';
import type { LogSink } from '../../log.js';
import { answer } from './answer.js';
import { SandboxBridge } from './bridge.js';
import { hostOperations } from './host-ops.js';
import { parseFromPlugin, type HostHandler, type Registrations } from './isolate.js';
import { SandboxStores } from './kv-store.js';
import { coerceSetting, settingValues, ManifestError, parseManifest, PLUGIN_NAME, settingProblem, type ThirdPartyManifest } from '../../../sdk/plugin-manifest.js';
import { checkRegistrations } from './registrations.js';
import { RunningPlugin } from './running.js';
import { TRUSTED_KEYS_FILE } from '../../data-files.js';
import { readTrustedKeys, SIGNATURE_FILE, verifyPlugin, type SignatureVerdict } from './signature.js';

/** Limits a plugin gets unless the operator set others; a manifest may only ask for less. */
export const DEFAULT_LIMITS = { memory_mb: 32, cpu_ms: 200, store_kb: 1024 } as const;
/** What the operator may set. */
export const LIMIT_RANGES = { memory_mb: [8, 2048], cpu_ms: [10, 60_000], store_kb: [1, 1_048_576] } as const;
export const STORE_KEYS = 10_000;
/** Largest answer of one call (characters of JSON). */
export const MAX_OUTPUT = 1_048_576;
const MAX_MANIFEST_BYTES = 64 * 1024;
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
const MAX_SIGNATURE_BYTES = 4 * 1024;
const MAX_CHANGELOG_BYTES = 256 * 1024;
const LOG_LINES_PER_MINUTE = 600;
const CHANGELOG = 'CHANGELOG.md';
/**
 * What fixes an untrusted plugin, named in every refusal so the reader need not look it up: the author signs
 * (`npm run plugin:sign`), the operator trusts the key, or a development node runs it anyway.
 */
const TRUST_HINT =
  `sign it with npm run plugin:sign and add the author's public key to <data dir>/${TRUSTED_KEYS_FILE} (one "<hex key> <name>" a line), ` +
  'or set NODE_PLUGINS_DEV_MODE=true on a development node';
const RESTART_HINT = 'node-cli restart (POST /api/v1/system/restart)';
/** How an operator sends a fixed or newer build of an installed plugin. */
const REINSTALL_HINT = 'node-cli plugin install <folder> --replace (replace: true in POST /api/v1/plugins)';

type LimitName = keyof typeof DEFAULT_LIMITS;

/** A third-party plugin's entry in plugins-state.json. */
export interface SandboxFlags {
  enabled: boolean;
  public_routes: boolean;
  limits?: Partial<Record<LimitName, number>>;
  settings?: Record<string, unknown>;
}

/** The plugin host's persisted flags, which builtin and third-party plugins share. */
export interface FlagAccess {
  get(name: string): SandboxFlags;
  update(name: string, change: Partial<SandboxFlags>): void;
  drop(name: string): void;
}

export interface SandboxHostDeps {
  db: Db;
  dataDir: string;
  env: Record<string, string | undefined>;
  logs: LogSink;
  clock: Clock;
  registerScopes(scopes: readonly string[]): void;
  knownScopes(): string[];
}

/** A plugin folder as it is on disk now. */
interface PluginFiles {
  name: string;
  dir: string;
  manifestText: string | null;
  manifest: ThirdPartyManifest | null;
  entryText: string | null;
  hasChangelog: boolean;
  /** Why the folder is not a runnable plugin (manifest, entry, name), or null. */
  problem: string | null;
  verdict: SignatureVerdict;
}

interface Loaded {
  running: RunningPlugin | null;
  /** Why it did not start. */
  error: string | null;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);
const PASSED_HEADERS = ['content-type', 'accept', 'user-agent', 'origin'];

function readLimited(path: string, max: number): string | null {
  if (!existsSync(path)) return null;
  const st = statSync(path);
  if (!st.isFile()) throw new ManifestError(`${path} is not a file`);
  if (st.size > max) throw new ManifestError(`${path} is larger than ${max} bytes`);
  return readFileSync(path, 'utf8');
}

/**
 * Third-party plugins: the folders of the plugins directory, their trust, their isolates and everything they
 * registered. The kernel's plugin host drives it (enable flags, load, unload); builtin plugins reach it through
 * `ctx.sandbox` (gateway operations, public events, extension points). It names no feature.
 */
export class SandboxHost {
  readonly pluginsDir: string;
  readonly devMode: boolean;
  readonly #stores: SandboxStores;
  #flags: FlagAccess | null = null;
  #isBuiltin: (name: string) => boolean = () => false;
  #bridge: SandboxBridge;
  #loaded = new Map<string, Loaded>();
  /** Names of every plugin folder at the last load: a plugin may not require another third-party plugin's scope. */
  #thirdPartyNames = new Set<string>();
  /** What each running plugin registered, taken back in reverse order when it stops. */
  #teardown = new Map<string, (() => void)[]>();
  /** The route table of the current generation: a development node starts and stops plugins between restarts. */
  #table: RouteTable | null = null;
  /** Starts and stops between restarts run one at a time. */
  #applying: Promise<unknown> = Promise.resolve();
  #snapshotWarned = false;
  readonly #logRate = new Map<string, { minute: number; count: number }>();
  readonly #log;

  constructor(private readonly deps: SandboxHostDeps) {
    const dir = deps.env.NODE_PLUGINS_DIR?.trim();
    this.pluginsDir = dir ? dir : join(deps.dataDir, 'plugins');
    const dev = (deps.env.NODE_PLUGINS_DEV_MODE ?? '').trim().toLowerCase();
    if (!TRUE.has(dev) && !FALSE.has(dev)) throw new ConfigError('NODE_PLUGINS_DEV_MODE', `expected true or false, got "${deps.env.NODE_PLUGINS_DEV_MODE}"`);
    this.devMode = TRUE.has(dev);
    this.#stores = new SandboxStores(deps.db);
    this.#log = deps.logs.logger('sandbox');
    this.#bridge = new SandboxBridge(this.#log);
    if (this.devMode) this.#log.warn('NODE_PLUGINS_DEV_MODE is on: plugins that are unsigned or not signed by a trusted key may run');
  }

  /** Called once by the plugin host that owns plugins-state.json and knows the builtin plugins' names. */
  attach(flags: FlagAccess, isBuiltin: (name: string) => boolean): void {
    this.#flags = flags;
    this.#isBuiltin = isBuiltin;
  }

  // ---- what builtin plugins offer (ctx.sandbox), one bridge per load generation

  /** A fresh bridge: builtin plugins register their offers again as they start. */
  beginGeneration(): void {
    this.#bridge = new SandboxBridge(this.#log);
  }

  /** `ctx.sandbox` of a builtin plugin; it always reaches the current generation's bridge. */
  bridgeFor(owner: string): SandboxBridgeApi {
    return {
      gateway: (op, handler) => this.#bridge.forOwner(owner).gateway(op, handler),
      publish: (event, payload) => this.#bridge.publish(event, payload),
      subscribed: (event) => this.#bridge.subscribed(event),
      extensionPoint: (point, slot) => this.#bridge.forOwner(owner).extensionPoint(point, slot),
    };
  }

  releaseOwner(owner: string): void {
    this.#bridge.removeOwner(owner);
  }

  // ---- discovery and rows

  /** Every plugin folder, read now (so an edit by hand shows at once). */
  scan(): PluginFiles[] {
    if (!existsSync(this.pluginsDir)) return [];
    const trusted = readTrustedKeys(join(this.deps.dataDir, TRUSTED_KEYS_FILE)).keys;
    return readdirSync(this.pluginsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && PLUGIN_NAME.test(d.name))
      .map((d) => this.#read(d.name, trusted))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  #read(name: string, trusted: ReturnType<typeof readTrustedKeys>['keys']): PluginFiles {
    const dir = join(this.pluginsDir, name);
    const files: PluginFiles = {
      name,
      dir,
      manifestText: null,
      manifest: null,
      entryText: null,
      hasChangelog: existsSync(join(dir, CHANGELOG)),
      problem: null,
      verdict: { status: 'unsigned', signer: null, public_key: null, reason: 'not checked' },
    };
    try {
      files.manifestText = readLimited(join(dir, 'plugin.json'), MAX_MANIFEST_BYTES);
      if (files.manifestText === null) throw new ManifestError('plugin.json is missing');
      files.manifest = parseManifest(files.manifestText);
      // Install refuses such a name; a folder copied in by hand must not take over a builtin plugin's flag and routes.
      if (this.#isBuiltin(name)) throw new ManifestError(`${name} is the name of a builtin plugin`);
      if (files.manifest.name !== name) throw new ManifestError(`the folder ${name} holds plugin "${files.manifest.name}": a plugin's folder bears its name`);
      files.entryText = readLimited(join(dir, files.manifest.entry), MAX_ENTRY_BYTES);
      if (files.entryText === null) throw new ManifestError(`the entry ${files.manifest.entry} is missing`);
      files.verdict = verifyPlugin(
        {
          name,
          manifest: Buffer.from(files.manifestText),
          entryName: files.manifest.entry,
          entry: Buffer.from(files.entryText),
          signature: readLimited(join(dir, SIGNATURE_FILE), MAX_SIGNATURE_BYTES),
        },
        trusted,
      );
    } catch (err) {
      files.problem = err instanceof ManifestError ? err.message : `unreadable: ${err instanceof Error ? err.message : String(err)}`;
    }
    return files;
  }

  /** Why the plugin may not be enabled or started now, or null. */
  #refusal(files: PluginFiles): string | null {
    if (files.problem) return files.problem;
    if (files.verdict.status === 'trusted' || this.devMode) return null;
    return `${files.verdict.reason}; ${TRUST_HINT}`;
  }

  has(name: string): boolean {
    return PLUGIN_NAME.test(name) && existsSync(join(this.pluginsDir, name));
  }

  rows(): PluginStatusRow[] {
    return this.scan().map((f) => this.#row(f));
  }

  row(name: string): PluginStatusRow | null {
    if (!this.has(name)) return null;
    return this.#row(this.#read(name, readTrustedKeys(join(this.deps.dataDir, TRUSTED_KEYS_FILE)).keys));
  }

  #row(f: PluginFiles): PluginStatusRow {
    const flags = this.#flagsOf(f.name);
    const m = f.manifest;
    const loaded = this.#loaded.get(f.name);
    const refusal = this.#refusal(f);
    let status: string;
    let error: string | null;
    if (loaded) {
      error = loaded.error ?? (loaded.running?.state === 'failed' ? loaded.running.error : null) ?? refusal;
      status = loaded.error || loaded.running?.state === 'failed' ? 'failed' : flags.enabled ? 'active' : 'restart_pending';
    } else {
      error = refusal;
      status = refusal ? 'failed' : flags.enabled ? 'restart_pending' : 'disabled';
    }
    const info: SandboxPluginInfo = {
      entry: m?.entry ?? 'index.js',
      permissions: m?.permissions ?? [],
      scopes: m?.scopes ?? [],
      public_route_limits: (m?.public_routes ?? []).map((r) => ({ ...r })),
      contributes: m?.contributes ?? {},
      signature: { ...f.verdict },
      development_mode: this.devMode,
      limits: { ...this.#limits(f.name, m), store_keys: STORE_KEYS },
      store: this.#stores.usage(f.name),
      settings: m ? this.#settingValues(m, flags) : {},
      failures: loaded?.running?.failures ?? 0,
      isolate: loaded?.running?.isolate ?? 'stopped',
    };
    return {
      name: f.name,
      version: m?.version ?? '0.0.0',
      enabled: flags.enabled,
      status,
      license: m?.license ?? null,
      author: m?.author ?? null,
      homepage: m?.homepage ?? null,
      has_changelog: (m?.has_changelog ?? false) || f.hasChangelog,
      description: m?.description ?? null,
      builtin: false,
      essential: false,
      public_routes: [...new Set((m?.public_routes ?? []).map((r) => r.path.split('/')[0]!))],
      public_routes_enabled: flags.public_routes,
      error,
      sandbox: info,
    };
  }

  #flagsOf(name: string): SandboxFlags {
    return this.#flags?.get(name) ?? { enabled: false, public_routes: true };
  }

  #limits(name: string, m: ThirdPartyManifest | null): Record<LimitName, number> {
    const operator = this.#flagsOf(name).limits ?? {};
    const out = {} as Record<LimitName, number>;
    for (const key of Object.keys(DEFAULT_LIMITS) as LimitName[]) {
      const base = operator[key] ?? DEFAULT_LIMITS[key];
      const asked = m?.limits[key];
      out[key] = asked !== undefined ? Math.min(asked, base) : base;
      out[key] = Math.max(out[key], LIMIT_RANGES[key][0]);
    }
    return out;
  }

  #settingValues(m: ThirdPartyManifest, flags: SandboxFlags): Record<string, unknown> {
    return settingValues(m, flags.settings ?? {});
  }

  // ---- operator actions

  /** Refuses to enable a plugin that could not start: its files are wrong, or it is not trusted. */
  checkEnable(name: string): void {
    const f = this.#read(name, readTrustedKeys(join(this.deps.dataDir, TRUSTED_KEYS_FILE)).keys);
    if (f.problem) throw new ApiError('plugin_invalid', 400, `Plugin ${name} cannot be enabled: ${f.problem}; fix it and install it again: ${REINSTALL_HINT}`);
    if (f.verdict.status !== 'trusted' && !this.devMode) {
      const code = f.verdict.status === 'invalid' ? 'plugin_signature_invalid' : 'plugin_untrusted';
      throw new ApiError(code, 400, `Plugin ${name} cannot be enabled: ${f.verdict.reason}; ${TRUST_HINT}`, { signature: f.verdict.status });
    }
  }

  /** Whether the plugin runs in this generation (its isolate may be failed). */
  isLoaded(name: string): boolean {
    return !!this.#loaded.get(name)?.running;
  }

  isServing(name: string): boolean {
    return this.#loaded.get(name)?.running?.state === 'active';
  }

  setLimits(name: string, change: Partial<Record<LimitName, number | null>>): void {
    const current = { ...(this.#flagsOf(name).limits ?? {}) };
    for (const [key, value] of Object.entries(change)) {
      if (!(key in DEFAULT_LIMITS)) throw new ApiError('validation_error', 400, `Unknown limit ${key} (memory_mb, cpu_ms, store_kb)`, { field: key });
      const k = key as LimitName;
      if (value === null) {
        delete current[k];
        continue;
      }
      const [min, max] = LIMIT_RANGES[k];
      if (!Number.isInteger(value) || value! < min || value! > max) {
        throw new ApiError('validation_error', 400, `${key} must be an integer from ${min} to ${max}`, { field: key });
      }
      current[k] = value!;
    }
    this.#flags!.update(name, { limits: current });
  }

  setSettings(name: string, values: Record<string, unknown>): void {
    const f = this.#read(name, []);
    if (!f.manifest) throw new ApiError('plugin_invalid', 400, `Plugin ${name} has no valid manifest: ${f.problem}`);
    const next = { ...(this.#flagsOf(name).settings ?? {}) };
    for (const [key, value] of Object.entries(values)) {
      const def = f.manifest.settings.find((s) => s.key === key);
      if (!def) throw new ApiError('unknown_setting', 400, `Plugin ${name} declares no setting ${key}`, { field: key });
      if (value === null) {
        delete next[key];
        continue;
      }
      const coerced = coerceSetting(def, value);
      const problem = settingProblem(def, coerced);
      if (problem) throw new ApiError('validation_error', 400, `${key}: ${problem}`, { field: key });
      next[key] = coerced;
    }
    this.#flags!.update(name, { settings: next });
  }

  /**
   * Checks the manifest, the entry and the signature of a bundle, and only then writes the plugin's folder (into a
   * temporary folder first, renamed into place). A replaced plugin keeps its flags, settings and stored data.
   */
  install(bundle: PluginBundle, builtin: (name: string) => boolean, live = false): string {
    if (typeof bundle.manifest !== 'string' || Buffer.byteLength(bundle.manifest) > MAX_MANIFEST_BYTES) {
      throw new ApiError('invalid_manifest', 400, `plugin.json must be text of at most ${MAX_MANIFEST_BYTES} bytes`, { field: 'manifest' });
    }
    let manifest: ThirdPartyManifest;
    try {
      manifest = parseManifest(bundle.manifest);
    } catch (err) {
      throw new ApiError('invalid_manifest', 400, `plugin.json: ${(err as Error).message}`, { field: 'manifest' });
    }
    const name = manifest.name;
    if (typeof bundle.entry !== 'string' || Buffer.byteLength(bundle.entry) > MAX_ENTRY_BYTES) {
      throw new ApiError('invalid_entry', 400, `${manifest.entry} must be text of at most ${MAX_ENTRY_BYTES} bytes`, { field: 'entry' });
    }
    if (bundle.signature !== null && (typeof bundle.signature !== 'string' || bundle.signature.length > MAX_SIGNATURE_BYTES)) {
      throw new ApiError('plugin_signature_invalid', 400, `${SIGNATURE_FILE} must be text of at most ${MAX_SIGNATURE_BYTES} bytes`, { field: 'signature' });
    }
    const changelog = bundle.changelog ?? null;
    if (changelog !== null && (typeof changelog !== 'string' || Buffer.byteLength(changelog) > MAX_CHANGELOG_BYTES)) {
      throw new ApiError('validation_error', 400, `${CHANGELOG} must be text of at most ${MAX_CHANGELOG_BYTES} bytes`, { field: 'changelog' });
    }
    if (builtin(name)) throw new ApiError('plugin_exists', 409, `${name} is the name of a builtin plugin`);
    const exists = this.has(name);
    // A development reload replaces the files of a running plugin, then swaps its isolate (applyNow).
    if (exists && !(live && this.devMode)) {
      if (!bundle.replace) throw new ApiError('plugin_exists', 409, `Plugin ${name} is installed already: replace it with ${REINSTALL_HINT}, keeping its data, or remove it first with node-cli plugin uninstall ${name}`);
      if (this.#flagsOf(name).enabled) throw new ApiError('plugin_enabled', 400, `Disable plugin ${name} before replacing it: node-cli plugin disable ${name}, then ${RESTART_HINT}`);
      if (this.isLoaded(name)) throw new ApiError('plugin_running', 400, `Plugin ${name} still runs until the restart: ${RESTART_HINT}, then replace it`);
    }
    const verdict = verifyPlugin(
      {
        name,
        manifest: Buffer.from(bundle.manifest),
        entryName: manifest.entry,
        entry: Buffer.from(bundle.entry),
        signature: bundle.signature,
      },
      readTrustedKeys(join(this.deps.dataDir, TRUSTED_KEYS_FILE)).keys,
    );
    if (verdict.status !== 'trusted' && !this.devMode) {
      const code = verdict.status === 'invalid' ? 'plugin_signature_invalid' : 'plugin_untrusted';
      throw new ApiError(code, 400, `Plugin ${name} was not installed: ${verdict.reason}; ${TRUST_HINT}`, { signature: verdict.status });
    }
    checkCompiles(manifest.entry, bundle.entry);

    mkdirSync(this.pluginsDir, { recursive: true, mode: 0o700 });
    const staging = join(this.pluginsDir, `.install-${name}-${randomBytes(6).toString('hex')}`);
    mkdirSync(staging, { mode: 0o700 });
    try {
      writeFileSync(join(staging, 'plugin.json'), bundle.manifest, { mode: 0o600 });
      writeFileSync(join(staging, manifest.entry), bundle.entry, { mode: 0o600 });
      if (bundle.signature !== null) writeFileSync(join(staging, SIGNATURE_FILE), bundle.signature, { mode: 0o600 });
      if (changelog !== null) writeFileSync(join(staging, CHANGELOG), changelog, { mode: 0o600 });
      const target = join(this.pluginsDir, name);
      if (exists) {
        const old = join(this.pluginsDir, `.old-${name}-${randomBytes(6).toString('hex')}`);
        renameSync(target, old);
        renameSync(staging, target);
        rmSync(old, { recursive: true, force: true });
      } else {
        renameSync(staging, target);
      }
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      this.#log.error('plugin install failed', { plugin: name, error: String(err) });
      throw new ApiError('persist_failed', 500, `Plugin ${name} could not be written to the plugins directory`);
    }
    this.#log.info('plugin installed', { plugin: name, version: manifest.version, signature: verdict.status, signer: verdict.signer });
    return name;
  }

  /** Deletes a disabled, stopped plugin's folder, stored data, flags and settings. */
  remove(name: string): void {
    if (this.#flagsOf(name).enabled) throw new ApiError('plugin_enabled', 400, `Disable plugin ${name} before deleting it`);
    if (this.isLoaded(name)) {
      throw new ApiError('plugin_running', 400, `Plugin ${name} is disabled but runs until the restart; POST /api/v1/system/restart, then delete it`);
    }
    try {
      rmSync(join(this.pluginsDir, name), { recursive: true, force: true });
    } catch {
      throw new ApiError('persist_failed', 500, `Plugin ${name}'s folder could not be deleted`);
    }
    this.#stores.drop(name);
    this.#flags!.drop(name);
    this.#log.info('plugin uninstalled', { plugin: name });
  }

  // ---- load generations

  /**
   * Starts every enabled plugin that may run, after the builtin plugins (whose offers it uses), and mounts what
   * each registered. A plugin that cannot start is recorded with its reason; the node goes on without it.
   */
  async load(table: RouteTable): Promise<void> {
    this.#table = table;
    this.#loaded = new Map();
    const folders = this.scan();
    this.#thirdPartyNames = new Set(folders.map((f) => f.name));
    for (const files of folders) {
      if (!this.#flagsOf(files.name).enabled) continue;
      const refusal = this.#refusal(files);
      if (refusal) {
        this.#loaded.set(files.name, { running: null, error: refusal });
        this.#log.error(`plugin ${files.name} not started: ${refusal}`);
        continue;
      }
      this.#warnSnapshot();
      await this.#start(files, table);
    }
  }

  /**
   * isolated-vm asks Node 20 and later to run with --no-node-snapshot: V8 may share snapshot data between isolates,
   * which can crash a process whose isolates were made from different snapshots (docs/plugins.md, "Running").
   */
  #warnSnapshot(): void {
    if (this.#snapshotWarned) return;
    this.#snapshotWarned = true;
    const flag = '--no-node-snapshot';
    if (process.execArgv.includes(flag) || (process.env.NODE_OPTIONS ?? '').includes(flag)) return;
    this.#log.warn(`Node runs without ${flag}, which isolated-vm asks for on Node 20 and later: set NODE_OPTIONS=${flag} where third-party plugins run`);
  }

  async #start(files: PluginFiles, table: RouteTable): Promise<void> {
    const m = files.manifest!;
    const limits = this.#limits(m.name, m);
    let running: RunningPlugin | null = null;
    const undo: (() => void)[] = [];
    try {
      this.deps.registerScopes(m.scopes);
      running = await RunningPlugin.start({
        name: m.name,
        version: m.version,
        entryName: m.entry,
        source: files.entryText!,
        limits: { memoryMb: limits.memory_mb, cpuMs: limits.cpu_ms, wallMs: Math.max(3_000, limits.cpu_ms * 10), maxOutput: MAX_OUTPUT },
        host: this.#hostOps(m, limits),
        now: () => this.deps.clock.now(),
        log: this.#log,
      });
      const r = running;
      const others = new Set([...this.#thirdPartyNames].filter((n) => n !== m.name));
      checkRegistrations(m, r.registrations, (scope) => this.deps.knownScopes().includes(scope) && !others.has(scope.split(':')[0]!));
      undo.push(() => table.removeOwner(m.name));
      for (const route of r.registrations.routes) table.add(m.name, this.#route(m, r, route), { kind: route.kind as 'plugin' | 'public', plugin: m.name });
      for (const event of r.registrations.events) {
        undo.push(this.#bridge.listen(event, (payload) => this.#deliver(m.name, r, event, payload)));
      }
      for (const c of r.registrations.contracts) {
        const slot = this.#bridge.slot(c.point);
        if (!slot) throw new Error(`it contributes to ${c.point}, which no running plugin opens`);
        const contribution = this.#contribution(m.name, r, c);
        try {
          slot.accept(contribution);
        } catch (err) {
          throw new Error(`${c.point} ${c.id} was refused: ${err instanceof Error ? err.message : String(err)}`);
        }
        undo.push(() => slot.withdraw?.(contribution));
      }
      this.#loaded.set(m.name, { running: r, error: null });
      this.#teardown.set(m.name, [() => r.stop(), ...undo]);
      this.#log.info(`plugin ${m.name} started`, { version: m.version, routes: r.registrations.routes.length, limits });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      for (const u of undo.reverse()) u();
      running?.stop();
      this.#loaded.set(m.name, { running: null, error: reason });
      this.#log.error(`plugin ${m.name} failed to start`, { error: reason });
    }
  }

  /** Stops every third-party plugin and takes back what it registered. */
  async unload(): Promise<void> {
    for (const name of [...this.#teardown.keys()].reverse()) this.#stop(name);
    this.#table = null;
    this.#loaded = new Map();
  }

  #stop(name: string): void {
    for (const t of (this.#teardown.get(name) ?? []).reverse()) {
      try {
        t();
      } catch (err) {
        this.#log.error('sandbox teardown failed', { plugin: name, error: String(err) });
      }
    }
    this.#teardown.delete(name);
    this.#loaded.delete(name);
  }

  /**
   * Development only (NODE_PLUGINS_DEV_MODE): stops the plugin's isolates and takes back its routes, then, when it is
   * enabled, starts it again from its folder as it is now, without a restart. Its store and settings are kept (they
   * are the node's, by the plugin's name); its routes are those its new setup registers. Third-party plugins require
   * no other plugin, so nothing else has to stop with it.
   */
  applyNow(name: string): Promise<void> {
    const run = this.#applying.then(async () => {
      if (!this.devMode || !this.#table) throw new ApiError('dev_mode_required', 400, `Plugins start and stop without a restart only on a node started with NODE_PLUGINS_DEV_MODE=true; otherwise ${RESTART_HINT}`);
      const table = this.#table;
      this.#stop(name);
      try {
        if (!this.has(name) || !this.#flagsOf(name).enabled) return;
        const files = this.#read(name, readTrustedKeys(join(this.deps.dataDir, TRUSTED_KEYS_FILE)).keys);
        this.#thirdPartyNames.add(name);
        const refusal = this.#refusal(files);
        if (refusal) {
          this.#loaded.set(name, { running: null, error: refusal });
          return;
        }
        await this.#start(files, table);
      } finally {
        table.changed();
      }
    });
    this.#applying = run.catch(() => undefined);
    return run;
  }

  #route(m: ThirdPartyManifest, running: RunningPlugin, route: Registrations['routes'][number]): RouteDefinition {
    const id = `${route.kind} ${route.method} ${route.path}`;
    const handler = async (req: RouteRequest): Promise<unknown> => {
      const outcome = await running.call({
        kind: 'route',
        id,
        request: requestFor(req, route.path, route.kind === 'public'),
        body: req.method === 'GET' || req.rawBody.length === 0 ? '' : req.rawBody.toString('utf8'),
      });
      return answer(m.name, outcome);
    };
    const body = route.method === 'GET' ? {} : { body: {} };
    if (route.kind === 'plugin') {
      return { method: route.method as RouteDefinition['method'], path: route.path, access: { scope: route.scope as string | string[] }, ...body, handler };
    }
    const decl = m.public_routes.find((p) => p.path === route.path && p.method === route.method)!;
    return {
      method: route.method as RouteDefinition['method'],
      path: route.path,
      access: { public: true },
      ...body,
      maxBodyBytes: decl.max_body_bytes,
      rateLimitPerMinute: decl.rate_per_minute,
      handler,
    };
  }

  #deliver(name: string, running: RunningPlugin, event: string, payloadJson: string): void {
    if (running.state !== 'active') return;
    running.call({ kind: 'event', event, payload: JSON.parse(payloadJson) as unknown }).catch((err: unknown) => {
      this.#log.warn('event delivery to a plugin failed', { plugin: name, event, error: err instanceof Error ? err.message : String(err) });
    });
  }

  /** The contract a builtin's extension slot receives: the plugin's data, and functions that call into its isolate. */
  #contribution(plugin: string, running: RunningPlugin, c: Registrations['contracts'][number]): SandboxContribution {
    const contract: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(parseFromPlugin(JSON.stringify(c.data ?? {})) as Record<string, unknown>)) contract[k] = v;
    contract.id = c.id;
    for (const method of c.methods) {
      contract[method] = (...args: unknown[]) => running.callContract(c.point, c.id, method, args);
    }
    return { plugin, point: c.point, id: c.id, contract };
  }

  // ---- host operations of one plugin

  #hostOps(m: ThirdPartyManifest, limits: Record<LimitName, number>): HostHandler {
    const name = m.name;
    return hostOperations({
      manifest: m,
      stores: this.#stores,
      quota: { bytes: limits.store_kb * 1024, keys: STORE_KEYS },
      settings: () => this.#settingValues(m, this.#flagsOf(name)),
      publish: (event, payload) => this.#bridge.publish(event, payload),
      gateway: (op) => this.#bridge.gateway(op),
      log: this.deps.logs.logger(`plugin:${name}`),
      takeLogLine: () => this.#takeLogLine(name),
      hostLog: this.#log,
    });
  }

  #takeLogLine(name: string): boolean {
    const minute = Math.floor(Date.now() / 60_000);
    const rate = this.#logRate.get(name);
    if (!rate || rate.minute !== minute) {
      this.#logRate.set(name, { minute, count: 1 });
      return true;
    }
    rate.count++;
    if (rate.count === LOG_LINES_PER_MINUTE + 1) this.#log.warn(`plugin ${name} logs more than ${LOG_LINES_PER_MINUTE} lines a minute; the rest of this minute is dropped`);
    return rate.count <= LOG_LINES_PER_MINUTE;
  }
}

/** A syntax error is refused at install rather than at the next start. */
function checkCompiles(entryName: string, source: string): void {
  const isolate = new ivm.Isolate({ memoryLimit: 16 });
  try {
    isolate.compileModuleSync(source, { filename: entryName });
  } catch (err) {
    throw new ApiError('invalid_entry', 400, `${entryName} does not compile: ${err instanceof Error ? err.message : String(err)}`, { field: 'entry' });
  } finally {
    isolate.dispose();
  }
}

function requestFor(req: RouteRequest, path: string, isPublic: boolean): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const h of isPublic ? [...PASSED_HEADERS, 'authorization'] : PASSED_HEADERS) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string') query[k] = v;
  return {
    method: req.method,
    path,
    params: { ...req.params },
    query,
    headers,
    auth: req.auth ? { key_id: req.auth.keyId, permissions: [...req.auth.permissions] } : null,
    ip: req.ip,
    request_id: req.requestId,
  };
}
