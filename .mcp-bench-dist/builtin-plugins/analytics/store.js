const EMPTY = {
    nodeSetupSentAt: null,
    lastSubmitted: null,
    lastEvent: null,
    lastHeartbeatAt: null,
    heartbeatCoveredUntil: null,
    lastAttempt: null,
};
const STATE_KEY = 'state';
export class AnalyticsStore {
    #get;
    #set;
    #handshake;
    #forget;
    #handshakesIn;
    #handshakeDays;
    constructor(db) {
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
        this.#get = h.prepare('SELECT value FROM analytics_state WHERE key = ?');
        this.#set = h.prepare(`INSERT INTO analytics_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
        // A line is one handshake however often its acceptance is announced (a replayed or mutual acceptance).
        this.#handshake = h.prepare('INSERT OR IGNORE INTO analytics_handshakes (pubkey_hash, currency_key, at) VALUES (?, ?, ?)');
        this.#forget = h.prepare('DELETE FROM analytics_handshakes WHERE pubkey_hash = ?');
        this.#handshakesIn = h.prepare('SELECT COUNT(*) AS n FROM analytics_handshakes WHERE at >= ? AND at < ?');
        this.#handshakeDays = h.prepare(`SELECT DISTINCT date(at / 1000, 'unixepoch') AS day FROM analytics_handshakes WHERE at >= ? AND at < ?`);
    }
    state() {
        const row = this.#get.get(STATE_KEY);
        return row ? { ...EMPTY, ...JSON.parse(row.value) } : { ...EMPTY };
    }
    update(change) {
        const next = { ...this.state(), ...change };
        this.#set.run(STATE_KEY, JSON.stringify(next), new Date().toISOString());
        return next;
    }
    recordHandshake(pubkeyHash, currency, at) {
        this.#handshake.run(pubkeyHash, currency.toLowerCase(), at);
    }
    /** A deleted contact's lines go with it: adding it again is a new handshake. */
    forgetContact(pubkeyHash) {
        this.#forget.run(pubkeyHash);
    }
    handshakes(from, to) {
        return {
            count: this.#handshakesIn.get(from, to).n,
            days: this.#handshakeDays.all(from, to).map((r) => r.day),
        };
    }
}
//# sourceMappingURL=store.js.map