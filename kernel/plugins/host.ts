import { existsSync, readFileSync } from 'node:fs';
import type {
  BuiltinPlugin,
  Logger,
  PluginBundle,
  PluginContext,
  PluginHostMechanism,
  PluginStatusRow,
  StopReason,
} from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import { writeFileAtomic } from '../fs-atomic.js';
import type { RouteTable } from '../http/route-table.js';
import { orderByDependencies } from './order.js';
import type { SandboxFlags, SandboxHost } from './sandbox/host.js';

export const PLUGIN_NAME = /^[a-z0-9][a-z0-9-_]{0,63}$/;

export type { BuiltinPlugin } from '../../sdk/index.js';

interface FlagState {
  enabled: boolean;
  public_routes: boolean;
  /** Third-party plugins: the operator's limits and setting values. */
  limits?: SandboxFlags['limits'];
  settings?: SandboxFlags['settings'];
}

interface Loaded {
  name: string;
  stop: (reason: StopReason) => Promise<void>;
}

/** Builds a plugin's context for one load; `teardown` undoes everything the plugin registered. */
export type ContextFactory = (
  plugin: BuiltinPlugin,
  table: RouteTable,
) => { ctx: PluginContext; teardown: (reason: StopReason) => Promise<void> };

/**
 * Hosts builtin plugins: persisted enable flags, dependency order through `requires`/`provides`, and a
 * load/unload cycle that a restart repeats. Enable and disable only persist the flag; they take effect at
 * the next load (POST /system/restart), so a running node never half-changes; on a development node a third-party
 * plugin, which no other plugin requires, starts and stops at once (applyNow). Third-party plugins (the
 * sandbox host) share the flags, the rows and the cycle: they start after every builtin plugin, whose offers
 * (gateway operations, extension points) they use.
 */
export class PluginHost implements PluginHostMechanism {
  #flags: Record<string, FlagState>;
  #loaded: Loaded[] = [];
  #running = new Map<string, { enabled: boolean; error: string | null }>();

