import { randomBytes } from 'node:crypto';
import type { ApiKeyRecord, ApiKeysMechanism, NewApiKey } from '../../sdk/index.js';
import type { Db } from '../db/open.js';
import { decryptAtRest, encryptAtRest } from '../crypto/at-rest.js';
import { ADMIN_SCOPE } from './scopes.js';

export const DEFAULT_RATE_LIMIT = 100;

interface Row {
  key_id: string;
  name: string;
  permissions: string;
  rate_limit_per_minute: number;
  enabled: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  secret_enc: string;
}

export interface CachedKey {
  record: ApiKeyRecord;
  secret: Buffer;
  expiresAtMs: number | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  key_id: r.key_id,
  name: r.name,
  permissions: JSON.parse(r.permissions) as string[],
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
export class ApiKeyStore implements ApiKeysMechanism {
  #cache = new Map<string, CachedKey>();
  /** Key id -> when it was last used (ms), formatted only when written or read. */
  #lastUsed = new Map<string, number>();
  #extraScopes = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly secretKey: Buffer,
    private readonly prefix: string,
  ) {
    for (const row of db.prepare('SELECT * FROM api_keys').all() as Row[]) this.#cacheRow(row);
  }

  registerScopes(scopes: readonly string[]): void {
    for (const s of scopes) this.#extraScopes.add(s);
  }

  knownScopes(): string[] {
    return [...this.#extraScopes, ADMIN_SCOPE];
  }

  lookup(keyId: string): CachedKey | undefined {
    return this.#cache.get(keyId);
  }

  list(): ApiKeyRecord[] {
    return [...this.#cache.values()]
      .map((k) => this.#withLastUsed(k.record))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.key_id.localeCompare(b.key_id));
  }

  get(keyId: string): ApiKeyRecord | null {
    const k = this.#cache.get(keyId);
    return k ? this.#withLastUsed(k.record) : null;
  }

  create(input: NewApiKey): { record: ApiKeyRecord; secret: string } {
    const keyId = `${this.prefix}_${randomBytes(12).toString('hex')}`;
    const secret = randomBytes(32).toString('hex');
    const row: Row = {
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
      .prepare(
        `INSERT INTO api_keys (key_id, name, permissions, rate_limit_per_minute, enabled, created_at, last_used_at, expires_at, secret_enc)
         VALUES (@key_id, @name, @permissions, @rate_limit_per_minute, @enabled, @created_at, @last_used_at, @expires_at, @secret_enc)`,
      )
      .run(row);
    return { record: this.#cacheRow(row).record, secret };
  }

  setEnabled(keyId: string, enabled: boolean): ApiKeyRecord | null {
    if (!this.#cache.has(keyId)) return null;
    this.db.prepare('UPDATE api_keys SET enabled = ? WHERE key_id = ?').run(enabled ? 1 : 0, keyId);
    this.#cacheRow(this.db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as Row);
    return this.get(keyId);
  }

  remove(keyId: string): boolean {
    const removed = this.db.prepare('DELETE FROM api_keys WHERE key_id = ?').run(keyId).changes === 1;
    this.#cache.delete(keyId);
    this.#lastUsed.delete(keyId);
    return removed;
  }

  /** Last use is kept in memory and flushed in batches, so authentication never waits on a write. */
  touch(keyId: string, at: number): void {
    this.#lastUsed.set(keyId, at);
  }

  flushLastUsed(): void {
    if (this.#lastUsed.size === 0) return;
    const update = this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE key_id = ?');
    const entries = [...this.#lastUsed];
    this.db.transaction(() => {
      for (const [keyId, at] of entries) update.run(new Date(at).toISOString(), keyId);
    })();
    for (const [keyId, at] of entries) {
      const cached = this.#cache.get(keyId);
      if (cached) cached.record = { ...cached.record, last_used_at: new Date(at).toISOString() };
      if (this.#lastUsed.get(keyId) === at) this.#lastUsed.delete(keyId);
    }
  }

  #withLastUsed(record: ApiKeyRecord): ApiKeyRecord {
    const pending = this.#lastUsed.get(record.key_id);
    return pending !== undefined ? { ...record, last_used_at: new Date(pending).toISOString() } : { ...record };
  }

  #cacheRow(row: Row): CachedKey {
    const entry: CachedKey = {
      record: toRecord(row),
      secret: decryptAtRest(this.secretKey, row.secret_enc, row.key_id),
      expiresAtMs: row.expires_at ? Date.parse(row.expires_at) : null,
    };
    this.#cache.set(row.key_id, entry);
    return entry;
  }
}
