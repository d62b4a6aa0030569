import { GroupCommit, type GroupCommitWatch } from '../db/group-commit.js';
import type { Db } from '../db/open.js';

/** Spent nonces remembered in memory (about 100 bytes each); past this, the oldest committed ones are left to the table. */
export const REMEMBERED_NONCES = 100_000;

/** Rows per INSERT, largest first: a batch goes in as few statements as these sizes allow (a statement per row cost more than the rows). */
const ROWS_PER_INSERT = [32, 8, 1] as const;

/**
 * Nonces seen inside the signature window, persisted so a restart does not reopen a replay. A row is kept
 * while its request timestamp could still pass the window check; after that the window itself refuses it.
 *
 * Checked in memory: every nonce this process spent is remembered until its timestamp leaves the window, so the table
 * is read only for what memory does not hold, the nonces an earlier run spent (until they leave the window) and any
 * the memory bound let go. Inserts are group-committed, one batch per event-loop turn; `flush` runs at shutdown, so
 * only a hard crash within one turn could forget a nonce. A batch the disk refuses stays queued (still refused from
 * memory) and is retried until it commits (docs/decisions.md, "A full disk"); memory lets a nonce go only once
 * committed.
 */
export class NonceStore {
  readonly #seen;
  /** One statement per size of ROWS_PER_INSERT, in the same order. */
  readonly #inserts;
  readonly #prune;
  readonly #writes: GroupCommit;
  /** `key id \n nonce` -> request timestamp, in the order spent. */
  readonly #spent = new Map<string, number>();
  /** The newest entries of #spent not committed yet (batches commit in order). */
  #uncommitted = 0;
  /** Rows spent this turn, written by the batch queued for them: key id, nonce, timestamp, ... */
  #batch: (string | number)[] | null = null;
  /** Until when (Unix seconds) the table may hold a spent nonce that memory does not. */
  #tableUntil: number;

  constructor(
    db: Db,
    private readonly windowSeconds: number,
    watch: GroupCommitWatch = {},
    private readonly remembered = REMEMBERED_NONCES,
  ) {
    this.#seen = db.prepare('SELECT 1 FROM api_nonces WHERE key_id = ? AND nonce = ?').pluck();
    this.#inserts = ROWS_PER_INSERT.map((n) =>
      db.prepare(`INSERT OR IGNORE INTO api_nonces (key_id, nonce, ts) VALUES ${Array.from({ length: n }, () => '(?, ?, ?)').join(', ')}`),
    );
    this.#prune = db.prepare('DELETE FROM api_nonces WHERE ts < ?');
    this.#writes = new GroupCommit(db, watch);
    const newest = db.prepare('SELECT MAX(ts) FROM api_nonces').pluck().get() as number | null;
    this.#tableUntil = newest === null ? -Infinity : this.#expiry(newest);
  }

  /** Returns false when the nonce was already used by this key. */
  use(keyId: string, nonce: string, timestamp: number, nowSeconds: number): boolean {
    const id = `${keyId}\n${nonce}`;
    if (this.#spent.has(id)) return false;
    if (nowSeconds <= this.#tableUntil && this.#seen.get(keyId, nonce) !== undefined) return false;
    this.#spent.set(id, timestamp);
    this.#uncommitted++;
    if (!this.#batch) this.#queueBatch();
    this.#batch!.push(keyId, nonce, timestamp);
    if (this.#spent.size > this.remembered) this.#forgetOldest();
    return true;
  }

  flush(): void {
    this.#writes.flush();
  }

  prune(nowSeconds: number): number {
    this.flush();
    const cutoff = nowSeconds - this.windowSeconds - 1;
    let committed = this.#spent.size - this.#uncommitted;
    for (const [id, ts] of this.#spent) {
      if (committed-- <= 0) break;
      if (ts < cutoff) this.#spent.delete(id);
    }
    return this.#prune.run(cutoff).changes;
  }

  /** The last second a nonce spent with this request timestamp can still come back inside the window. */
  #expiry(timestamp: number): number {
    return timestamp + this.windowSeconds + 1;
  }

  /** One write per turn for every nonce spent in it: rewritten whole if retried (`OR IGNORE` makes that harmless). */
  #queueBatch(): void {
    const rows: (string | number)[] = (this.#batch = []);
    this.#writes.add(
      () => {
        if (this.#batch === rows) this.#batch = null;
        let at = 0;
        ROWS_PER_INSERT.forEach((n, i) => {
          for (; at + 3 * n <= rows.length; at += 3 * n) this.#inserts[i]!.run(rows.slice(at, at + 3 * n));
        });
      },
      () => (this.#uncommitted -= rows.length / 3),
    );
  }

  /** Memory is full: the oldest committed nonces are left to the table, which is then read until they expire. */
  #forgetOldest(): void {
    let committed = this.#spent.size - this.#uncommitted;
    let excess = this.#spent.size - Math.floor(this.remembered * 0.9);
    for (const [id, ts] of this.#spent) {
      if (excess-- <= 0 || committed-- <= 0) break;
      this.#spent.delete(id);
      this.#tableUntil = Math.max(this.#tableUntil, this.#expiry(ts));
    }
  }
}