  constructor(
    private readonly builtins: readonly BuiltinPlugin[],
    private readonly stateFile: string,
    private readonly publicCeiling: 'allow' | 'deny',
    private readonly makeContext: ContextFactory,
    private readonly log: Logger,
    private readonly sandbox: SandboxHost | null = null,
  ) {
    this.#flags = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, FlagState>) : {};
    sandbox?.attach({
      get: (name) => this.#thirdPartyFlags(name),
      update: (name, change) => this.#write({ ...this.#flags, [name]: { ...this.#thirdPartyFlags(name), ...change } }),
      drop: (name) => {
        const next = { ...this.#flags };
        delete next[name];
        this.#write(next);
      },
    }, (name) => !!this.#find(name));
  }

  async load(table: RouteTable): Promise<void> {
    this.sandbox?.beginGeneration();
    const enabled = this.builtins.filter((p) => this.#isEnabled(p));
    const { ordered, failed } = orderByDependencies(enabled.map((p) => p.manifest));
    this.#running = new Map(this.builtins.map((p) => [p.manifest.name, { enabled: false, error: null }]));
    for (const [name, reason] of failed) {
      this.#running.set(name, { enabled: false, error: reason });
      this.log.error(`plugin ${name} not started: ${reason}`);
    }
    for (const manifest of ordered) {
      const plugin = enabled.find((p) => p.manifest.name === manifest.name)!;
      const missing = (manifest.requires ?? []).filter((s) => !this.#providedByRunning(s));
      if (missing.length) {
        this.#running.set(manifest.name, { enabled: false, error: `required service unavailable: ${missing.join(', ')}` });
        continue;
      }
      const { ctx, teardown } = this.makeContext(plugin, table);
      try {
        await plugin.definition.setup(ctx);
        this.#loaded.push({ name: manifest.name, stop: teardown });
        this.#running.set(manifest.name, { enabled: true, error: null });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        this.log.error(`plugin ${manifest.name} failed to start`, { error: reason });
        this.#running.set(manifest.name, { enabled: false, error: reason });
        // Not a shutdown: the node goes on without this plugin, so no stop hook may act as if it were closing.
        await teardown('restart').catch(() => undefined);
        if (manifest.essential) throw err;
      }
    }
    await this.sandbox?.load(table);
  }

  /** Stops loaded plugins in reverse start order (`shutdown` when the node stops, `restart` when they reload). */
  async unload(reason: StopReason): Promise<void> {
    await this.sandbox?.unload();
    for (const loaded of this.#loaded.reverse()) {
      await loaded.stop(reason).catch((err: unknown) => this.log.error(`plugin ${loaded.name} failed to stop`, { error: String(err) }));
    }
    this.#loaded = [];
  }

  list(): PluginStatusRow[] {
    const builtin = this.builtins.map((p) => this.#row(p));
    // A folder named like a builtin plugin never runs (install refuses the name); the builtin's row stands.
    const thirdParty = (this.sandbox?.rows() ?? []).filter((r) => !this.#find(r.name));
    return [...builtin, ...thirdParty].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): PluginStatusRow | null {
    const p = this.#find(name);
    return p ? this.#row(p) : (this.sandbox?.row(name) ?? null);
  }

  setEnabled(name: string, enabled: boolean): PluginStatusRow {
    const p = this.#require(name);
    if (!p) {
      if (enabled) this.sandbox!.checkEnable(name);
      this.#persist(name, { enabled });
      return this.sandbox!.row(name)!;
    }
    if (!enabled && p.manifest.essential) {
      throw new ApiError('plugin_essential', 400, `Plugin ${name} is essential to the node and cannot be disabled`);
    }
    this.#persist(name, { enabled });
    return this.#row(p);
  }

  setPublicRoutes(name: string, enabled: boolean): PluginStatusRow {
    const p = this.#require(name);
    this.#persist(name, { public_routes: enabled });
    return p ? this.#row(p) : this.sandbox!.row(name)!;
  }

  remove(name: string): void {
    const p = this.#require(name);
    if (!p) return this.sandbox!.remove(name);
    if (this.#isEnabled(p)) throw new ApiError('plugin_enabled', 400, `Disable plugin ${name} before deleting it`);
    throw new ApiError('plugin_builtin', 400, `Plugin ${name} is built into the node and cannot be deleted; it stays disabled`);
  }

  install(bundle: PluginBundle): PluginStatusRow {
    if (!this.sandbox) throw new ApiError('plugin_loader_unavailable', 500, 'Third-party plugins are not available on this node');
    const name = this.sandbox.install(bundle, (n) => !!this.#find(n));
    return this.sandbox.row(name)!;
  }

  async applyNow(name: string): Promise<PluginStatusRow | null> {
    if (this.#find(name) || !this.sandbox?.devMode) return null;
    await this.sandbox.applyNow(name);
    return this.sandbox.row(name);
  }

  async devLoad(bundle: PluginBundle): Promise<PluginStatusRow> {
    if (!this.sandbox?.devMode) {
      throw new ApiError('dev_mode_required', 400, 'node-cli plugin dev needs a node started with NODE_PLUGINS_DEV_MODE=true (a development node)');
    }
    const name = this.sandbox.install({ ...bundle, replace: true }, (n) => !!this.#find(n), true);
    this.#persist(name, { enabled: true });
    await this.sandbox.applyNow(name);
    return this.sandbox.row(name)!;
  }

  setLimits(name: string, limits: { memory_mb?: number | null; cpu_ms?: number | null; store_kb?: number | null }): PluginStatusRow {
    if (this.#require(name)) throw new ApiError('plugin_builtin', 400, `Plugin ${name} is builtin: it runs in the node's process, without sandbox limits`);
    this.sandbox!.setLimits(name, limits);
    return this.sandbox!.row(name)!;
  }

  setSettings(name: string, values: Record<string, unknown>): PluginStatusRow {
    if (this.#require(name)) throw new ApiError('plugin_builtin', 400, `Plugin ${name} is builtin: its settings are node settings (PUT /api/v1/system/settings)`);
    this.sandbox!.setSettings(name, values);
    return this.sandbox!.row(name)!;
  }

  publicRoutesAllowed(): boolean {
    return this.publicCeiling === 'allow';
  }

  /** Public routes are served only while the ceiling allows, the plugin runs and its own switch is on. */
  publicRoutesOpen(name: string): boolean {
    if (!this.publicRoutesAllowed()) return false;
    const p = this.#find(name);
    if (!p) return !!this.sandbox?.isServing(name) && (this.#flags[name]?.public_routes ?? true);
    return this.#running.get(name)?.enabled === true && this.#publicSwitch(p);
  }

  #providedByRunning(service: string): boolean {
    return this.builtins.some((p) => this.#running.get(p.manifest.name)?.enabled && (p.manifest.provides ?? []).includes(service));
  }

  #row(p: BuiltinPlugin): PluginStatusRow {
    const m = p.manifest;
    const enabled = this.#isEnabled(p);
    const running = this.#running.get(m.name);
    const status = running?.error
      ? 'failed'
      : running && running.enabled !== enabled
        ? 'restart_pending'
        : enabled
          ? 'active'
          : 'disabled';
    return {
      name: m.name,
      version: m.version,
      enabled,
      status,
      license: m.license ?? null,
      author: m.author ?? null,
      homepage: m.homepage ?? null,
      has_changelog: m.has_changelog ?? false,
      description: m.description ?? null,
      builtin: true,
      essential: m.essential ?? false,
      public_routes: m.public_routes ?? [],
      public_routes_enabled: this.#publicSwitch(p),
      error: running?.error ?? null,
    };
  }

  #isEnabled(p: BuiltinPlugin): boolean {
    if (p.manifest.essential) return true;
    return this.#flags[p.manifest.name]?.enabled ?? p.manifest.enabled_by_default ?? false;
  }

  #publicSwitch(p: BuiltinPlugin): boolean {
    return this.#flags[p.manifest.name]?.public_routes ?? true;
  }

  #find(name: string): BuiltinPlugin | undefined {
    return this.builtins.find((p) => p.manifest.name === name);
  }

  /** The builtin plugin of that name, or null for an installed third-party one; throws for neither. */
  #require(name: string): BuiltinPlugin | null {
    if (!PLUGIN_NAME.test(name)) throw new ApiError('invalid_name', 400, `Invalid plugin name: ${name}`);
    const p = this.#find(name);
    if (p) return p;
    if (this.sandbox?.has(name)) return null;
    throw new ApiError('unknown_plugin', 404, `Plugin not found: ${name}`);
  }

  #persist(name: string, change: Partial<FlagState>): void {
    const p = this.#require(name);
    const current: FlagState = p
      ? { enabled: this.#isEnabled(p), public_routes: this.#publicSwitch(p) }
      : this.#thirdPartyFlags(name);
    this.#write({ ...this.#flags, [name]: { ...current, ...change } });
  }

  /** A third-party plugin is disabled until enabled, and its public-routes switch is on, as a builtin's. */
  #thirdPartyFlags(name: string): FlagState {
    return this.#flags[name] ?? { enabled: false, public_routes: true };
  }

  #write(next: Record<string, FlagState>): void {
    try {
      writeFileAtomic(this.stateFile, JSON.stringify(next, null, 2) + '\n');
    } catch {
      throw new ApiError('persist_failed', 500, 'Plugin state could not be written');
    }
    this.#flags = next;
  }
}
