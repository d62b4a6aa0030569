import type { Logger } from '../../sdk/index.js';
import { storageFault } from '../../sdk/storage.js';
import type { Db } from './open.js';
import { storageRetryMs, type StorageHealth } from './storage-health.js';

export interface GroupCommitWatch {
  /** Told of every batch that fails on the disk and of every batch that commits. */
  storage?: StorageHealth | null;
  log?: Logger;
}

/**
 * Batches small writes that must reach the disk but need not block the request that made them: everything
 * queued during one turn of the event loop is written in a single transaction on the next turn. A commit per
 * request was the largest cost of the hot paths that use it (spent nonces, the peer replay cache).
 *
 * A batch the disk refuses (full, read-only, failing) is kept whole, ahead of what is queued after it, and tried again
 * on a backoff until it commits: a write here is never dropped for lack of space, and a flush never throws, since it
 * runs on its own turn of the event loop where a throw would end the process.
 */
interface Entry {
  write: () => void;
  /** Runs once the write has committed (never for a batch rolled back): what must not be forgotten before that. */
  committed?: () => void;
}

export class GroupCommit {
  #queue: Entry[] = [];
  #scheduled = false;
  #retry: NodeJS.Timeout | null = null;
  #failures = 0;
  /** Built once, not per flush. */
  readonly #writeAll;
  readonly #writeOne;

  constructor(
    private readonly db: Db,
    private readonly watch: GroupCommitWatch = {},
  ) {
    this.#writeAll = db.transaction((batch: readonly Entry[]) => {
      for (const entry of batch) entry.write();
    });
    this.#writeOne = db.transaction((entry: Entry) => entry.write());
  }

  add(write: () => void, committed?: () => void): void {
    this.#queue.push(committed ? { write, committed } : { write });
    if (!this.#scheduled && !this.#retry) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what is queued now (shutdown calls it before closing the database). */
  flush(): void {
    this.#scheduled = false;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    // After shutdown closed the database there is nothing left to protect: the node no longer answers.
    if (this.#queue.length === 0 || !this.db.open) return;
    const batch = this.#queue;
    this.#queue = [];
    try {
      this.#writeAll(batch);
    } catch (err) {
      if (this.#refusedByDisk(err)) return this.#keep(batch);
      this.#writeOneByOne(batch, err);
      return;
    }
    this.#committed(batch);
  }

  #committed(batch: readonly Entry[]): void {
    this.#failures = 0;
    this.watch.storage?.wrote();
    for (const entry of batch) entry.committed?.();
  }

  #refusedByDisk(err: unknown): boolean {
    if (!storageFault(err)) return false;
    this.watch.storage?.failed(err);
    return true;
  }

  #keep(batch: Entry[]): void {
    this.#queue = batch.concat(this.#queue);
    this.#retry = setTimeout(() => this.flush(), storageRetryMs(++this.#failures));
    this.#retry.unref();
  }

  /**
   * Not the disk: one of the writes is at fault (a bug). The others still go in, each on its own; the failing one is
   * logged and dropped, as it would fail the same way at every retry.
   */
  #writeOneByOne(batch: Entry[], first: unknown): void {
    this.watch.log?.error('a batched write failed; writing the batch one by one', { error: String(first) });
    for (const [i, entry] of batch.entries()) {
      try {
        this.#writeOne(entry);
      } catch (err) {
        if (this.#refusedByDisk(err)) return this.#keep(batch.slice(i));
        this.watch.log?.error('a batched write was dropped', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
        continue;
      }
      this.#committed([entry]);
    }
  }
}
