import { SYNC_TYPES } from './api.js';
/** What other plugins registered through the `system` service during this load generation. */
export class Extensions {
    log;
    #sync = new Map();
    #metrics = new Map();
    #analytics = null;
    constructor(log) {
        this.log = log;
    }
    service = {
        registerSyncHandler: (type, handler) => {
            if (!SYNC_TYPES.includes(type))
                throw new Error(`unknown sync type "${String(type)}"`);
            if (this.#sync.has(type))
                throw new Error(`a sync handler for "${type}" is already registered`);
            this.#sync.set(type, handler);
        },
        registerMetrics: (section, provider) => {
            if (this.#metrics.has(section))
                throw new Error(`metrics section "${section}" is already registered`);
            this.#metrics.set(section, provider);
        },
        registerAnalyticsReporter: (reporter) => {
            this.#analytics = reporter;
        },
    };
    syncHandler(type) {
        return this.#sync.get(type) ?? null;
    }
    /** Each registered section; one failing provider shows as an error without hiding the others. */
    metrics() {
        const out = {};
        for (const [section, provider] of this.#metrics) {
            try {
                out[section] = provider();
            }
            catch (err) {
                this.log.warn(`metrics section ${section} failed`, { error: err instanceof Error ? err.message : String(err) });
                out[section] = { error: 'unavailable' };
            }
        }
        return out;
    }
    analyticsLastSubmitted() {
        if (!this.#analytics)
            return null;
        try {
            return this.#analytics.lastSubmitted();
        }
        catch {
            return null;
        }
    }
}
//# sourceMappingURL=extensions.js.map