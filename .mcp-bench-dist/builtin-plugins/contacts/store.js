import { fromParts, toParts } from '../../kernel/money.js';
export const migrations = [
    {
        version: 1,
        up: `
      CREATE TABLE contacts (
        id INTEGER PRIMARY KEY,
        pubkey_hash TEXT UNIQUE,
        pubkey TEXT,
        sealing_key TEXT,
        name TEXT,
        suggested_name TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'blocked')),
        status_before_block TEXT,
        addr_http TEXT UNIQUE,
        addr_https TEXT UNIQUE,
        addr_tor TEXT UNIQUE,
        online_status TEXT NOT NULL DEFAULT 'unknown',
        last_ping_at TEXT,
        last_seen_at TEXT,
        chain_valid INTEGER,
        restored INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX contacts_status ON contacts (status);
      CREATE INDEX contacts_name ON contacts (name COLLATE NOCASE);
      CREATE TABLE contact_currencies (
        contact_id INTEGER NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
        currency TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        fee_percent TEXT,
        credit_whole INTEGER,
        credit_frac INTEGER,
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined')),
        direction TEXT NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
        requested_whole INTEGER,
        requested_frac INTEGER,
        requested_enforced INTEGER NOT NULL DEFAULT 0,
        description TEXT,
        warning TEXT,
        decline_reason TEXT,
        request_delivered INTEGER NOT NULL DEFAULT 0,
        available_whole INTEGER,
        available_frac INTEGER,
        available_at TEXT,
        extended_whole INTEGER,
        extended_frac INTEGER,
        requested_min_unmet INTEGER NOT NULL DEFAULT 0,
        chain_valid INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (contact_id, currency_key)
      );
      CREATE INDEX contact_currencies_status ON contact_currencies (status, direction);
    `,
    },
];
const WITH_ROWS = `FROM contacts c WHERE c.status != 'blocked' AND EXISTS
  (SELECT 1 FROM contact_currencies r WHERE r.contact_id = c.id AND r.status = ? AND r.direction = ?)`;
