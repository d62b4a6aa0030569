import { fromParts, toParts } from '../../sdk/index.js';
export const migrations = [
    {
        version: 1,
        up: `
      CREATE TABLE routing_payments (
        hash TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        salt TEXT NOT NULL,
        time_us INTEGER NOT NULL,
        destination TEXT NOT NULL,
        currency TEXT NOT NULL,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        description TEXT,
        fast INTEGER NOT NULL,
        budget INTEGER NOT NULL,
        refund_of TEXT,
        status TEXT NOT NULL CHECK (status IN ('searching', 'awaiting_approval', 'executing', 'completed', 'cancelled', 'failed')),
        failure_reason TEXT,
        txid TEXT,
        candidate_id INTEGER,
        expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX routing_payments_status ON routing_payments (status, created_at);
      CREATE TABLE routing_candidates (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        contact_hash TEXT NOT NULL,
        sender_address TEXT,
        sender_public_key TEXT,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        hops INTEGER NOT NULL,
        condition TEXT NOT NULL,
        signature TEXT NOT NULL,
        time_us INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (hash, contact_hash)
      );
      CREATE TABLE routing_legs (
        txid TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('in', 'out')),
        contact_hash TEXT NOT NULL,
        partner_txid TEXT,
        budget INTEGER NOT NULL,
        statement TEXT NOT NULL,
        signature TEXT NOT NULL,
        recipient_signature TEXT,
        state TEXT NOT NULL CHECK (state IN ('preparing', 'locked', 'fulfilled', 'rejected')),
        notice TEXT CHECK (notice IN ('prepare', 'fulfil', 'reject')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        expires_at INTEGER NOT NULL,
        fulfillment TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX routing_legs_hash ON routing_legs (hash);
      CREATE INDEX routing_legs_notice ON routing_legs (next_at) WHERE notice IS NOT NULL;
      CREATE TABLE routing_notes (
        hash TEXT PRIMARY KEY,
        description TEXT,
        origin_address TEXT,
        created_at INTEGER NOT NULL
      );
    `,
    },
];
const paymentOf = (r) => ({
    hash: r.hash,
    secret: r.secret,
    salt: r.salt,
    timeMicros: Number(r.time_us),
    destination: r.destination,
    currency: r.currency,
    amount: fromParts(r.amount_whole, r.amount_frac),
    description: r.description ?? null,
    fast: Number(r.fast) === 1,
    budget: Number(r.budget),
    refundOf: r.refund_of ?? null,
    status: r.status,
    failureReason: r.failure_reason ?? null,
    txid: r.txid ?? null,
    candidateId: r.candidate_id === null ? null : Number(r.candidate_id),
    expiresAt: Number(r.expires_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
});
const candidateOf = (r) => ({
    id: Number(r.id),
    hash: r.hash,
    contactHash: r.contact_hash,
    senderAddress: r.sender_address ?? null,
    senderPublicKey: r.sender_public_key ?? null,
    amount: fromParts(r.amount_whole, r.amount_frac),
    hops: Number(r.hops),
    condition: r.condition,
    signature: r.signature,
    timeMicros: Number(r.time_us),
    createdAt: Number(r.created_at),
});
const legOf = (r) => ({
    txid: r.txid,
    hash: r.hash,
    role: r.role,
    contactHash: r.contact_hash,
    partnerTxid: r.partner_txid ?? null,
    budget: Number(r.budget),
    statement: r.statement,
    signature: r.signature,
    recipientSignature: r.recipient_signature ?? null,
    state: r.state,
    notice: r.notice ?? null,
    attempts: Number(r.attempts),
    nextAt: Number(r.next_at),
    lastError: r.last_error ?? null,
    expiresAt: Number(r.expires_at),
    fulfillment: r.fulfillment ?? null,
    reason: r.reason ?? null,
    createdAt: Number(r.created_at),
});
const PAYMENT_COLUMNS = {
    status: 'status',
    failureReason: 'failure_reason',
    txid: 'txid',
    candidateId: 'candidate_id',
};
const LEG_COLUMNS = {
    state: 'state',
    notice: 'notice',
    attempts: 'attempts',
    nextAt: 'next_at',
    lastError: 'last_error',
    fulfillment: 'fulfillment',
    reason: 'reason',
    recipientSignature: 'recipient_signature',
    partnerTxid: 'partner_txid',
};
export class RoutingStore {
    db;
    #cache = new Map();
    constructor(db) {
        this.db = db;
    }
    #stmt(sql) {
        let stmt = this.#cache.get(sql);
        if (!stmt) {
            stmt = this.db.prepare(sql);
            stmt.safeIntegers(true);
            this.#cache.set(sql, stmt);
        }
        return stmt;
    }
    #patch(table, key, columns, id, patch, now) {
        const keys = Object.keys(patch).filter((k) => patch[k] !== undefined);
        if (keys.length === 0)
            return;
        const sets = keys.map((k) => `${columns[k]} = @${k}`).join(', ');
        const params = { id, now };
        for (const k of keys)
            params[k] = typeof patch[k] === 'boolean' ? (patch[k] ? 1 : 0) : patch[k];
        this.#stmt(`UPDATE ${table} SET ${sets}, updated_at = @now WHERE ${key} = @id`).run(params);
    }
    // ---- payments
    insertPayment(p) {
        const a = toParts(p.amount);
        this.#stmt(`INSERT INTO routing_payments (hash, secret, salt, time_us, destination, currency, amount_whole, amount_frac, description, fast,
         budget, refund_of, status, expires_at, created_at, updated_at)
       VALUES (@hash, @secret, @salt, @time, @destination, @currency, @aw, @af, @description, @fast, @budget, @refund_of, @status,
         @expires, @now, @now)`).run({
            hash: p.hash,
            secret: p.secret,
            salt: p.salt,
            time: p.timeMicros,
            destination: p.destination,
            currency: p.currency,
            aw: a.whole,
            af: a.frac,
            description: p.description,
            fast: p.fast ? 1 : 0,
            budget: p.budget,
            refund_of: p.refundOf,
            status: p.status,
            expires: p.expiresAt,
            now: p.createdAt,
        });
    }
    payment(hash) {
        const r = this.#stmt('SELECT * FROM routing_payments WHERE hash = ?').get(hash);
        return r ? paymentOf(r) : null;
    }
    paymentByTxid(txid) {
        const r = this.#stmt('SELECT * FROM routing_payments WHERE txid = ?').get(txid);
        return r ? paymentOf(r) : null;
    }
    patchPayment(hash, patch, now) {
        this.#patch('routing_payments', 'hash', PAYMENT_COLUMNS, hash, patch, now);
    }
    /** Payments still deciding (searching or awaiting approval), oldest first. */
    openPayments(limit, offset) {
        const where = `status IN ('searching', 'awaiting_approval')`;
        const total = Number(this.#stmt(`SELECT COUNT(*) AS n FROM routing_payments WHERE ${where}`).get().n);
        const rows = this.#stmt(`SELECT * FROM routing_payments WHERE ${where} ORDER BY created_at, hash LIMIT ? OFFSET ?`).all(limit, offset);
        return { rows: rows.map(paymentOf), total };
    }
    /** Open payments whose discovery deadline passed. */
    expiredPayments(now) {
        const rows = this.#stmt(`SELECT * FROM routing_payments WHERE status IN ('searching', 'awaiting_approval') AND expires_at <= ?`).all(now);
        return rows.map(paymentOf);
    }
    // ---- candidates
    /** Records a route offered to this originator; false when that contact's offer is already recorded. */
    insertCandidate(c) {
        const a = toParts(c.amount);
        const info = this.#stmt(`INSERT OR IGNORE INTO routing_candidates (hash, contact_hash, sender_address, sender_public_key, amount_whole, amount_frac, hops,
         condition, signature, time_us, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(c.hash, c.contactHash, c.senderAddress, c.senderPublicKey, a.whole, a.frac, c.hops, c.condition, c.signature, c.timeMicros, c.createdAt);
        return info.changes === 1 ? Number(info.lastInsertRowid) : null;
    }
    /** A payment's candidates, cheapest first (ties: fewer hops, then the earlier). */
    candidates(hash) {
        const rows = this.#stmt(`SELECT * FROM routing_candidates WHERE hash = ? ORDER BY amount_whole, amount_frac, hops, id`).all(hash);
        return rows.map(candidateOf);
    }
    candidate(id) {
        const r = this.#stmt('SELECT * FROM routing_candidates WHERE id = ?').get(id);
        return r ? candidateOf(r) : null;
    }
    // ---- legs
    insertLeg(l) {
        this.#stmt(`INSERT INTO routing_legs (txid, hash, role, contact_hash, partner_txid, budget, statement, signature, recipient_signature, state,
         notice, next_at, expires_at, created_at, updated_at)
       VALUES (@txid, @hash, @role, @contact, @partner, @budget, @statement, @signature, @rsig, @state, @notice, @next, @expires, @now, @now)`).run({
            txid: l.txid,
            hash: l.hash,
            role: l.role,
            contact: l.contactHash,
            partner: l.partnerTxid,
            budget: l.budget,
            statement: l.statement,
            signature: l.signature,
            rsig: l.recipientSignature,
            state: l.state,
            notice: l.notice,
            next: l.nextAt,
            expires: l.expiresAt,
            now: l.createdAt,
        });
    }
    leg(txid) {
        const r = this.#stmt('SELECT * FROM routing_legs WHERE txid = ?').get(txid);
        return r ? legOf(r) : null;
    }
    legsOf(hash) {
        return this.#stmt('SELECT * FROM routing_legs WHERE hash = ? ORDER BY created_at').all(hash).map(legOf);
    }
    patchLeg(txid, patch, now) {
        this.#patch('routing_legs', 'txid', LEG_COLUMNS, txid, patch, now);
    }
    /** Legs with a message owed to their peer whose next attempt is due (all of them with `now` = Infinity). */
    dueNotices(now) {
        const rows = this.#stmt(`SELECT * FROM routing_legs INDEXED BY routing_legs_notice WHERE notice IS NOT NULL AND next_at <= ? ORDER BY next_at LIMIT 256`).all(Number.isFinite(now) ? now : Number.MAX_SAFE_INTEGER);
        return rows.map(legOf);
    }
    nextNoticeAt() {
        const r = this.#stmt(`SELECT MIN(next_at) AS at FROM routing_legs INDEXED BY routing_legs_notice WHERE notice IS NOT NULL`).get();
        return r.at === null ? null : Number(r.at);
    }
    /** Payments by status and legs by state, for the system metrics. */
    counts() {
        const of = (sql) => Object.fromEntries(this.#stmt(sql).all().map((r) => [r.k, Number(r.n)]));
        return {
            payments: of('SELECT status AS k, COUNT(*) AS n FROM routing_payments GROUP BY status'),
            legs: of('SELECT state AS k, COUNT(*) AS n FROM routing_legs GROUP BY state'),
        };
    }
    // ---- notes (destination side)
    note(hash) {
        const r = this.#stmt('SELECT description, origin_address FROM routing_notes WHERE hash = ?').get(hash);
        return r ? { description: r.description, originAddress: r.origin_address } : null;
    }
    saveNote(hash, description, originAddress, now) {
        this.#stmt('INSERT OR IGNORE INTO routing_notes (hash, description, origin_address, created_at) VALUES (?, ?, ?, ?)').run(hash, description, originAddress, now);
    }
}
//# sourceMappingURL=store.js.map