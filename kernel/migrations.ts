import type { Migration } from '../sdk/index.js';

/** The kernel's own tables: API keys and the nonces of the signature window. */
export const kernelMigrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE api_keys (
        key_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        permissions TEXT NOT NULL,
        rate_limit_per_minute INTEGER NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        expires_at TEXT,
        secret_enc TEXT NOT NULL
      );
      CREATE TABLE api_nonces (
        key_id TEXT NOT NULL,
        nonce TEXT NOT NULL,
        ts INTEGER NOT NULL,
        PRIMARY KEY (key_id, nonce)
      ) WITHOUT ROWID;
      CREATE INDEX api_nonces_ts ON api_nonces (ts);
      CREATE TABLE kernel_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
];
