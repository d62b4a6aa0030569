import type { Db } from '../db/open.js';

/**
 * Nonces seen inside the signature window, persisted so a restart does not reopen a replay. A row is kept
 * while its request timestamp could still pass the window check; after that the window itself refuses it.
 *
 * Writes are group-committed: nonces accepted during one turn of the event loop are inserted together in one
 * transaction on the next turn (a commit per request was the largest cost of a signed request). Until then
 * they are checked in memory. `flush` runs at shutdown, so only a hard crash within that one turn could
 * forget a nonce.
 */
export class NonceStore {
  readonly #seen;
  readonly #insert;
  readonly #prune;
  #pending = new Map<string, { keyId: string; nonce: string; ts: number }>();
  #scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly windowSeconds: number,
  ) {
    this.#seen = db.prepare('SELECT 1 FROM api_nonces WHERE key_id = ? AND nonce = ?').pluck();
    this.#insert = db.prepare('INSERT OR IGNORE INTO api_nonces (key_id, nonce, ts) VALUES (?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM api_nonces WHERE ts < ?');
  }

  /** Returns false when the nonce was already used by this key. */
  use(keyId: string, nonce: string, timestamp: number): boolean {
    const id = `${keyId}\n${nonce}`;
    if (this.#pending.has(id) || this.#seen.get(keyId, nonce) !== undefined) return false;
    this.#pending.set(id, { keyId, nonce, ts: timestamp });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.db.transaction(() => {
      for (const n of batch) this.#insert.run(n.keyId, n.nonce, n.ts);
    })();
    this.#pending.clear();
  }

  prune(nowSeconds: number): number {
    this.flush();
    return this.#prune.run(nowSeconds - this.windowSeconds - 1).changes;
  }
}
