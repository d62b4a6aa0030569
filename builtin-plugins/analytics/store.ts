/**
 * The analytics plugin's tables.
 *
 *   analytics_state       one JSON document: what was submitted, when, and the last attempt
 *   analytics_handshakes  currency lines accepted with a contact (the contact handshakes of Document 2), counted in
 *                         `tx_contact_count`. Only this node's database holds them; the report carries a count.
 */
import type { PluginDb } from '../../sdk/index.js';

export interface SubmissionAttempt {
  at: string;
  event: string;
  ok: boolean;
  error: string | null;
}

export interface AnalyticsState {
  /** When node_setup was accepted by the collector; it is sent once per data directory. */
  nodeSetupSentAt: string | null;
  /** The last successful submission of any event (status `last_submitted`). */
  lastSubmitted: string | null;
  lastEvent: string | null;
  /** When the last accepted heartbeat was sent, and the end of the window it covered (ms since the epoch). */
  lastHeartbeatAt: number | null;
  heartbeatCoveredUntil: number | null;
  lastAttempt: SubmissionAttempt | null;
}

const EMPTY: AnalyticsState = {
  nodeSetupSentAt: null,
  lastSubmitted: null,
  lastEvent: null,
  lastHeartbeatAt: null,
  heartbeatCoveredUntil: null,
  lastAttempt: null,
};

const STATE_KEY = 'state';

export class AnalyticsStore {
  readonly #get;
  readonly #set;
  readonly #handshake;
  readonly #forget;
  readonly #handshakesIn;
  readonly #handshakeDays;
  /**
   * The state document as stored, read once: this store is its only writer, and `GET /system/status` shows a field of
   * it on every call (a benchmarked read that touches no file).
   */
  #stored: string | null | undefined;

  constructor(db: PluginDb) {
    db.migrate([
      {
        version: 1,
        up: `
          CREATE TABLE analytics_state (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
          CREATE TABLE analytics_handshakes (
            pubkey_hash TEXT NOT NULL,
            currency_key TEXT NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (pubkey_hash, currency_key)
          ) WITHOUT ROWID;
          CREATE INDEX analytics_handshakes_at ON analytics_handshakes (at);
        `,
      },
    ]);
    const h = db.handle;
    this.#get = h.prepare<[string], { value: string }>('SELECT value FROM analytics_state WHERE key = ?');
    this.#set = h.prepare<[string, string, string]>(
      `INSERT INTO analytics_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    // A line is one handshake however often its acceptance is announced (a replayed or mutual acceptance).
    this.#handshake = h.prepare<[string, string, number]>('INSERT OR IGNORE INTO analytics_handshakes (pubkey_hash, currency_key, at) VALUES (?, ?, ?)');
    this.#forget = h.prepare<[string]>('DELETE FROM analytics_handshakes WHERE pubkey_hash = ?');
    this.#handshakesIn = h.prepare<[number, number], { n: number }>('SELECT COUNT(*) AS n FROM analytics_handshakes WHERE at >= ? AND at < ?');
    this.#handshakeDays = h.prepare<[number, number], { day: string }>(
      `SELECT DISTINCT date(at / 1000, 'unixepoch') AS day FROM analytics_handshakes WHERE at >= ? AND at < ?`,
    );
  }

  state(): AnalyticsState {
    if (this.#stored === undefined) this.#stored = this.#get.get(STATE_KEY)?.value ?? null;
    return this.#stored !== null ? { ...EMPTY, ...(JSON.parse(this.#stored) as Partial<AnalyticsState>) } : { ...EMPTY };
  }

  update(change: Partial<AnalyticsState>): AnalyticsState {
    const next = { ...this.state(), ...change };
    const value = JSON.stringify(next);
    this.#set.run(STATE_KEY, value, new Date().toISOString());
    this.#stored = value;
    return next;
  }

  recordHandshake(pubkeyHash: string, currency: string, at: number): void {
    this.#handshake.run(pubkeyHash, currency.toLowerCase(), at);
  }

  /** A deleted contact's lines go with it: adding it again is a new handshake. */
  forgetContact(pubkeyHash: string): void {
    this.#forget.run(pubkeyHash);
  }

  handshakes(from: number, to: number): { count: number; days: string[] } {
    return {
      count: this.#handshakesIn.get(from, to)!.n,
      days: this.#handshakeDays.all(from, to).map((r) => r.day),
    };
  }
}
