import type { Logger } from '../../sdk/index.js';
import { storageFault, type StorageFault } from '../../sdk/storage.js';

/** First wait before a write is tried again on a failing disk; doubled after each failure up to the ceiling. */
const FIRST_PROBE_MS = 100;
const MAX_PROBE_MS = 2000;

export type HealthReport = { status: 'ok' } | { status: 'degraded'; reason: StorageFault; since: string };

/** The wait before the `attempt`th retry (1-based) of a write that failed for lack of storage. */
export const storageRetryMs = (attempt: number): number => Math.min(MAX_PROBE_MS, FIRST_PROBE_MS * 2 ** Math.max(0, attempt - 1));

/**
 * Whether the node can write to its disk (ARCHITECTURE rule 9: I/O failure is a state). Any write that fails with a
 * storage fault marks the node degraded; while it is, a small probe write is tried on a backoff, and the first write
 * that reaches the disk again (the probe's or any other's) ends the state and tells the listeners, who resume the work
 * they held. Nothing is refused on account of the state: every write is still tried, so the node resumes on its own.
 */
export class StorageHealth {
  #fault: { reason: StorageFault; since: number } | null = null;
  #probes = 0;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #listeners = new Set<() => void>();

  constructor(
    /** A small write that commits, or throws as the failing writes do. */
    private readonly probe: () => void,
    private readonly log: Logger,
  ) {}

  /** Records `err` when it is a storage fault (the node is degraded from now) and returns the fault; null otherwise. */
  failed(err: unknown): StorageFault | null {
    const reason = storageFault(err);
    if (!reason) return null;
    if (!this.#fault) {
      this.#fault = { reason, since: Date.now() };
      this.log.error(`storage failing (${reason}): writes are refused and retried until it recovers`, { error: String((err as Error).message ?? err) });
    } else {
      this.#fault.reason = reason;
    }
    this.#arm();
    return reason;
  }

  /** A write reached the disk. */
  wrote(): void {
    if (!this.#fault) return;
    const downMs = Date.now() - this.#fault.since;
    this.#fault = null;
    this.#probes = 0;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.log.warn('storage writable again', { degraded_ms: downMs });
    for (const fn of this.#listeners) {
      try {
        fn();
      } catch (err) {
        this.log.error('storage recovery listener failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      }
    }
  }

  get degraded(): boolean {
    return this.#fault !== null;
  }

  report(): HealthReport {
    return this.#fault ? { status: 'degraded', reason: this.#fault.reason, since: new Date(this.#fault.since).toISOString() } : { status: 'ok' };
  }

  /** Runs `fn` each time the disk takes writes again after a fault; returns the unsubscribe. */
  onRecovered(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#fault || this.#stopped) return;
      try {
        this.probe();
      } catch (err) {
        if (!this.failed(err)) this.log.error('storage probe failed', { error: String(err) });
        this.#arm();
        return;
      }
      this.wrote();
    }, storageRetryMs(++this.#probes));
    this.#timer.unref();
  }
}
