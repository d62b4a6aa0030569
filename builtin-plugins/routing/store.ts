/**
 * The routing plugin's tables. Discovery itself lives in memory (it is over within p2pExpiration); what must survive a
 * restart is here:
 *
 *   routing_payments    payments this node originates: the route request's secret, salt and time, the destination,
 *                       the mode, the status (searching, awaiting_approval, executing, completed, cancelled, failed)
 *   routing_candidates  the routes offered to an originator (one per first-hop contact), for approval and audit
 *   routing_legs        every hash-locked leg this node is party to (its ledger row has the same txid): the statement
 *                       the payer signed, the state of the leg protocol, and the message still owed to the peer
 *                       (`notice`: prepare to the payee, fulfil or reject to the payer) with its retry schedule
 *   routing_notes       what a destination learned from the originator: the description and its address
 *   routing_splits      destination of split payments: per group, the one preimage its parts lock to, the whole
 *                       amount (from the originator's note) and whether it was fulfilled or released; and
 *   routing_split_parts which route hash is a part of which group
 */
import type { Database, Statement } from 'better-sqlite3';
import { fromParts, PreparedStatements, toParts, type Migration, type Minor } from '../../sdk/index.js';

export const migrations: readonly Migration[] = [
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
  {
    // Debt-cycle clearings: payments from this node around a cycle back to itself (docs/protocol.md, "Clearing").
    version: 2,
    up: `ALTER TABLE routing_payments ADD COLUMN clearing INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX routing_payments_clearing ON routing_payments (created_at) WHERE clearing = 1;`,
  },
  {
    // Lines the operator took out of debt-cycle clearing (every line of an opted-in node takes part otherwise).
    version: 3,
    up: `CREATE TABLE routing_clearing_lines (
        contact_hash TEXT NOT NULL,
        currency TEXT NOT NULL COLLATE NOCASE,
        enabled INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (contact_hash, currency)
      );`,
  },
  {
    // Split payments (docs/protocol.md, "Split payments"): the originator's parts name their group; the destination
    // keeps each group's preimage so that a restart cannot change the condition its parts lock to.
    version: 4,
    up: `ALTER TABLE routing_payments ADD COLUMN split_group TEXT;
      ALTER TABLE routing_payments ADD COLUMN split_secret TEXT;
      CREATE INDEX routing_payments_split ON routing_payments (split_group) WHERE split_group IS NOT NULL;
      CREATE TABLE routing_splits (
        group_id TEXT PRIMARY KEY,
        preimage TEXT NOT NULL,
        total_whole INTEGER,
        total_frac INTEGER,
        state TEXT NOT NULL CHECK (state IN ('open', 'fulfilled', 'released')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE routing_split_parts (
        hash TEXT PRIMARY KEY,
        group_id TEXT NOT NULL
      );
      CREATE INDEX routing_split_parts_group ON routing_split_parts (group_id);`,
  },
  {
    // A line's terms for clearings: the fee this node charges on a clearing it relays over it (none by default).
    version: 5,
    up: `ALTER TABLE routing_clearing_lines ADD COLUMN fee_percent TEXT;`,
  },
];

export type PaymentStatus = 'searching' | 'awaiting_approval' | 'executing' | 'completed' | 'cancelled' | 'failed';

