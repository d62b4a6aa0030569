import { existsSync, readFileSync } from 'node:fs';
import type {
  Logger,
  PluginContext,
  PluginDefinition,
  PluginHostMechanism,
  PluginManifest,
  PluginStatusRow,
  StopReason,
} from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import { writeFileAtomic } from '../fs-atomic.js';
import type { RouteTable } from '../http/route-table.js';
import { orderByDependencies } from './order.js';

export const PLUGIN_NAME = /^[a-z0-9][a-z0-9-_]{0,63}$/;

export interface BuiltinPlugin {
  manifest: PluginManifest;
  definition: PluginDefinition;
}

interface FlagState {
  enabled: boolean;
  public_routes: boolean;
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
 * the next load (POST /system/restart), so a running node never half-changes.
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
  ) {
    this.#flags = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, FlagState>) : {};
  }

  async load(table: RouteTable): Promise<void> {
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
  }

  /** Stops loaded plugins in reverse start order (`shutdown` when the node stops, `restart` when they reload). */
  async unload(reason: StopReason): Promise<void> {
    for (const loaded of this.#loaded.reverse()) {
      await loaded.stop(reason).catch((err: unknown) => this.log.error(`plugin ${loaded.name} failed to stop`, { error: String(err) }));
    }
    this.#loaded = [];
  }

  list(): PluginStatusRow[] {
    return this.builtins.map((p) => this.#row(p)).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): PluginStatusRow | null {
    const p = this.#find(name);
    return p ? this.#row(p) : null;
  }

  setEnabled(name: string, enabled: boolean): PluginStatusRow {
    const p = this.#require(name);
    if (!enabled && p.manifest.essential) {
      throw new ApiError('plugin_essential', 400, `Plugin ${name} is essential to the node and cannot be disabled`);
    }
    this.#persist(name, { enabled });
    return this.#row(p);
  }

  setPublicRoutes(name: string, enabled: boolean): PluginStatusRow {
    const p = this.#require(name);
    this.#persist(name, { public_routes: enabled });
    return this.#row(p);
  }

  remove(name: string): void {
    const p = this.#require(name);
    if (this.#isEnabled(p)) throw new ApiError('plugin_enabled', 400, `Disable plugin ${name} before deleting it`);
    throw new ApiError('plugin_builtin', 400, `Plugin ${name} is built into the node and cannot be deleted; it stays disabled`);
  }

  publicRoutesAllowed(): boolean {
    return this.publicCeiling === 'allow';
  }

  /** Public routes are served only while the ceiling allows, the plugin runs and its own switch is on. */
  publicRoutesOpen(name: string): boolean {
    const p = this.#find(name);
    return !!p && this.publicRoutesAllowed() && this.#running.get(name)?.enabled === true && this.#publicSwitch(p);
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

  #require(name: string): BuiltinPlugin {
    if (!PLUGIN_NAME.test(name)) throw new ApiError('invalid_name', 400, `Invalid plugin name: ${name}`);
    const p = this.#find(name);
    if (!p) throw new ApiError('unknown_plugin', 404, `Plugin not found: ${name}`);
    return p;
  }

  #persist(name: string, change: Partial<FlagState>): void {
    const p = this.#require(name);
    const next = {
      ...this.#flags,
      [name]: { enabled: this.#isEnabled(p), public_routes: this.#publicSwitch(p), ...change },
    };
    try {
      writeFileAtomic(this.stateFile, JSON.stringify(next, null, 2) + '\n');
    } catch {
      throw new ApiError('persist_failed', 500, 'Plugin state could not be written');
    }
    this.#flags = next;
  }
}
