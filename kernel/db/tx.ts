import type { Db } from './open.js';
import type { StorageHealth } from './storage-health.js';

/**
 * The one transaction helper. Work registered with `afterCommit` while `fn` runs (sending the outbox,
 * publishing events) runs only once the transaction has committed, and never if it rolled back.
 * A transaction the disk refuses (full, read-only, failing) rolls back whole and is reported to `storage`.
 */
export class TxRunner {
  #pending: (() => void)[] | null = null;
  /** Built once: better-sqlite3 builds a wrapper and its four variants per `transaction()` call. */
  readonly #transaction;

  constructor(
    db: Db,
    readonly storage: StorageHealth | null = null,
  ) {
    this.#transaction = db.transaction((fn: () => unknown) => fn());
  }

  run<T>(fn: () => T): T {
    if (this.#pending) return fn(); // nested: joins the outer transaction
    const pending: (() => void)[] = [];
    this.#pending = pending;
    let result: T;
    try {
      result = this.#transaction.immediate(fn) as T;
    } catch (err) {
      this.storage?.failed(err);
      throw err;
    } finally {
      this.#pending = null;
    }
    for (const job of pending) queueMicrotask(job);
    return result;
  }

  /**
   * Runs `fn` in a savepoint of the transaction open now (alone, as `run`, when none is): a throw undoes `fn`'s writes
   * and drops the work it queued with `afterCommit`, and the caller's transaction goes on. Without the drop, a cache
   * amended by an undone write would keep the row it never became (sdk/read-cache.ts).
   */
  savepoint<T>(fn: () => T): T {
    const pending = this.#pending;
    if (!pending) return this.run(fn);
    const queued = pending.length;
    try {
      // Inside a transaction, better-sqlite3 runs a transaction function as a savepoint.
      return this.#transaction(fn) as T;
    } catch (err) {
      pending.length = queued;
      throw err;
    }
  }

  afterCommit(fn: () => void): void {
    if (this.#pending) this.#pending.push(fn);
    else queueMicrotask(fn);
  }
}
