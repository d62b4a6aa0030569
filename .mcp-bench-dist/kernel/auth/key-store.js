import { randomBytes } from 'node:crypto';
import { decryptAtRest, encryptAtRest } from '../crypto/at-rest.js';
import { ADMIN_SCOPE } from './scopes.js';
export const DEFAULT_RATE_LIMIT = 100;
const toRecord = (r) => ({
    key_id: r.key_id,
    name: r.name,
    permissions: JSON.parse(r.permissions),
    rate_limit_per_minute: r.rate_limit_per_minute,
    enabled: r.enabled === 1,
    created_at: r.created_at,
    last_used_at: r.last_used_at,
    expires_at: r.expires_at,
});
/**
 * API keys. Secrets must be recoverable (the server computes the HMAC), so they are encrypted, not hashed,
 * with a key derived from the node seed and the key id as associated data. Keys are cached decrypted in
 * memory: authentication is on every request's path and must not touch the disk.
 */
export class ApiKeyStore {
    db;
    secretKey;
    prefix;
    #cache = new Map();
    #lastUsed = new Map();
    #extraScopes = new Set();
    constructor(db, secretKey, prefix) {
        this.db = db;
        this.secretKey = secretKey;
        this.prefix = prefix;
        for (const row of db.prepare('SELECT * FROM api_keys').all())
            this.#cacheRow(row);
    }
    registerScopes(scopes) {
        for (const s of scopes)
            this.#extraScopes.add(s);
    }
    knownScopes() {
        return [...this.#extraScopes, ADMIN_SCOPE];
    }
    lookup(keyId) {
        return this.#cache.get(keyId);
    }
    list() {
        return [...this.#cache.values()]
            .map((k) => this.#withLastUsed(k.record))
            .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.key_id.localeCompare(b.key_id));
    }
    get(keyId) {
        const k = this.#cache.get(keyId);
        return k ? this.#withLastUsed(k.record) : null;
    }
    create(input) {
        const keyId = `${this.prefix}_${randomBytes(12).toString('hex')}`;
        const secret = randomBytes(32).toString('hex');
        const row = {
            key_id: keyId,
            name: input.name,
            permissions: JSON.stringify([...new Set(input.permissions)]),
            rate_limit_per_minute: input.rate_limit_per_minute ?? DEFAULT_RATE_LIMIT,
            enabled: 1,
            created_at: new Date().toISOString(),
            last_used_at: null,
            expires_at: input.expires_at ?? null,
            secret_enc: encryptAtRest(this.secretKey, secret, keyId),
        };
        this.db
            .prepare(`INSERT INTO api_keys (key_id, name, permissions, rate_limit_per_minute, enabled, created_at, last_used_at, expires_at, secret_enc)
         VALUES (@key_id, @name, @permissions, @rate_limit_per_minute, @enabled, @created_at, @last_used_at, @expires_at, @secret_enc)`)
            .run(row);
        return { record: this.#cacheRow(row).record, secret };
    }
    setEnabled(keyId, enabled) {
        if (!this.#cache.has(keyId))
            return null;
        this.db.prepare('UPDATE api_keys SET enabled = ? WHERE key_id = ?').run(enabled ? 1 : 0, keyId);
        this.#cacheRow(this.db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId));
        return this.get(keyId);
    }
    remove(keyId) {
        const removed = this.db.prepare('DELETE FROM api_keys WHERE key_id = ?').run(keyId).changes === 1;
        this.#cache.delete(keyId);
        this.#lastUsed.delete(keyId);
        return removed;
    }
    /** Last use is kept in memory and flushed in batches, so authentication never waits on a write. */
    touch(keyId, at) {
        this.#lastUsed.set(keyId, new Date(at).toISOString());
    }
    flushLastUsed() {
        if (this.#lastUsed.size === 0)
            return;
        const update = this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE key_id = ?');
        const entries = [...this.#lastUsed];
        this.db.transaction(() => {
            for (const [keyId, at] of entries)
                update.run(at, keyId);
        })();
        for (const [keyId, at] of entries) {
            const cached = this.#cache.get(keyId);
            if (cached)
                cached.record = { ...cached.record, last_used_at: at };
            if (this.#lastUsed.get(keyId) === at)
                this.#lastUsed.delete(keyId);
        }
    }
    #withLastUsed(record) {
        const pending = this.#lastUsed.get(record.key_id);
        return pending ? { ...record, last_used_at: pending } : { ...record };
    }
    #cacheRow(row) {
        const entry = {
            record: toRecord(row),
            secret: decryptAtRest(this.secretKey, row.secret_enc, row.key_id),
            expiresAtMs: row.expires_at ? Date.parse(row.expires_at) : null,
        };
        this.#cache.set(row.key_id, entry);
        return entry;
    }
}
//# sourceMappingURL=key-store.js.map