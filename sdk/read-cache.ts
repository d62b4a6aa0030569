/**
 * Rows of a plugin's tables kept between writes, for lookups a hot path repeats: the contacts plugin's contacts and
 * lines (a routed payment looks the same few up a dozen times on every node it crosses), mcp-passthrough's customer
 * keys (every call authenticates one and settles on it).
 *
 * What it keeps is only ever what a committed database holds:
 *   - every write to the tables forgets, before it runs, every kept lookup it can change (`written`): all of them,
 *     unless the write says which (a line's own fields change that line's lookups only); a write that knows how it
 *     changes them keeps them again, changed, once its transaction has committed (`amended`);
 *   - inside a transaction that wrote to them, reads go to the database and are not kept, since that transaction may
 *     still roll back; once it has ended, reads keep rows again.
 * The store hands out new objects made from a kept row, never the row itself, so no caller can change it.
 */
import type { Database } from 'better-sqlite3';

/** Rows kept at most; beyond, everything is forgotten (lookups of keys nobody knows must not grow it without end). */
const MAX_ROWS = 4096;

export class ReadCache {
  readonly #rows = new Map<string, unknown>();
  /** A write happened in the transaction that may still be open. */
  #written = false;
  /** A microtask is queued to clear `#written` once that transaction has ended. */
  #ending = false;
  /** Writes announced so far (`written`): what `keep` checks that nothing was written since. */
  #writes = 0;

  /**
   * `afterCommit` (the plugin's `ctx.db.afterCommit`) runs work once the transaction open now has committed, never after
   * a rollback: with it, `amended` keeps rows a write changed in a known way; without it, they are read again.
   */
  constructor(
    private readonly db: Database,
    private readonly afterCommit?: (fn: () => void) => void,
  ) {}

  read<T>(key: string, load: () => T): T {
    if (this.db.inTransaction) {
      if (this.#written) return load();
    } else this.#written = false;
    if (this.#rows.has(key)) return this.#rows.get(key) as T;
    const row = load();
    if (this.#rows.size >= MAX_ROWS) this.#rows.clear();
    this.#rows.set(key, row);
    return row;
  }

  /**
   * Keeps `row` as the committed value of `key`, without a read, once the write that made it has committed: `asOf` is
   * the count of writes right after that write. Inside a transaction, or after any later write, it keeps nothing.
   */
  #keep(key: string, row: unknown, asOf: number): void {
    if (this.db.inTransaction || asOf !== this.#writes) return;
    this.#written = false;
    if (this.#rows.size >= MAX_ROWS) this.#rows.clear();
    this.#rows.set(key, row);
  }

  /** The row kept for `key`, if any (not read on a miss). */
  peek(key: string): unknown {
    return this.#rows.get(key);
  }

  /**
   * Called by every write to the tables, before it runs. `affects` names the kept lookups the write can change;
   * without it, all of them go.
   */
  written(affects?: (key: string) => boolean): void {
    if (!affects) this.#rows.clear();
    else this.#forget(affects);
    this.#announce();
  }

  /**
   * Called instead of `written` by a write whose change to the kept lookups it names is known: they are forgotten now,
   * and once the transaction commits, each is kept again as `change` makes it (undefined: it stays forgotten), unless
   * another write came in between. A payment records its contact's credit this way, and the next payment's lookups
   * of that line read no row.
   */
  amended(affects: (key: string) => boolean, change: (key: string, row: unknown) => unknown): void {
    const before = this.#forget(affects);
    this.#announce();
    if (!this.afterCommit || before.length === 0) return;
    const asOf = this.#writes;
    this.afterCommit(() => {
      for (const [key, row] of before) {
        const next = change(key, row);
        if (next !== undefined) this.#keep(key, next, asOf);
      }
    });
  }

  /** Drops the kept lookups `affects` names; returns them as they were. */
  #forget(affects: (key: string) => boolean): [string, unknown][] {
    const dropped: [string, unknown][] = [];
    for (const [key, row] of this.#rows) {
      if (!affects(key)) continue;
      dropped.push([key, row]);
      this.#rows.delete(key);
    }
    return dropped;
  }

  #announce(): void {
    this.#writes++;
    this.#written = true;
    if (this.#ending) return;
    this.#ending = true;
    // A transaction of better-sqlite3 runs to its end within one call, so it has committed or rolled back by the next
    // microtask: reads may be kept again from then on, also on a hot path that only ever reads inside transactions.
    queueMicrotask(() => {
      this.#ending = false;
      if (!this.db.inTransaction) this.#written = false;
    });
  }
}
