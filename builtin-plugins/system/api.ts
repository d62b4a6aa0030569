/**
 * The `system` service: how feature plugins plug into the system endpoints without the system plugin knowing
 * them. A plugin lists `"requires": ["system"]` in its plugin.json and, in setup:
 *
 *   const system = ctx.services.use<SystemService>('system');
 *   system.registerSyncHandler('contacts', async () => ({ synced: 3 }));
 *   system.registerMetrics('contacts', () => ({ accepted: 12 }));
 *
 * Registrations live for one load generation: a restart reloads every plugin, and each registers again.
 */

export const SYNC_TYPES = ['contacts', 'transactions', 'balances'] as const;
export type SyncType = (typeof SYNC_TYPES)[number];

/** The plugin expected to own each sync type (named in the sync_unavailable error). */
export const SYNC_OWNERS: Readonly<Record<SyncType, string>> = {
  contacts: 'contacts',
  transactions: 'chain',
  balances: 'ledger',
};

/** Runs one kind of sync and returns a JSON-serialisable summary (shown as `results.<type>`). */
/** A sync's result; `report`, when given, is what node-cli prints for people (one line each) instead of the data. */
export type SyncHandler = () => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface AnalyticsReporter {
  /** ISO 8601 time of the last successful submission, or null. */
  lastSubmitted(): string | null;
}

export interface SystemService {
  /** One handler per sync type; registering a type twice is a programming error. */
  registerSyncHandler(type: SyncType, handler: SyncHandler): void;
  /** A section of GET /system/metrics under `plugins.<section>`; called per request, so keep it cheap. */
  registerMetrics(section: string, provider: () => Record<string, unknown>): void;
  /** The analytics plugin reports `last_submitted` of the status `analytics` object through this. */
  registerAnalyticsReporter(reporter: AnalyticsReporter): void;
}
