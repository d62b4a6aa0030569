import type { Db } from '../db/open.js';

/**
 * Nonces seen inside the signature window, persisted so a restart does not reopen a replay. A row is kept
 * while its request timestamp could still pass the window check; after that the window itself refuses it.
 */
export class NonceStore {
  readonly #insert;
  readonly #prune;

  constructor(
    db: Db,
    private readonly windowSeconds: number,
  ) {
    this.#insert = db.prepare('INSERT OR IGNORE INTO api_nonces (key_id, nonce, ts) VALUES (?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM api_nonces WHERE ts < ?');
  }

  /** Returns false when the nonce was already used by this key. */
  use(keyId: string, nonce: string, timestamp: number): boolean {
    return this.#insert.run(keyId, nonce, timestamp).changes === 1;
  }

  prune(nowSeconds: number): number {
    return this.#prune.run(nowSeconds - this.windowSeconds - 1).changes;
  }
}
