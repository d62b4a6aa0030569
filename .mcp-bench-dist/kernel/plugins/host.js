import { existsSync, readFileSync } from 'node:fs';
import { ApiError } from '../errors.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { orderByDependencies } from './order.js';
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9-_]{0,63}$/;
/**
 * Hosts builtin plugins: persisted enable flags, dependency order through `requires`/`provides`, and a
 * load/unload cycle that a restart repeats. Enable and disable only persist the flag; they take effect at
 * the next load (POST /system/restart), so a running node never half-changes.
 */
export class PluginHost {
    builtins;
    stateFile;
    publicCeiling;
    makeContext;
    log;
    #flags;
    #loaded = [];
    #running = new Map();
    constructor(builtins, stateFile, publicCeiling, makeContext, log) {
        this.builtins = builtins;
        this.stateFile = stateFile;
        this.publicCeiling = publicCeiling;
        this.makeContext = makeContext;
        this.log = log;
        this.#flags = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : {};
    }
    async load(table) {
        const enabled = this.builtins.filter((p) => this.#isEnabled(p));
        const { ordered, failed } = orderByDependencies(enabled.map((p) => p.manifest));
        this.#running = new Map(this.builtins.map((p) => [p.manifest.name, { enabled: false, error: null }]));
        for (const [name, reason] of failed) {
            this.#running.set(name, { enabled: false, error: reason });
            this.log.error(`plugin ${name} not started: ${reason}`);
        }
        for (const manifest of ordered) {
            const plugin = enabled.find((p) => p.manifest.name === manifest.name);
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
            }
            catch (err) {
                const reason = err instanceof Error ? err.message : String(err);
                this.log.error(`plugin ${manifest.name} failed to start`, { error: reason });
                this.#running.set(manifest.name, { enabled: false, error: reason });
                // Not a shutdown: the node goes on without this plugin, so no stop hook may act as if it were closing.
                await teardown('restart').catch(() => undefined);
                if (manifest.essential)
                    throw err;
            }
        }
    }
    /** Stops loaded plugins in reverse start order (`shutdown` when the node stops, `restart` when they reload). */
    async unload(reason) {
        for (const loaded of this.#loaded.reverse()) {
            await loaded.stop(reason).catch((err) => this.log.error(`plugin ${loaded.name} failed to stop`, { error: String(err) }));
        }
        this.#loaded = [];
    }
    list() {
        return this.builtins.map((p) => this.#row(p)).sort((a, b) => a.name.localeCompare(b.name));
    }
    get(name) {
        const p = this.#find(name);
        return p ? this.#row(p) : null;
    }
    setEnabled(name, enabled) {
        const p = this.#require(name);
        if (!enabled && p.manifest.essential) {
            throw new ApiError('plugin_essential', 400, `Plugin ${name} is essential to the node and cannot be disabled`);
        }
        this.#persist(name, { enabled });
        return this.#row(p);
    }
    setPublicRoutes(name, enabled) {
        const p = this.#require(name);
        this.#persist(name, { public_routes: enabled });
        return this.#row(p);
    }
    remove(name) {
        const p = this.#require(name);
        if (this.#isEnabled(p))
            throw new ApiError('plugin_enabled', 400, `Disable plugin ${name} before deleting it`);
        throw new ApiError('plugin_builtin', 400, `Plugin ${name} is built into the node and cannot be deleted; it stays disabled`);
    }
    publicRoutesAllowed() {
        return this.publicCeiling === 'allow';
    }
    /** Public routes are served only while the ceiling allows, the plugin runs and its own switch is on. */
    publicRoutesOpen(name) {
        const p = this.#find(name);
        return !!p && this.publicRoutesAllowed() && this.#running.get(name)?.enabled === true && this.#publicSwitch(p);
    }
    #providedByRunning(service) {
        return this.builtins.some((p) => this.#running.get(p.manifest.name)?.enabled && (p.manifest.provides ?? []).includes(service));
    }
    #row(p) {
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
    #isEnabled(p) {
        if (p.manifest.essential)
            return true;
        return this.#flags[p.manifest.name]?.enabled ?? p.manifest.enabled_by_default ?? false;
    }
    #publicSwitch(p) {
        return this.#flags[p.manifest.name]?.public_routes ?? true;
    }
    #find(name) {
        return this.builtins.find((p) => p.manifest.name === name);
    }
    #require(name) {
        if (!PLUGIN_NAME.test(name))
            throw new ApiError('invalid_name', 400, `Invalid plugin name: ${name}`);
        const p = this.#find(name);
        if (!p)
            throw new ApiError('unknown_plugin', 404, `Plugin not found: ${name}`);
        return p;
    }
    #persist(name, change) {
        const p = this.#require(name);
        const next = {
            ...this.#flags,
            [name]: { enabled: this.#isEnabled(p), public_routes: this.#publicSwitch(p), ...change },
        };
        try {
            writeFileAtomic(this.stateFile, JSON.stringify(next, null, 2) + '\n');
        }
        catch {
            throw new ApiError('persist_failed', 500, 'Plugin state could not be written');
        }
        this.#flags = next;
    }
}
//# sourceMappingURL=host.js.map