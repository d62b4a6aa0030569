import { GroupCommit } from '../db/group-commit.js';
/**
 * Nonces seen inside the signature window, persisted so a restart does not reopen a replay. A row is kept
 * while its request timestamp could still pass the window check; after that the window itself refuses it.
 * Inserts are group-committed; until written, spent nonces are checked in memory. `flush` runs at shutdown,
 * so only a hard crash within one event-loop turn could forget a nonce.
 */
export class NonceStore {
    windowSeconds;
    #seen;
    #insert;
    #prune;
    #writes;
    #pending = new Set();
    constructor(db, windowSeconds) {
        this.windowSeconds = windowSeconds;
        this.#seen = db.prepare('SELECT 1 FROM api_nonces WHERE key_id = ? AND nonce = ?').pluck();
        this.#insert = db.prepare('INSERT OR IGNORE INTO api_nonces (key_id, nonce, ts) VALUES (?, ?, ?)');
        this.#prune = db.prepare('DELETE FROM api_nonces WHERE ts < ?');
        this.#writes = new GroupCommit(db);
    }
    /** Returns false when the nonce was already used by this key. */
    use(keyId, nonce, timestamp) {
        const id = `${keyId}\n${nonce}`;
        if (this.#pending.has(id) || this.#seen.get(keyId, nonce) !== undefined)
            return false;
        this.#pending.add(id);
        this.#writes.add(() => {
            this.#insert.run(keyId, nonce, timestamp);
            this.#pending.delete(id);
        });
        return true;
    }
    flush() {
        this.#writes.flush();
    }
    prune(nowSeconds) {
        this.flush();
        return this.#prune.run(nowSeconds - this.windowSeconds - 1).changes;
    }
}
//# sourceMappingURL=nonces.js.map