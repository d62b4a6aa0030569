export const migrations = [
    {
        version: 1,
        up: `
      CREATE TABLE payback_methods (
        method_id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        currency TEXT NOT NULL,
        fields_enc TEXT NOT NULL,
        settlement_min_unit INTEGER NOT NULL,
        settlement_min_unit_exponent INTEGER NOT NULL,
        priority INTEGER NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        share_policy TEXT NOT NULL DEFAULT 'auto' CHECK (share_policy IN ('auto', 'never')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX payback_methods_order ON payback_methods (priority, created_at);
      CREATE TABLE payback_received (
        contact_hash TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        currency TEXT NOT NULL,
        priority INTEGER NOT NULL,
        fields_enc TEXT NOT NULL,
        settlement_min_unit INTEGER NOT NULL,
        settlement_min_unit_exponent INTEGER NOT NULL,
        fetched_at TEXT NOT NULL,
        PRIMARY KEY (contact_hash, remote_id)
      );
    `,
    },
];
const ORDER = 'ORDER BY priority ASC, created_at DESC, rowid DESC';
const toMethod = (r) => (r ? { ...r, enabled: r.enabled === 1 } : null);
export class PaybackStore {
    db;
    #get;
    #insert;
    #delete;
    #receivedFor;
    #receivedInsert;
    constructor(db) {
        this.db = db;
        this.#get = db.prepare('SELECT * FROM payback_methods WHERE method_id = ?');
        this.#insert = db.prepare(`
      INSERT INTO payback_methods (method_id, type, label, currency, fields_enc, settlement_min_unit,
        settlement_min_unit_exponent, priority, enabled, share_policy, created_at, updated_at)
      VALUES (@method_id, @type, @label, @currency, @fields_enc, @settlement_min_unit,
        @settlement_min_unit_exponent, @priority, @enabled, @share_policy, @created_at, @updated_at)`);
        this.#delete = db.prepare('DELETE FROM payback_methods WHERE method_id = ?');
        this.#receivedFor = db.prepare('SELECT * FROM payback_received WHERE contact_hash = ? ORDER BY position ASC');
        this.#receivedInsert = db.prepare(`
      INSERT OR REPLACE INTO payback_received (contact_hash, remote_id, position, type, label, currency, priority,
        fields_enc, settlement_min_unit, settlement_min_unit_exponent, fetched_at)
      VALUES (@contact_hash, @remote_id, @position, @type, @label, @currency, @priority, @fields_enc,
        @settlement_min_unit, @settlement_min_unit_exponent, @fetched_at)`);
    }
    get(methodId) {
        return toMethod(this.#get.get(methodId));
    }
    /** Ordered by priority ascending, then newest first. `currency` matches case-insensitively. */
    list(options) {
        const where = [];
        const args = [];
        if (!options.includeDisabled)
            where.push('enabled = 1');
        if (options.sharedOnly)
            where.push("share_policy = 'auto'");
        if (options.currency !== undefined) {
            where.push('lower(currency) = lower(?)');
            args.push(options.currency);
        }
        const sql = `SELECT * FROM payback_methods ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${ORDER}`;
        return this.db.prepare(sql).all(...args).map((r) => toMethod(r));
    }
    insert(row) {
        this.#insert.run({ ...row, enabled: row.enabled ? 1 : 0 });
    }
    update(methodId, changes) {
        const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
        if (entries.length === 0)
            return;
        const sets = entries.map(([k]) => `${k} = @${k}`).join(', ');
        const values = { method_id: methodId };
        for (const [k, v] of entries)
            values[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
        this.db.prepare(`UPDATE payback_methods SET ${sets} WHERE method_id = @method_id`).run(values);
    }
    delete(methodId) {
        return this.#delete.run(methodId).changes > 0;
    }
    count() {
        return this.db
            .prepare(`SELECT count(*) AS total, coalesce(sum(enabled), 0) AS enabled,
          coalesce(sum(CASE WHEN enabled = 1 AND share_policy = 'auto' THEN 1 ELSE 0 END), 0) AS shared FROM payback_methods`)
            .get();
    }
    received(contactHash) {
        return this.#receivedFor.all(contactHash);
    }
    /**
     * Replaces what we hold from a contact with what it just sent (all of it, or one currency's worth when the
     * fetch asked for one currency): methods it stopped sharing disappear.
     */
    replaceReceived(contactHash, currency, rows) {
        if (currency === null)
            this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ?').run(contactHash);
        else
            this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ? AND lower(currency) = lower(?)').run(contactHash, currency);
        for (const row of rows)
            this.#receivedInsert.run(row);
    }
    forgetContact(contactHash) {
        return this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ?').run(contactHash).changes;
    }
    receivedCount() {
        return this.db.prepare('SELECT count(*) AS n FROM payback_received').get().n;
    }
}
//# sourceMappingURL=store.js.map