import { migrate } from '../../db/migrations.js';
import type { Db } from '../../db/open.js';
import { ApiError } from '../../errors.js';

export const MAX_KEY_CHARS = 256;
export const MAX_VALUE_BYTES = 64 * 1024;
export const LIST_LIMIT = 1000;

export interface StoreQuota {
  bytes: number;
  keys: number;
}

export interface StoreUsage {
  bytes: number;
  keys: number;
}

/**
 * The key-value stores of sandboxed plugins: one table, every row owned by a plugin by name, so a plugin can only
 * ever name its own rows (the host adds the name; the plugin cannot pass another). Values are JSON text. A row
 * counts its key and value bytes against the plugin's quota.
 */
export class SandboxStores {
  readonly #get;
  readonly #upsert;
  readonly #delete;
  readonly #list;
  readonly #usage;
  readonly #drop;
  readonly #size;
  /** Usage per plugin, read once from the table and kept in step with every write. */
  readonly #cache = new Map<string, StoreUsage>();

  constructor(db: Db) {
    migrate(db, 'kernel:sandbox', [
      {
        version: 1,
        up: `CREATE TABLE sandbox_kv (
          plugin TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, bytes INTEGER NOT NULL,
          PRIMARY KEY (plugin, key)
        ) WITHOUT ROWID`,
      },
    ]);
    this.#get = db.prepare('SELECT value FROM sandbox_kv WHERE plugin = ? AND key = ?');
    this.#size = db.prepare('SELECT bytes FROM sandbox_kv WHERE plugin = ? AND key = ?');
    this.#upsert = db.prepare(
      'INSERT INTO sandbox_kv (plugin, key, value, bytes) VALUES (?, ?, ?, ?) ON CONFLICT (plugin, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes',
    );
    this.#delete = db.prepare('DELETE FROM sandbox_kv WHERE plugin = ? AND key = ?');
    this.#list = db.prepare('SELECT key FROM sandbox_kv WHERE plugin = ? AND key >= ? AND key > ? ORDER BY key LIMIT ?');
    this.#usage = db.prepare('SELECT COALESCE(SUM(bytes), 0) AS bytes, COUNT(*) AS keys FROM sandbox_kv WHERE plugin = ?');
    this.#drop = db.prepare('DELETE FROM sandbox_kv WHERE plugin = ?');
  }

  usage(plugin: string): StoreUsage {
    let u = this.#cache.get(plugin);
    if (!u) {
      const row = this.#usage.get(plugin) as { bytes: number; keys: number };
      u = { bytes: row.bytes, keys: row.keys };
      this.#cache.set(plugin, u);
    }
    return { ...u };
  }

  get(plugin: string, key: unknown): string | null {
    const row = this.#get.get(plugin, checkKey(key)) as { value: string } | undefined;
    return row?.value ?? null;
  }

  set(plugin: string, key: unknown, valueJson: string, quota: StoreQuota): void {
    const k = checkKey(key);
    const valueBytes = Buffer.byteLength(valueJson);
    if (valueBytes > MAX_VALUE_BYTES) throw new ApiError('value_too_large', 400, `A stored value is at most ${MAX_VALUE_BYTES} bytes of JSON`);
    const bytes = Buffer.byteLength(k) + valueBytes;
    const old = this.#size.get(plugin, k) as { bytes: number } | undefined;
    const u = this.usage(plugin);
    const next = { bytes: u.bytes - (old?.bytes ?? 0) + bytes, keys: u.keys + (old ? 0 : 1) };
    if (next.bytes > quota.bytes || next.keys > quota.keys) {
      throw new ApiError(
        'quota_exceeded',
        507,
        `The plugin's store is full: ${u.bytes} of ${quota.bytes} bytes and ${u.keys} of ${quota.keys} keys used`,
      );
    }
    this.#upsert.run(plugin, k, valueJson, bytes);
    this.#cache.set(plugin, next);
  }

  delete(plugin: string, key: unknown): boolean {
    const k = checkKey(key);
    const old = this.#size.get(plugin, k) as { bytes: number } | undefined;
    if (!old) return false;
    this.#delete.run(plugin, k);
    const u = this.usage(plugin);
    this.#cache.set(plugin, { bytes: u.bytes - old.bytes, keys: u.keys - 1 });
    return true;
  }

  list(plugin: string, prefix: unknown, after: unknown, limit: unknown): string[] {
    const p = prefix === undefined || prefix === null ? '' : typeof prefix === 'string' ? prefix : checkKey(prefix);
    const a = after === undefined || after === null ? '' : checkKey(after);
    const n = Number.isInteger(limit) && (limit as number) > 0 ? Math.min(limit as number, LIST_LIMIT) : LIST_LIMIT;
    const keys: string[] = [];
    // Keys with a prefix sort together: stop at the first one past it.
    for (const row of this.#list.iterate(plugin, p, a, n) as Iterable<{ key: string }>) {
      if (!row.key.startsWith(p)) break;
      keys.push(row.key);
    }
    return keys;
  }

  /** Deletes everything a plugin stored (uninstall). */
  drop(plugin: string): void {
    this.#drop.run(plugin);
    this.#cache.delete(plugin);
  }
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_CHARS) {
    throw new ApiError('invalid_key', 400, `A store key is a string of 1-${MAX_KEY_CHARS} characters`);
  }
  return key;
}
