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
  {
    version: 2,
    up: `
      CREATE TABLE peer_replay (
        sender TEXT NOT NULL, nonce TEXT NOT NULL, ts INTEGER NOT NULL, PRIMARY KEY (sender, nonce)
      ) WITHOUT ROWID;
      CREATE INDEX peer_replay_ts ON peer_replay (ts);
      CREATE TABLE peer_seen (
        sender TEXT NOT NULL, mid TEXT NOT NULL, reply TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (sender, mid)
      ) WITHOUT ROWID;
      CREATE INDEX peer_seen_at ON peer_seen (at);
      CREATE TABLE peer_outbox (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        target TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX peer_outbox_due ON peer_outbox (status, next_attempt_at);
      CREATE TABLE peer_dlq (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        target TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        retry_count INTEGER NOT NULL,
        recipient_address TEXT,
        failure_reason TEXT,
        added_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX peer_dlq_status ON peer_dlq (status);
      CREATE TABLE peer_tls_pins (address TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, pinned_at TEXT NOT NULL);
    `,
  },
  {
    version: 3,
    up: `
      CREATE TABLE peer_traffic_days (
        day TEXT NOT NULL, direction TEXT NOT NULL, type TEXT NOT NULL, result TEXT NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (day, direction, type, result)
      ) WITHOUT ROWID;
    `,
  },
];