const STRANGER = "status = 'pending' AND name IS NULL";
const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
const boolOrNull = (v) => (v === null || v === undefined ? null : num(v) !== 0);
const amount = (whole, frac) => whole === null || whole === undefined ? null : fromParts(BigInt(whole), BigInt(frac));
function contactOf(r) {
    return {
        id: num(r.id),
        pubkey_hash: r.pubkey_hash,
        pubkey: r.pubkey,
        sealing_key: r.sealing_key,
        name: r.name,
        suggested_name: r.suggested_name,
        status: r.status,
        status_before_block: r.status_before_block,
        addr_http: r.addr_http,
        addr_https: r.addr_https,
        addr_tor: r.addr_tor,
        online_status: r.online_status,
        last_ping_at: r.last_ping_at,
        last_seen_at: r.last_seen_at,
        chain_valid: boolOrNull(r.chain_valid),
        restored: num(r.restored) !== 0,
        created_at: r.created_at,
        updated_at: r.updated_at,
    };
}
function currencyOf(r) {
    return {
        contact_id: num(r.contact_id),
        currency: r.currency,
        fee_percent: r.fee_percent,
        credit_limit: amount(r.credit_whole, r.credit_frac),
        status: r.status,
        direction: r.direction,
        requested_credit: amount(r.requested_whole, r.requested_frac),
        requested_enforced: num(r.requested_enforced) !== 0,
        description: r.description,
        warning: r.warning,
        decline_reason: r.decline_reason,
        request_delivered: num(r.request_delivered) !== 0,
        my_available_credit: amount(r.available_whole, r.available_frac),
        available_at: r.available_at,
        peer_extends: amount(r.extended_whole, r.extended_frac),
        requested_min_unmet: num(r.requested_min_unmet) !== 0,
        chain_valid: boolOrNull(r.chain_valid),
        created_at: r.created_at,
        updated_at: r.updated_at,
    };
}
const AMOUNT_COLUMNS = {
    credit_limit: ['credit_whole', 'credit_frac'],
    requested_credit: ['requested_whole', 'requested_frac'],
    my_available_credit: ['available_whole', 'available_frac'],
    peer_extends: ['extended_whole', 'extended_frac'],
};
/** Column/value pairs of a patch, amounts split into whole and frac, booleans as 0/1. */
function columnsOf(patch) {
    const out = [];
    for (const [key, value] of Object.entries(patch)) {
        if (value === undefined)
            continue;
        const split = AMOUNT_COLUMNS[key];
        if (split) {
            if (value === null)
                out.push([split[0], null], [split[1], null]);
            else {
                const { whole, frac } = toParts(value);
                out.push([split[0], whole], [split[1], frac]);
            }
        }
        else if (typeof value === 'boolean')
            out.push([key, value ? 1 : 0]);
        else
            out.push([key, value]);
    }
    return out;
}
export const currencyKey = (code) => code.toLowerCase();
export const ADDRESS_COLUMN = {
    http: 'addr_http',
    https: 'addr_https',
    tor: 'addr_tor',
};
export class ContactStore {
    db;
    now;
    #byId;
    #byHash;
    #byAddress;
    #currencies;
    #currency;
    constructor(db, now) {
        this.db = db;
        this.now = now;
        this.#byId = db.prepare('SELECT * FROM contacts WHERE id = ?');
        this.#byHash = db.prepare('SELECT * FROM contacts WHERE pubkey_hash = ?');
        this.#byAddress = db.prepare('SELECT * FROM contacts WHERE addr_http = ? OR addr_https = ? OR addr_tor = ?');
        this.#currencies = db.prepare('SELECT * FROM contact_currencies WHERE contact_id = ? ORDER BY created_at, rowid').safeIntegers(true);
        this.#currency = db.prepare('SELECT * FROM contact_currencies WHERE contact_id = ? AND currency_key = ?').safeIntegers(true);
    }
    #iso() {
        return new Date(this.now()).toISOString();
    }
    byId(id) {
        const r = this.#byId.get(id);
        return r ? contactOf(r) : null;
    }
    byHash(hash) {
        const r = this.#byHash.get(hash.toLowerCase());
        return r ? contactOf(r) : null;
    }
    byAddress(normalized) {
        const r = this.#byAddress.get(normalized, normalized, normalized);
        return r ? contactOf(r) : null;
    }
    byName(name, caseSensitive) {
        const sql = caseSensitive ? 'SELECT * FROM contacts WHERE name = ? ORDER BY id' : 'SELECT * FROM contacts WHERE name = ? COLLATE NOCASE ORDER BY id';
        return this.db.prepare(sql).all(name).map(contactOf);
    }
    list(status, limit, offset) {
        const rows = status
            ? this.db.prepare('SELECT * FROM contacts WHERE status = ? ORDER BY id LIMIT ? OFFSET ?').all(status, limit, offset)
            : this.db.prepare('SELECT * FROM contacts ORDER BY id LIMIT ? OFFSET ?').all(limit, offset);
        return rows.map(contactOf);
    }
    count(status) {
        const r = status
            ? this.db.prepare('SELECT COUNT(*) AS n FROM contacts WHERE status = ?').get(status)
            : this.db.prepare('SELECT COUNT(*) AS n FROM contacts').get();
        return r.n;
    }
    /** Every contact whose key we know and that is not blocked: who must hear that our addresses changed. */
    reachableWithKeys() {
        return this.db.prepare("SELECT * FROM contacts WHERE status != 'blocked' AND pubkey_hash IS NOT NULL ORDER BY id").all().map(contactOf);
    }
    /** Accepted contacts that have a known key, in id order (the status cycle walks them). */
    acceptedWithKeys() {
        return this.db.prepare("SELECT * FROM contacts WHERE status = 'accepted' AND pubkey_hash IS NOT NULL ORDER BY id").all().map(contactOf);
    }
    /** Name containing the term (case-insensitive), an address containing it, or a key hash starting with it. */
    search(term, limit, offset) {
        const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const prefix = `${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const where = `name LIKE @like ESCAPE '\\' OR addr_http LIKE @like ESCAPE '\\' OR addr_https LIKE @like ESCAPE '\\'
       OR addr_tor LIKE @like ESCAPE '\\' OR pubkey_hash LIKE @prefix ESCAPE '\\'`;
        const rows = this.db.prepare(`SELECT * FROM contacts WHERE ${where} ORDER BY id LIMIT @limit OFFSET @offset`).all({ like, prefix, limit, offset });
        const total = this.db.prepare(`SELECT COUNT(*) AS n FROM contacts WHERE ${where}`).get({ like, prefix }).n;
        return { rows: rows.map(contactOf), total };
    }
    insert(fields) {
        const now = this.#iso();
        const cols = columnsOf({ ...fields });
        cols.push(['created_at', now], ['updated_at', now]);
        const info = this.db
            .prepare(`INSERT INTO contacts (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
            .run(...cols.map((c) => c[1]));
        return this.byId(Number(info.lastInsertRowid));
    }
    update(id, patch) {
        const cols = columnsOf(patch);
        if (cols.length) {
            cols.push(['updated_at', this.#iso()]);
            this.db.prepare(`UPDATE contacts SET ${cols.map((c) => `${c[0]} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => c[1]), id);
        }
        return this.byId(id);
    }
    delete(id) {
        this.db.prepare('DELETE FROM contact_currencies WHERE contact_id = ?').run(id);
        this.db.prepare('DELETE FROM contacts WHERE id = ?').run(id);
    }
    /** Whether another contact already uses this address. */
    addressOwner(normalized) {
        return this.byAddress(normalized);
    }
    currencies(contactId) {
        return this.#currencies.all(contactId).map(currencyOf);
    }
    currency(contactId, code) {
        const r = this.#currency.get(contactId, currencyKey(code));
        return r ? currencyOf(r) : null;
    }
    insertCurrency(contactId, fields) {
        const now = this.#iso();
        const cols = columnsOf(fields);
        cols.push(['contact_id', contactId], ['currency_key', currencyKey(fields.currency)], ['created_at', now], ['updated_at', now]);
        this.db
            .prepare(`INSERT INTO contact_currencies (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
            .run(...cols.map((c) => c[1]));
        return this.currency(contactId, fields.currency);
    }
    updateCurrency(contactId, code, patch) {
        const cols = columnsOf(patch);
        if (cols.length) {
            cols.push(['updated_at', this.#iso()]);
            this.db
                .prepare(`UPDATE contact_currencies SET ${cols.map((c) => `${c[0]} = ?`).join(', ')} WHERE contact_id = ? AND currency_key = ?`)
                .run(...cols.map((c) => c[1]), contactId, currencyKey(code));
        }
        return this.currency(contactId, code);
    }
    deleteCurrency(contactId, code) {
        return this.db.prepare('DELETE FROM contact_currencies WHERE contact_id = ? AND currency_key = ?').run(contactId, currencyKey(code)).changes > 0;
    }
    /** Moves the currency rows of `fromId` that `toId` lacks onto `toId`, then deletes `fromId`. */
    merge(fromId, toId) {
        this.db
            .prepare(`UPDATE contact_currencies SET contact_id = ? WHERE contact_id = ?
           AND currency_key NOT IN (SELECT currency_key FROM contact_currencies WHERE contact_id = ?)`)
            .run(toId, fromId, toId);
        this.delete(fromId);
    }
    /** Contacts having at least one currency row in this status and direction, a page of them in id order. */
    withRows(status, direction, limit = -1, offset = 0) {
        return this.db.prepare(`SELECT c.* ${WITH_ROWS} ORDER BY c.id LIMIT ? OFFSET ?`).all(status, direction, limit, offset).map(contactOf);
    }
    countWithRows(status, direction) {
        return this.db.prepare(`SELECT COUNT(*) AS n ${WITH_ROWS}`).get(status, direction).n;
    }
    pendingIncomingRows(contactId) {
        const r = this.db.prepare("SELECT COUNT(*) AS n FROM contact_currencies WHERE contact_id = ? AND status = 'pending' AND direction = 'incoming'").get(contactId);
        return r.n;
    }
    /** Contacts that unknown keys created and the operator has not taken up yet (pending, never named). */
    strangerCount() {
        return this.db.prepare(`SELECT COUNT(*) AS n FROM contacts WHERE ${STRANGER}`).get().n;
    }
    deleteOldestStrangers(n) {
        this.db.prepare(`DELETE FROM contacts WHERE id IN (SELECT id FROM contacts WHERE ${STRANGER} ORDER BY updated_at, id LIMIT ?)`).run(n);
    }
    /**
     * Contacts sorted by name (ASCII case folded, as names are; unnamed last, then by id), in keyset pages: each page is
     * one short read, so nothing holds the connection while the caller (an export) waits for its reader.
     */
    *exportRows(status, pageSize = 500) {
        // The page boundary is the sort key as SQLite computed it, so the next page starts exactly where this one ended.
        const key = "name IS NULL, coalesce(lower(name), ''), id";
        const filter = status ? 'AND status = ?' : '';
        const columns = `*, name IS NULL AS export_unnamed, coalesce(lower(name), '') AS export_name`;
        const first = this.db.prepare(`SELECT ${columns} FROM contacts WHERE 1 = 1 ${filter} ORDER BY ${key} LIMIT ?`);
        const next = this.db.prepare(`SELECT ${columns} FROM contacts WHERE (${key}) > (?, ?, ?) ${filter} ORDER BY ${key} LIMIT ?`);
        let last = null;
        for (;;) {
            const args = status ? [status, pageSize] : [pageSize];
            const page = (last ? next.all(last.export_unnamed, last.export_name, last.id, ...args) : first.all(...args));
            for (const raw of page) {
                const c = contactOf(raw);
                last = raw;
                yield {
                    id: c.id,
                    name: c.name,
                    pubkeyHash: c.pubkey_hash,
                    pubkey: c.pubkey,
                    status: c.status,
                    onlineStatus: c.online_status,
                    addresses: { http: c.addr_http, https: c.addr_https, tor: c.addr_tor },
                    chainValid: c.chain_valid,
                    createdAt: c.created_at,
                    lastPingAt: c.last_ping_at,
                };
            }
            if (page.length < pageSize)
                return;
        }
    }
    restoredCount() {
        return this.db.prepare('SELECT COUNT(*) AS n FROM contacts WHERE restored = 1').get().n;
    }
}
//# sourceMappingURL=store.js.map