import type { Logger } from '../../sdk/index.js';
import { SYNC_TYPES, type AnalyticsReporter, type SyncHandler, type SyncType, type SystemService } from './api.js';

/** What other plugins registered through the `system` service during this load generation. */
export class Extensions {
  readonly #sync = new Map<SyncType, SyncHandler>();
  readonly #metrics = new Map<string, () => Record<string, unknown>>();
  #analytics: AnalyticsReporter | null = null;

  constructor(private readonly log: Logger) {}

  readonly service: SystemService = {
    registerSyncHandler: (type, handler) => {
      if (!SYNC_TYPES.includes(type)) throw new Error(`unknown sync type "${String(type)}"`);
      if (this.#sync.has(type)) throw new Error(`a sync handler for "${type}" is already registered`);
      this.#sync.set(type, handler);
    },
    registerMetrics: (section, provider) => {
      if (this.#metrics.has(section)) throw new Error(`metrics section "${section}" is already registered`);
      this.#metrics.set(section, provider);
    },
    registerAnalyticsReporter: (reporter) => {
      this.#analytics = reporter;
    },
  };

  syncHandler(type: SyncType): SyncHandler | null {
    return this.#sync.get(type) ?? null;
  }

  /** Each registered section; one failing provider shows as an error without hiding the others. */
  metrics(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [section, provider] of this.#metrics) {
      try {
        out[section] = provider();
      } catch (err) {
        this.log.warn(`metrics section ${section} failed`, { error: err instanceof Error ? err.message : String(err) });
        out[section] = { error: 'unavailable' };
      }
    }
    return out;
  }

  analyticsLastSubmitted(): string | null {
    if (!this.#analytics) return null;
    try {
      return this.#analytics.lastSubmitted();
    } catch {
      return null;
    }
  }
}
