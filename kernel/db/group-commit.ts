import type { Db } from './open.js';

/**
 * Batches small writes that must reach the disk but need not block the request that made them: everything
 * queued during one turn of the event loop is written in a single transaction on the next turn. A commit per
 * request was the largest cost of the hot paths that use it (spent nonces, the peer replay cache).
 */
export class GroupCommit {
  #queue: (() => void)[] = [];
  #scheduled = false;

  constructor(private readonly db: Db) {}

  add(write: () => void): void {
    this.#queue.push(write);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what is queued now (shutdown calls it before closing the database). */
  flush(): void {
    this.#scheduled = false;
    // After shutdown closed the database there is nothing left to protect: the node no longer answers.
    if (this.#queue.length === 0 || !this.db.open) return;
    const batch = this.#queue;
    this.#queue = [];
    this.db.transaction(() => {
      for (const write of batch) write();
    })();
  }
}
