import { GroupCommit, type GroupCommitWatch } from '../db/group-commit.js';
import type { Db } from '../db/open.js';

/**
 * Nonces seen inside the signature window, persisted so a restart does not reopen a replay. A row is kept
 * while its request timestamp could still pass the window check; after that the window itself refuses it.
 * Inserts are group-committed; until written, spent nonces are checked in memory. `flush` runs at shutdown,
 * so only a hard crash within one event-loop turn could forget a nonce. A batch the disk refuses stays in memory
 * (still refusing replays) and is retried until it commits (docs/decisions.md, "A full disk").
 */
export class NonceStore {
  readonly #seen;
  readonly #insert;
  readonly #prune;
  readonly #writes: GroupCommit;
  #pending = new Set<string>();

  constructor(
    db: Db,
    private readonly windowSeconds: number,
    watch: GroupCommitWatch = {},
  ) {
    this.#seen = db.prepare('SELECT 1 FROM api_nonces WHERE key_id = ? AND nonce = ?').pluck();
    this.#insert = db.prepare('INSERT OR IGNORE INTO api_nonces (key_id, nonce, ts) VALUES (?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM api_nonces WHERE ts < ?');
    this.#writes = new GroupCommit(db, watch);
  }

  /** Returns false when the nonce was already used by this key. */
  use(keyId: string, nonce: string, timestamp: number): boolean {
    const id = `${keyId}\n${nonce}`;
    if (this.#pending.has(id) || this.#seen.get(keyId, nonce) !== undefined) return false;
    this.#pending.add(id);
    this.#writes.add(
      () => this.#insert.run(keyId, nonce, timestamp),
      () => this.#pending.delete(id),
    );
    return true;
  }

  flush(): void {
    this.#writes.flush();
  }

  prune(nowSeconds: number): number {
    this.flush();
    return this.#prune.run(nowSeconds - this.windowSeconds - 1).changes;
  }
}