export interface PaymentRow {
  hash: string;
  secret: string;
  salt: string;
  timeMicros: number;
  destination: string;
  currency: string;
  amount: Minor;
  description: string | null;
  fast: boolean;
  budget: number;
  refundOf: string | null;
  /** A debt-cycle clearing: the destination is this node itself. */
  clearing: boolean;
  /** A part of a split payment: the group's id and secret (the same on every part). */
  splitGroup: string | null;
  splitSecret: string | null;
  status: PaymentStatus;
  failureReason: string | null;
  txid: string | null;
  candidateId: number | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface CandidateRow {
  id: number;
  hash: string;
  contactHash: string;
  senderAddress: string | null;
  senderPublicKey: string | null;
  amount: Minor;
  hops: number;
  condition: string;
  signature: string;
  timeMicros: number;
  createdAt: number;
}

export type LegState = 'preparing' | 'locked' | 'fulfilled' | 'rejected';
export type Notice = 'prepare' | 'fulfil' | 'reject';

export interface LegRow {
  txid: string;
  hash: string;
  role: 'in' | 'out';
  contactHash: string;
  partnerTxid: string | null;
  budget: number;
  statement: string;
  signature: string;
  recipientSignature: string | null;
  state: LegState;
  notice: Notice | null;
  attempts: number;
  nextAt: number;
  lastError: string | null;
  expiresAt: number;
  fulfillment: string | null;
  reason: string | null;
  createdAt: number;
}

const paymentOf = (r: Record<string, unknown>): PaymentRow => ({
  hash: r.hash as string,
  secret: r.secret as string,
  salt: r.salt as string,
  timeMicros: Number(r.time_us),
  destination: r.destination as string,
  currency: r.currency as string,
  amount: fromParts(r.amount_whole as bigint, r.amount_frac as bigint),
  description: (r.description as string | null) ?? null,
  fast: Number(r.fast) === 1,
  budget: Number(r.budget),
  refundOf: (r.refund_of as string | null) ?? null,
  clearing: Number(r.clearing) === 1,
  splitGroup: (r.split_group as string | null) ?? null,
  splitSecret: (r.split_secret as string | null) ?? null,
  status: r.status as PaymentStatus,
  failureReason: (r.failure_reason as string | null) ?? null,
  txid: (r.txid as string | null) ?? null,
  candidateId: r.candidate_id === null ? null : Number(r.candidate_id),
  expiresAt: Number(r.expires_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const candidateOf = (r: Record<string, unknown>): CandidateRow => ({
  id: Number(r.id),
  hash: r.hash as string,
  contactHash: r.contact_hash as string,
  senderAddress: (r.sender_address as string | null) ?? null,
  senderPublicKey: (r.sender_public_key as string | null) ?? null,
  amount: fromParts(r.amount_whole as bigint, r.amount_frac as bigint),
  hops: Number(r.hops),
  condition: r.condition as string,
  signature: r.signature as string,
  timeMicros: Number(r.time_us),
  createdAt: Number(r.created_at),
});

const legOf = (r: Record<string, unknown>): LegRow => ({
  txid: r.txid as string,
  hash: r.hash as string,
  role: r.role as 'in' | 'out',
  contactHash: r.contact_hash as string,
  partnerTxid: (r.partner_txid as string | null) ?? null,
  budget: Number(r.budget),
  statement: r.statement as string,
  signature: r.signature as string,
  recipientSignature: (r.recipient_signature as string | null) ?? null,
  state: r.state as LegState,
  notice: (r.notice as Notice | null) ?? null,
  attempts: Number(r.attempts),
  nextAt: Number(r.next_at),
  lastError: (r.last_error as string | null) ?? null,
  expiresAt: Number(r.expires_at),
  fulfillment: (r.fulfillment as string | null) ?? null,
  reason: (r.reason as string | null) ?? null,
  createdAt: Number(r.created_at),
});

export type PaymentPatch = Partial<Pick<PaymentRow, 'status' | 'failureReason' | 'txid' | 'candidateId'>>;
export type LegPatch = Partial<
  Pick<LegRow, 'state' | 'notice' | 'attempts' | 'nextAt' | 'lastError' | 'fulfillment' | 'reason' | 'recipientSignature' | 'partnerTxid'>
>;

const PAYMENT_COLUMNS: Record<keyof PaymentPatch, string> = {
  status: 'status',
  failureReason: 'failure_reason',
  txid: 'txid',
  candidateId: 'candidate_id',
};

const LEG_COLUMNS: Record<keyof LegPatch, string> = {
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
  readonly #prepared: PreparedStatements;

  constructor(db: Database) {
    this.#prepared = new PreparedStatements(db);
  }

  #stmt(sql: string): Statement {
    return this.#prepared.get(sql, true);
  }

  #patch(table: string, key: string, columns: Record<string, string>, id: string, patch: Record<string, unknown>, now: number): void {
    const keys = Object.keys(patch).filter((k) => patch[k] !== undefined);
    if (keys.length === 0) return;
    const sets = keys.map((k) => `${columns[k]} = @${k}`).join(', ');
    const params: Record<string, unknown> = { id, now };
    for (const k of keys) params[k] = typeof patch[k] === 'boolean' ? (patch[k] ? 1 : 0) : patch[k];
    this.#stmt(`UPDATE ${table} SET ${sets}, updated_at = @now WHERE ${key} = @id`).run(params);
  }

  // ---- payments

  insertPayment(p: Omit<PaymentRow, 'failureReason' | 'txid' | 'candidateId' | 'updatedAt'>): void {
    const a = toParts(p.amount);
    this.#stmt(
      `INSERT INTO routing_payments (hash, secret, salt, time_us, destination, currency, amount_whole, amount_frac, description, fast,
         budget, refund_of, clearing, split_group, split_secret, status, expires_at, created_at, updated_at)
       VALUES (@hash, @secret, @salt, @time, @destination, @currency, @aw, @af, @description, @fast, @budget, @refund_of, @clearing,
         @split_group, @split_secret, @status, @expires, @now, @now)`,
    ).run({
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
      clearing: p.clearing ? 1 : 0,
      split_group: p.splitGroup,
      split_secret: p.splitSecret,
      status: p.status,
      expires: p.expiresAt,
      now: p.createdAt,
    });
  }

  payment(hash: string): PaymentRow | null {
    const r = this.#stmt('SELECT * FROM routing_payments WHERE hash = ?').get(hash) as Record<string, unknown> | undefined;
    return r ? paymentOf(r) : null;
  }

  paymentByTxid(txid: string): PaymentRow | null {
    const r = this.#stmt('SELECT * FROM routing_payments WHERE txid = ?').get(txid) as Record<string, unknown> | undefined;
    return r ? paymentOf(r) : null;
  }

  /** The parts of a split payment this node originated, in the order they were planned. */
  splitParts(group: string): PaymentRow[] {
    return (this.#stmt('SELECT * FROM routing_payments WHERE split_group = ? ORDER BY created_at, hash').all(group) as Record<string, unknown>[]).map(paymentOf);
  }

  /**
   * A line's terms for debt-cycle clearing: whether it takes part (yes unless the operator switched it off) and the
   * fee this node charges on a clearing it relays over it (null: none, the default).
   */
  clearingTerms(contactHash: string, currency: string): ClearingTerms {
    const r = this.#stmt('SELECT enabled, fee_percent FROM routing_clearing_lines WHERE contact_hash = ? AND currency = ?').get(contactHash, currency) as
      | { enabled: number | bigint; fee_percent: string | null }
      | undefined;
    return { enabled: r === undefined || Number(r.enabled) === 1, feePercent: r?.fee_percent ?? null };
  }

  setClearingLine(contactHash: string, currency: string, terms: ClearingTerms, now: number): void {
    this.#stmt(
      `INSERT INTO routing_clearing_lines (contact_hash, currency, enabled, fee_percent, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (contact_hash, currency) DO UPDATE SET enabled = excluded.enabled, fee_percent = excluded.fee_percent, updated_at = excluded.updated_at`,
    ).run(contactHash, currency, terms.enabled ? 1 : 0, terms.feePercent, now);
  }

  /** The lines whose terms the operator set. */
  clearingLines(): ({ contactHash: string; currency: string } & ClearingTerms)[] {
    return (this.#stmt('SELECT * FROM routing_clearing_lines ORDER BY contact_hash, currency').all() as Record<string, unknown>[]).map((r) => ({
      contactHash: r.contact_hash as string,
      currency: r.currency as string,
      enabled: Number(r.enabled) === 1,
      feePercent: (r.fee_percent as string | null) ?? null,
    }));
  }

  /** This node's clearings, newest first. */
  clearings(limit: number): PaymentRow[] {
    return (this.#stmt('SELECT * FROM routing_payments WHERE clearing = 1 ORDER BY created_at DESC LIMIT ?').all(limit) as Record<string, unknown>[]).map(paymentOf);
  }

  patchPayment(hash: string, patch: PaymentPatch, now: number): void {
    this.#patch('routing_payments', 'hash', PAYMENT_COLUMNS, hash, patch, now);
  }

  /** Payments still deciding (searching or awaiting approval), oldest first. */
  openPayments(limit: number, offset: number): { rows: PaymentRow[]; total: number } {
    const where = `status IN ('searching', 'awaiting_approval')`;
    const total = Number((this.#stmt(`SELECT COUNT(*) AS n FROM routing_payments WHERE ${where}`).get() as { n: bigint }).n);
    const rows = this.#stmt(`SELECT * FROM routing_payments WHERE ${where} ORDER BY created_at, hash LIMIT ? OFFSET ?`).all(limit, offset) as Record<string, unknown>[];
    return { rows: rows.map(paymentOf), total };
  }

  /** What routed refunds of a received transaction deliver, unless they failed or were cancelled. */
  refundsOf(txid: string): Minor {
    const r = this.#stmt(
      `SELECT SUM(amount_whole) AS w, SUM(amount_frac) AS f FROM routing_payments WHERE refund_of = ? AND status NOT IN ('cancelled', 'failed')`,
    ).get(txid) as { w: bigint | null; f: bigint | null };
    return fromParts(r.w ?? 0n, r.f ?? 0n);
  }

  /** Open payments whose discovery deadline passed. */
  expiredPayments(now: number): PaymentRow[] {
    const rows = this.#stmt(`SELECT * FROM routing_payments WHERE status IN ('searching', 'awaiting_approval') AND expires_at <= ?`).all(now) as Record<
      string,
      unknown
    >[];
    return rows.map(paymentOf);
  }

  // ---- candidates

  /** Records a route offered to this originator; false when that contact's offer is already recorded. */
  insertCandidate(c: Omit<CandidateRow, 'id'>): number | null {
    const a = toParts(c.amount);
    const info = this.#stmt(
      `INSERT OR IGNORE INTO routing_candidates (hash, contact_hash, sender_address, sender_public_key, amount_whole, amount_frac, hops,
         condition, signature, time_us, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(c.hash, c.contactHash, c.senderAddress, c.senderPublicKey, a.whole, a.frac, c.hops, c.condition, c.signature, c.timeMicros, c.createdAt);
    return info.changes === 1 ? Number(info.lastInsertRowid) : null;
  }

  /** A payment's candidates, cheapest first (ties: fewer hops, then the earlier). */
  candidates(hash: string): CandidateRow[] {
    const rows = this.#stmt(
      `SELECT * FROM routing_candidates WHERE hash = ? ORDER BY amount_whole, amount_frac, hops, id`,
    ).all(hash) as Record<string, unknown>[];
    return rows.map(candidateOf);
  }

  /** Drops a payment's candidates (rejected or expired: Document 1's "candidates cleaned up"). */
  deleteCandidates(hash: string): void {
    this.#stmt('DELETE FROM routing_candidates WHERE hash = ?').run(hash);
  }

  /**
   * Retention: the routes an originator held for its choice (candidates) of payments decided before `heldBefore`
   * (cleanupHeldTxRetentionDays), and destinations' notes written before `notesBefore` (cleanupRp2pRetentionDays).
   * Legs stay: they are the record of what moved.
   */
  prune(heldBefore: number, notesBefore: number): { candidates: number; notes: number } {
    const candidates = this.#stmt(
      `DELETE FROM routing_candidates WHERE hash IN (SELECT hash FROM routing_payments WHERE status IN ('completed', 'cancelled', 'failed') AND updated_at < ?)`,
    ).run(heldBefore).changes;
    const notes = this.#stmt('DELETE FROM routing_notes WHERE created_at < ?').run(notesBefore).changes;
    return { candidates, notes };
  }

  candidate(id: number): CandidateRow | null {
    const r = this.#stmt('SELECT * FROM routing_candidates WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? candidateOf(r) : null;
  }

  // ---- legs

  insertLeg(l: Omit<LegRow, 'attempts' | 'lastError' | 'fulfillment' | 'reason'>): void {
    this.#stmt(
      `INSERT INTO routing_legs (txid, hash, role, contact_hash, partner_txid, budget, statement, signature, recipient_signature, state,
         notice, next_at, expires_at, created_at, updated_at)
       VALUES (@txid, @hash, @role, @contact, @partner, @budget, @statement, @signature, @rsig, @state, @notice, @next, @expires, @now, @now)`,
    ).run({
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

  leg(txid: string): LegRow | null {
    const r = this.#stmt('SELECT * FROM routing_legs WHERE txid = ?').get(txid) as Record<string, unknown> | undefined;
    return r ? legOf(r) : null;
  }

  legsOf(hash: string): LegRow[] {
    return (this.#stmt('SELECT * FROM routing_legs WHERE hash = ? ORDER BY created_at').all(hash) as Record<string, unknown>[]).map(legOf);
  }

  patchLeg(txid: string, patch: LegPatch, now: number): void {
    this.#patch('routing_legs', 'txid', LEG_COLUMNS, txid, patch, now);
  }

  /** Legs with a message owed to their peer whose next attempt is due (all of them with `now` = Infinity). */
  dueNotices(now: number): LegRow[] {
    const rows = this.#stmt(`SELECT * FROM routing_legs INDEXED BY routing_legs_notice WHERE notice IS NOT NULL AND next_at <= ? ORDER BY next_at LIMIT 256`).all(
      Number.isFinite(now) ? now : Number.MAX_SAFE_INTEGER,
    ) as Record<string, unknown>[];
    return rows.map(legOf);
  }

  nextNoticeAt(): number | null {
    const r = this.#stmt(`SELECT MIN(next_at) AS at FROM routing_legs INDEXED BY routing_legs_notice WHERE notice IS NOT NULL`).get() as { at: bigint | null };
    return r.at === null ? null : Number(r.at);
  }

  /** Payments by status and legs by state, for the system metrics. */
  counts(): { payments: Record<string, number>; legs: Record<string, number> } {
    const of = (sql: string): Record<string, number> =>
      Object.fromEntries((this.#stmt(sql).all() as { k: string; n: bigint }[]).map((r) => [r.k, Number(r.n)]));
    return {
      payments: of('SELECT status AS k, COUNT(*) AS n FROM routing_payments GROUP BY status'),
      legs: of('SELECT state AS k, COUNT(*) AS n FROM routing_legs GROUP BY state'),
    };
  }

  // ---- notes (destination side)

  note(hash: string): { description: string | null; originAddress: string | null } | null {
    const r = this.#stmt('SELECT description, origin_address FROM routing_notes WHERE hash = ?').get(hash) as
      | { description: string | null; origin_address: string | null }
      | undefined;
    return r ? { description: r.description, originAddress: r.origin_address } : null;
  }

  saveNote(hash: string, description: string | null, originAddress: string | null, now: number): void {
    this.#stmt('INSERT OR IGNORE INTO routing_notes (hash, description, origin_address, created_at) VALUES (?, ?, ?, ?)').run(hash, description, originAddress, now);
  }

  // ---- split payments (destination side)

  /** A group's record: its preimage, the whole (null until the originator's note came) and its state. */
  split(group: string): SplitGroup | null {
    const r = this.#stmt('SELECT * FROM routing_splits WHERE group_id = ?').get(group) as Record<string, unknown> | undefined;
    if (!r) return null;
    const total = r.total_whole === null ? null : fromParts(r.total_whole as bigint, r.total_frac as bigint);
    return { group, preimage: r.preimage as string, total, state: r.state as SplitGroup['state'] };
  }

  /** Records a part's route hash under its group, the group with `preimage` when it is new. */
  addSplitPart(group: string, hash: string, preimage: string, now: number): void {
    this.#stmt(`INSERT OR IGNORE INTO routing_splits (group_id, preimage, state, created_at, updated_at) VALUES (?, ?, 'open', ?, ?)`).run(group, preimage, now, now);
    this.#stmt('INSERT OR IGNORE INTO routing_split_parts (hash, group_id) VALUES (?, ?)').run(hash, group);
  }

  splitOfHash(hash: string): string | null {
    const r = this.#stmt('SELECT group_id FROM routing_split_parts WHERE hash = ?').get(hash) as { group_id: string } | undefined;
    return r?.group_id ?? null;
  }

  setSplitTotal(group: string, total: Minor, now: number): void {
    const t = toParts(total);
    this.#stmt('UPDATE routing_splits SET total_whole = ?, total_frac = ?, updated_at = ? WHERE group_id = ? AND total_whole IS NULL').run(t.whole, t.frac, now, group);
  }

  setSplitState(group: string, state: SplitGroup['state'], now: number): void {
    this.#stmt('UPDATE routing_splits SET state = ?, updated_at = ? WHERE group_id = ?').run(state, now, group);
  }

  /** The incoming legs of a group's parts at its destination (every state), oldest first. */
  splitLegs(group: string): LegRow[] {
    return (
      this.#stmt(
        `SELECT l.* FROM routing_legs l JOIN routing_split_parts p ON p.hash = l.hash WHERE p.group_id = ? AND l.role = 'in' ORDER BY l.created_at, l.txid`,
      ).all(group) as Record<string, unknown>[]
    ).map(legOf);
  }

  /** Open groups with a part held here past its expiry: they can no longer complete in time. */
  expiredSplits(now: number): string[] {
    return (
      this.#stmt(
        `SELECT DISTINCT p.group_id AS g FROM routing_legs l JOIN routing_split_parts p ON p.hash = l.hash JOIN routing_splits s ON s.group_id = p.group_id
         WHERE s.state = 'open' AND l.role = 'in' AND l.state = 'locked' AND l.expires_at <= ?`,
      ).all(now) as { g: string }[]
    ).map((r) => r.g);
  }
}

export interface ClearingTerms {
  enabled: boolean;
  feePercent: string | null;
}

export interface SplitGroup {
  group: string;
  preimage: string;
  total: Minor | null;
  state: 'open' | 'fulfilled' | 'released';
}
