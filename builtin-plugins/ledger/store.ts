/**
 * The ledger plugin's tables and queries. Nothing else reads them: other plugins go through the `ledger` service.
 *
 *   ledger_tx        one row per transaction this node is party to. Amounts as whole + frac INTEGER columns.
 *                    `chain_pos` orders the completed rows (the chain order); a fulfilled routed leg the payee
 *                    completed before its chain entry arrived has none until then; `in_doubt` marks an outgoing
 *                    payment that was handed to the network without a definitive answer yet (its signed content
 *                    must not change until the peer answers).
 *   ledger_balances  running totals per (contact, currency), changed only when a row becomes completed, in the
 *                    same transaction.
 */
import type { Database, Statement } from 'better-sqlite3';
import { likeLiteral, PreparedStatements, type Migration } from '../../sdk/index.js';
import { fromParts, toParts, type Minor } from '../../sdk/money.js';
import type { BalanceRecord, LedgerActivity, LedgerTx, TxDirection, TxFilter, TxStatus } from './api.js';
import type { ExportedTx, TxExportFilter, TxSource } from './api.js';

const MEMO_STANDARD = 'standard';
const TX_TYPE_STANDARD = 'standard';
/** The reference's tx_type of routed (P2P) legs. */
const TX_TYPE_ROUTED = 'p2p';
/**
 * The links of a chain: completed rows with their place in it. A leg this node completed when it fulfilled it has none
 * until the payer's chain entry places it; it counts in the totals, but the chain walks go without it.
 */
 /** A row's tx_type: a clearing's leg, another routed leg, or a direct payment. */
const txTypeOf = (t: { kind?: string; condition?: string | null }): string => t.kind ?? (t.condition ? TX_TYPE_ROUTED : TX_TYPE_STANDARD);
const CHAINED = `status = 'completed' AND chain_pos IS NOT NULL`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE ledger_tx (
        seq INTEGER PRIMARY KEY,
        txid TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL CHECK (type IN ('sent', 'received', 'relay')),
        tx_type TEXT NOT NULL DEFAULT 'standard',
        status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed')),
        contact_hash TEXT NOT NULL,
        counterparty_pubkey TEXT,
        from_hash TEXT NOT NULL,
        to_hash TEXT NOT NULL,
        amount_whole INTEGER NOT NULL,
        amount_frac INTEGER NOT NULL,
        currency TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        time_us INTEGER NOT NULL,
        salt TEXT NOT NULL,
        prev_txid TEXT,
        memo TEXT NOT NULL DEFAULT 'standard',
        description TEXT,
        expires_at INTEGER,
        content TEXT,
        sender_sig TEXT,
        recipient_sig TEXT,
        sender_address TEXT,
        receiver_address TEXT,
        refund_of TEXT,
        in_doubt INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        repoints INTEGER NOT NULL DEFAULT 0,
        busy_retries INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        sending_started_at INTEGER,
        recovery_count INTEGER NOT NULL DEFAULT 0,
        needs_review INTEGER NOT NULL DEFAULT 0,
        failure_reason TEXT,
        chain_pos INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER
      );
      CREATE INDEX ledger_tx_queue ON ledger_tx (status, contact_hash, currency_key, seq);
      CREATE INDEX ledger_tx_chain ON ledger_tx (contact_hash, currency_key, chain_pos);
      CREATE INDEX ledger_tx_pos ON ledger_tx (chain_pos) WHERE chain_pos IS NOT NULL;
      CREATE INDEX ledger_tx_listing ON ledger_tx (type, seq);
      CREATE INDEX ledger_tx_contact ON ledger_tx (contact_hash, seq);
      CREATE INDEX ledger_tx_refund ON ledger_tx (refund_of) WHERE refund_of IS NOT NULL;
      CREATE TABLE ledger_balances (
        contact_hash TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        currency TEXT NOT NULL,
        received_whole INTEGER NOT NULL DEFAULT 0,
        received_frac INTEGER NOT NULL DEFAULT 0,
        sent_whole INTEGER NOT NULL DEFAULT 0,
        sent_frac INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (contact_hash, currency_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    // A payment we had given up on, sent again only to collect the contact's record of it (docs/security.md).
    version: 2,
    up: `ALTER TABLE ledger_tx ADD COLUMN held_only INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    // Legs of routed payments: `type` keeps the direction (sent/received) that balances and the send queue read,
    // `relay` marks a relay's two legs (shown as type relay). A leg is locked to `lock_condition` while `accepted`
    // (the payee counts it against the credit it extends) and becomes a chain entry with its `lock_fulfillment`.
    version: 3,
    up: `
      ALTER TABLE ledger_tx ADD COLUMN relay INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE ledger_tx ADD COLUMN lock_condition TEXT;
      ALTER TABLE ledger_tx ADD COLUMN lock_fulfillment TEXT;
      CREATE INDEX ledger_tx_locks ON ledger_tx (contact_hash, currency_key) WHERE status = 'accepted' AND lock_condition IS NOT NULL;
      CREATE INDEX ledger_tx_memo ON ledger_tx (memo) WHERE memo <> 'standard';
    `,
  },
  {
    // Archival (archive.ts): settled rows past the retention move to ledger_tx_archive, same columns in the same order
    // (a migration that adds a column to ledger_tx adds it here too), and every read that must see them goes through
    // ledger_tx_all. A checkpoint per chain: how many rows were archived and a digest over them in chain order.
    version: 4,
    up: `
      CREATE TABLE ledger_tx_archive AS SELECT * FROM ledger_tx WHERE 0;
      CREATE UNIQUE INDEX ledger_tx_archive_seq ON ledger_tx_archive (seq);
      CREATE UNIQUE INDEX ledger_tx_archive_txid ON ledger_tx_archive (txid);
      CREATE INDEX ledger_tx_archive_chain ON ledger_tx_archive (contact_hash, currency_key, chain_pos);
      CREATE INDEX ledger_tx_archive_refund ON ledger_tx_archive (refund_of) WHERE refund_of IS NOT NULL;
      CREATE INDEX ledger_tx_archive_memo ON ledger_tx_archive (memo) WHERE memo <> 'standard';
      CREATE VIEW ledger_tx_all AS SELECT *, 'live' AS source FROM ledger_tx UNION ALL SELECT *, 'archive' AS source FROM ledger_tx_archive;
      CREATE TABLE ledger_archive_checkpoints (
        contact_hash TEXT NOT NULL,
        currency_key TEXT NOT NULL,
        currency TEXT NOT NULL,
        archived INTEGER NOT NULL,
        digest TEXT NOT NULL,
        last_pos INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (contact_hash, currency_key)
      ) WITHOUT ROWID;
    `,
  },
];

export const currencyKey = (currency: string): string => currency.toLowerCase();

/** A settled row as archival moves and digests it. */
export interface ArchivableRow {
  seq: number;
  txid: string;
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  pos: number;
}

/** How many rows of a chain are archived, the digest over them in chain order, and the last one's chain position. */
export interface ArchiveCheckpoint {
  archived: number;
  digest: string;
  lastPos: number;
}

/**
 * Rows per read of an export: enough that a read's fixed cost vanishes, few enough that a page is gone before the
 * young-generation collector would keep it (larger pages were promoted and grew the heap by tens of MB).
 */
const EXPORT_PAGE = 1000;
/** The full view's rows carry the signed content and both signatures, about three times a slim row: smaller pages. */
const EXPORT_DETAIL_PAGE = 250;
/** The public type, as the listing shows it: a relay's legs are `relay` whatever their direction. */
/**
 * Read without safe integers (a bigint per integer cell was a third of an export's cost): the whole part, which may
 * pass 2^53, comes as text and is parsed exactly; every other integer is a time, a counter or below 1e8.
 */
const EXPORT_COLUMNS = `seq, txid, CASE WHEN relay = 1 THEN 'relay' ELSE type END, status, contact_hash, CAST(amount_whole AS TEXT), amount_frac,
  currency, description, created_at`;
const EXPORT_DETAIL = 'tx_type, memo, sender_address, receiver_address, sender_sig, recipient_sig, content, prev_txid, recovery_count, expires_at';
const MINOR_PER_UNIT = 100_000_000;

const optionalNumber = (v: unknown): number | null => (v === null ? null : Number(v));

const WHOLE = /^-?\d{1,19}$/;

/** A row of an export read (raw, see EXPORT_COLUMNS), checked: an amount that is not an integer pair must never be written out. */
function exportedTx(r: unknown[], source: TxSource, detail: boolean): ExportedTx {
  const whole = r[5];
  const frac = r[6];
  if (typeof whole !== 'string' || !WHOLE.test(whole) || !Number.isInteger(frac) || (frac as number) < 0 || (frac as number) >= MINOR_PER_UNIT) {
    throw new Error(`ledger_tx row ${String(r[0])} (${source}): the amount is not a whole and fraction pair`);
  }
  return {
    seq: r[0] as number,
    source,
    txid: r[1] as string,
    type: r[2] as TxDirection,
    status: r[3] as TxStatus,
    contactHash: r[4] as string,
    amount: fromParts(BigInt(whole), frac as number),
    currency: r[7] as string,
    description: r[8] as string | null,
    createdAt: r[9] as number,
    detail: detail
      ? {
          txType: r[10] as string,
          memo: r[11] as string,
          senderAddress: r[12] as string | null,
          receiverAddress: r[13] as string | null,
          senderSignature: r[14] as string | null,
          recipientSignature: r[15] as string | null,
          content: r[16] as string | null,
          prevTxid: r[17] as string | null,
          recoveryCount: Number(r[18]),
          expiresAt: optionalNumber(r[19]),
        }
      : null,
  };
}

/** A row as read with safe integers (every INTEGER column is a bigint). */
interface RawRow {
  seq: bigint;
  txid: string;
  type: TxDirection;
  tx_type: string;
  status: TxStatus;
  contact_hash: string;
  counterparty_pubkey: string | null;
  from_hash: string;
  to_hash: string;
  amount_whole: bigint;
  amount_frac: bigint;
  currency: string;
  currency_key: string;
  time_us: bigint;
  salt: string;
  prev_txid: string | null;
  memo: string;
  description: string | null;
  expires_at: bigint | null;
  content: string | null;
  sender_sig: string | null;
  recipient_sig: string | null;
  sender_address: string | null;
  receiver_address: string | null;
  refund_of: string | null;
  in_doubt: bigint;
  held_only: bigint;
  attempts: bigint;
  repoints: bigint;
  busy_retries: bigint;
  next_attempt_at: bigint;
  sending_started_at: bigint | null;
  recovery_count: bigint;
  needs_review: bigint;
  failure_reason: string | null;
  chain_pos: bigint | null;
  created_at: bigint;
  updated_at: bigint;
  completed_at: bigint | null;
  relay: bigint;
  lock_condition: string | null;
  lock_fulfillment: string | null;
}

/** The row plus the queue bookkeeping the service does not expose. */
/** A settled row as an audit reads it. */
export interface AuditRow {
  txid: string;
  prevTxid: string | null;
  fromHash: string;
  toHash: string;
  amountWhole: bigint;
  amountFrac: bigint;
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  counterpartyPublicKey: string | null;
}

export interface TxRow extends Omit<LedgerTx, 'type'> {
  /** The direction: the send queue and the balances read it; `relay` says whether the public type is `relay`. */
  type: 'sent' | 'received';
  relay: boolean;
  seq: number;
  currencyKey: string;
  salt: string;
  inDoubt: boolean;
  /**
   * Sent only to collect the contact's record of it: the contact answers from its record or refuses `not_held`,
   * and never takes it as a new payment (a failed or cancelled payment is not sent again without the operator).
   */
  heldOnly: boolean;
  attempts: number;
  repoints: number;
  busyRetries: number;
  nextAttemptAt: number;
  sendingStartedAt: number | null;
  chainPos: number | null;
}

const num = (v: bigint | null): number | null => (v === null ? null : Number(v));

function toRow(r: RawRow): TxRow {
  return {
    seq: Number(r.seq),
    txid: r.txid,
    type: r.type === 'sent' ? 'sent' : 'received',
    txType: r.tx_type,
    status: r.status,
    contactHash: r.contact_hash,
    counterpartyPublicKey: r.counterparty_pubkey,
    fromHash: r.from_hash,
    toHash: r.to_hash,
    amount: fromParts(r.amount_whole, r.amount_frac),
    currency: r.currency,
    currencyKey: r.currency_key,
    timeMicros: Number(r.time_us),
    salt: r.salt,
    prevTxid: r.prev_txid,
    memo: r.memo,
    description: r.description,
    expiresAt: num(r.expires_at),
    content: r.content,
    senderSignature: r.sender_sig,
    recipientSignature: r.recipient_sig,
    senderAddress: r.sender_address,
    receiverAddress: r.receiver_address,
    refundOf: r.refund_of,
    inDoubt: r.in_doubt === 1n,
    heldOnly: r.held_only === 1n,
    attempts: Number(r.attempts),
    repoints: Number(r.repoints),
    busyRetries: Number(r.busy_retries),
    nextAttemptAt: Number(r.next_attempt_at),
    sendingStartedAt: num(r.sending_started_at),
    recoveryCount: Number(r.recovery_count),
    needsReview: r.needs_review === 1n,
    failureReason: r.failure_reason,
    chainPos: num(r.chain_pos),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    completedAt: num(r.completed_at),
    relay: r.relay === 1n,
    outgoing: r.type === 'sent',
    condition: r.lock_condition,
    fulfillment: r.lock_fulfillment,
  };
}

export interface InsertTx {
  txid: string;
  type: 'sent' | 'received';
  status: TxStatus;
  contactHash: string;
  counterpartyPublicKey: string | null;
  fromHash: string;
  toHash: string;
  amount: Minor;
  currency: string;
  timeMicros: number;
  salt: string;
  prevTxid: string | null;
  description: string | null;
  expiresAt: number | null;
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  senderAddress: string | null;
  receiverAddress: string | null;
  refundOf: string | null;
  now: number;
  /** Routed legs: the route hash, a relay's leg, the condition it is locked to. */
  memo?: string;
  relay?: boolean;
  condition?: string | null;
  /** A debt-cycle clearing's leg (its signed content says so): tx_type `clearing`. */
  kind?: string;
}

/** Changes the sender's queue makes to a row; unspecified columns keep their value. */
export interface TxPatch {
  status?: TxStatus;
  prevTxid?: string | null;
  content?: string | null;
  senderSignature?: string | null;
  recipientSignature?: string | null;
  inDoubt?: boolean;
  heldOnly?: boolean;
  attempts?: number;
  repoints?: number;
  busyRetries?: number;
  nextAttemptAt?: number;
  sendingStartedAt?: number | null;
  recoveryCount?: number;
  needsReview?: boolean;
  failureReason?: string | null;
  counterpartyPublicKey?: string | null;
  fulfillment?: string | null;
  description?: string | null;
}

const PATCH_COLUMNS: Record<keyof TxPatch, string> = {
  status: 'status',
  prevTxid: 'prev_txid',
  content: 'content',
  senderSignature: 'sender_sig',
  recipientSignature: 'recipient_sig',
  inDoubt: 'in_doubt',
  heldOnly: 'held_only',
  attempts: 'attempts',
  repoints: 'repoints',
  busyRetries: 'busy_retries',
  nextAttemptAt: 'next_attempt_at',
  sendingStartedAt: 'sending_started_at',
  recoveryCount: 'recovery_count',
  needsReview: 'needs_review',
  failureReason: 'failure_reason',
  counterpartyPublicKey: 'counterparty_pubkey',
  fulfillment: 'lock_fulfillment',
  description: 'description',
};

export class LedgerStore {
  readonly #insert: Statement;
  readonly #byTxid: Statement;
  readonly #byTxidArchived: Statement;
  readonly #head: Statement;
  readonly #nextPos: Statement;
  readonly #complete: Statement;
  readonly #balanceGet: Statement;
  readonly #balanceUpsert: Statement;
  readonly #balancesAll: Statement;
  readonly #balancesOne: Statement;
  readonly #chainRows: Statement;
  readonly #unresolvedOut: Statement;
  readonly #nextPending: Statement;
  readonly #pendingAfter: Statement;
  readonly #dueChains: Statement;
  readonly #nextExpiry: Statement;
  readonly #refunds: Statement;
  readonly #patchCache = new Map<string, Statement>();
  readonly #prepared: PreparedStatements;
  #pos: number | null = null;

  #stmt(sql: string, safeIntegers = false): Statement {
    return this.#prepared.get(sql, safeIntegers);
  }

  constructor(private readonly db: Database) {
    this.#prepared = new PreparedStatements(db);
    this.#insert = db.prepare(`INSERT INTO ledger_tx (txid, type, status, contact_hash, counterparty_pubkey, from_hash, to_hash,
        amount_whole, amount_frac, currency, currency_key, time_us, salt, prev_txid, description, expires_at, content, sender_sig,
        recipient_sig, sender_address, receiver_address, refund_of, memo, tx_type, relay, lock_condition, created_at, updated_at)
      VALUES (@txid, @type, @status, @contact_hash, @counterparty_pubkey, @from_hash, @to_hash, @amount_whole, @amount_frac, @currency,
        @currency_key, @time_us, @salt, @prev_txid, @description, @expires_at, @content, @sender_sig, @recipient_sig, @sender_address,
        @receiver_address, @refund_of, @memo, @tx_type, @relay, @lock_condition, @now, @now)`);
    this.#byTxid = db.prepare('SELECT * FROM ledger_tx WHERE txid = ?').safeIntegers(true);
    this.#byTxidArchived = db.prepare('SELECT * FROM ledger_tx_archive WHERE txid = ?').safeIntegers(true);
    this.#head = db.prepare(
      `SELECT txid FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos DESC LIMIT 1`,
    );
    this.#nextPos = db.prepare('SELECT chain_pos AS pos FROM ledger_tx INDEXED BY ledger_tx_pos WHERE chain_pos IS NOT NULL ORDER BY chain_pos DESC LIMIT 1');
    this.#complete = db.prepare(
      `UPDATE ledger_tx SET status = 'completed', chain_pos = ?, completed_at = ?, updated_at = ?, in_doubt = 0, next_attempt_at = 0,
        sending_started_at = NULL, failure_reason = NULL WHERE seq = ?`,
    );
    this.#balanceGet = db.prepare('SELECT * FROM ledger_balances WHERE contact_hash = ? AND currency_key = ?').safeIntegers(true);
    this.#balanceUpsert = db.prepare(`INSERT INTO ledger_balances (contact_hash, currency_key, currency, received_whole, received_frac,
        sent_whole, sent_frac, updated_at) VALUES (@contact_hash, @currency_key, @currency, @rw, @rf, @sw, @sf, @now)
      ON CONFLICT (contact_hash, currency_key) DO UPDATE SET received_whole = @rw, received_frac = @rf, sent_whole = @sw, sent_frac = @sf,
        updated_at = @now`);
    this.#balancesAll = db.prepare('SELECT * FROM ledger_balances ORDER BY contact_hash, currency_key').safeIntegers(true);
    this.#balancesOne = db.prepare('SELECT * FROM ledger_balances WHERE contact_hash = ? ORDER BY currency_key').safeIntegers(true);
    this.#chainRows = db.prepare(
      `SELECT txid, prev_txid FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos`,
    );
    // The hot queries name their index: without statistics the planner may prefer a scan of a whole contact's rows.
    this.#unresolvedOut = db
      .prepare(
        `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = ? AND contact_hash = ? AND currency_key = ? AND type = 'sent'
           AND (status = 'sending' OR in_doubt = 1) ORDER BY seq LIMIT 1`,
      )
      .safeIntegers(true);
    // A payment in doubt goes first: the contact may hold it as its chain head, so nothing is signed after it until
    // its resend settles it (a later payment signed onto our head meanwhile would be refused with it as the head).
    this.#nextPending = db
      .prepare(
        `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'pending' AND contact_hash = ? AND currency_key = ? AND type = 'sent'
           ORDER BY in_doubt DESC, seq LIMIT 1`,
      )
      .safeIntegers(true);
    this.#pendingAfter = db
      .prepare(
        `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'pending' AND contact_hash = ? AND currency_key = ? AND type = 'sent'
           AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .safeIntegers(true);
    this.#dueChains = db.prepare(
      `SELECT t.contact_hash, t.currency_key, t.next_attempt_at FROM ledger_tx t WHERE t.seq IN (
         SELECT MIN(seq) FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'pending' AND type = 'sent' GROUP BY contact_hash, currency_key)
       ORDER BY t.seq`,
    );
    this.#nextExpiry = db.prepare(
      `SELECT MIN(expires_at) AS at FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'pending' AND type = 'sent' AND in_doubt = 0
         AND expires_at IS NOT NULL`,
    );
    this.#refunds = db
      .prepare(
        `SELECT amount_whole, amount_frac FROM ledger_tx_all WHERE refund_of = ? AND type = 'sent' AND lock_condition IS NULL
           AND (status IN ('pending', 'sending', 'sent', 'accepted', 'completed') OR (status = 'failed' AND in_doubt = 1))`,
      )
      .safeIntegers(true);
  }

  insert(t: InsertTx): TxRow {
    const { whole, frac } = toParts(t.amount);
    const info = this.#insert.run({
      txid: t.txid,
      type: t.type,
      status: t.status,
      contact_hash: t.contactHash,
      counterparty_pubkey: t.counterpartyPublicKey,
      from_hash: t.fromHash,
      to_hash: t.toHash,
      amount_whole: whole,
      amount_frac: frac,
      currency: t.currency,
      currency_key: currencyKey(t.currency),
      time_us: t.timeMicros,
      salt: t.salt,
      prev_txid: t.prevTxid,
      description: t.description,
      expires_at: t.expiresAt,
      content: t.content,
      sender_sig: t.senderSignature,
      recipient_sig: t.recipientSignature,
      sender_address: t.senderAddress,
      receiver_address: t.receiverAddress,
      refund_of: t.refundOf,
      memo: t.memo ?? MEMO_STANDARD,
      tx_type: txTypeOf(t),
      relay: t.relay ? 1 : 0,
      lock_condition: t.condition ?? null,
      now: t.now,
    });
    return {
      seq: Number(info.lastInsertRowid),
      txid: t.txid,
      type: t.type,
      txType: txTypeOf(t),
      status: t.status,
      contactHash: t.contactHash,
      counterpartyPublicKey: t.counterpartyPublicKey,
      fromHash: t.fromHash,
      toHash: t.toHash,
      amount: t.amount,
      currency: t.currency,
      currencyKey: currencyKey(t.currency),
      timeMicros: t.timeMicros,
      salt: t.salt,
      prevTxid: t.prevTxid,
      memo: t.memo ?? MEMO_STANDARD,
      description: t.description,
      expiresAt: t.expiresAt,
      content: t.content,
      senderSignature: t.senderSignature,
      recipientSignature: t.recipientSignature,
      senderAddress: t.senderAddress,
      receiverAddress: t.receiverAddress,
      refundOf: t.refundOf,
      inDoubt: false,
      heldOnly: false,
      attempts: 0,
      repoints: 0,
      busyRetries: 0,
      nextAttemptAt: 0,
      sendingStartedAt: null,
      recoveryCount: 0,
      needsReview: false,
      failureReason: null,
      chainPos: null,
      createdAt: t.now,
      updatedAt: t.now,
      completedAt: null,
      relay: t.relay ?? false,
      outgoing: t.type === 'sent',
      condition: t.condition ?? null,
      fulfillment: null,
    };
  }

  /** A row by txid, live or archived (archived rows are settled and never change again). */
  get(txid: string): TxRow | null {
    const r = (this.#byTxid.get(txid) ?? this.#byTxidArchived.get(txid)) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  patch(seq: number, patch: TxPatch, now: number): void {
    const keys = (Object.keys(patch) as (keyof TxPatch)[]).filter((k) => patch[k] !== undefined).sort();
    const sig = keys.join(',');
    let stmt = this.#patchCache.get(sig);
    if (!stmt) {
      const sets = keys.map((k) => `${PATCH_COLUMNS[k]} = @${k}`);
      stmt = this.db.prepare(`UPDATE ledger_tx SET ${[...sets, 'updated_at = @now'].join(', ')} WHERE seq = @seq`);
      this.#patchCache.set(sig, stmt);
    }
    const params: Record<string, unknown> = { seq, now };
    for (const k of keys) {
      const v = patch[k];
      params[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    stmt.run(params);
  }

  /** Marks a row completed at the end of its chain and adds it to the balances; returns its chain position. Call inside a transaction. */
  complete(row: TxRow, now: number): number {
    const pos = this.#nextPosition();
    this.#completeAt(row, pos, now);
    return pos;
  }

  /**
   * Marks a row completed and adds it to the balances before it has a place in the chain (a leg this node, its payee,
   * fulfilled: its chain entry follows from the payer, and `chainIn` places it then). Call inside a transaction.
   */
  settle(row: TxRow, now: number): void {
    this.#completeAt(row, null, now);
  }

  #completeAt(row: TxRow, pos: number | null, now: number): void {
    this.#complete.run(pos, now, now, row.seq);
    this.addToBalance(row.contactHash, row.currency, row.type === 'received' ? 'received' : 'sent', row.amount, now);
  }

  /** What the legs received from the contact and completed here, still without their chain entries, add up to. */
  settledAwaitingEntry(contactHash: string, currency: string): Minor {
    const r = this.#stmt(
      `SELECT SUM(amount_whole) AS w, SUM(amount_frac) AS f FROM ledger_tx
         WHERE contact_hash = ? AND currency_key = ? AND status = 'completed' AND chain_pos IS NULL AND type = 'received'`,
      true,
    ).get(contactHash, currencyKey(currency)) as { w: bigint | null; f: bigint | null };
    return fromParts(r.w ?? 0n, r.f ?? 0n);
  }

  /** Places a settled row at the end of its chain; returns its position. Call inside a transaction. */
  chainIn(row: TxRow, now: number): number {
    const pos = this.#nextPosition();
    this.#stmt('UPDATE ledger_tx SET chain_pos = ?, updated_at = ? WHERE seq = ?').run(pos, now, row.seq);
    return pos;
  }

  #nextPosition(): number {
    // Chain positions only order completed rows; a gap (a rolled-back transaction) is harmless.
    this.#pos ??= (this.#nextPos.get() as { pos: number } | undefined)?.pos ?? 0;
    return ++this.#pos;
  }

  head(contactHash: string, currency: string): string | null {
    return (this.#head.get(contactHash, currencyKey(currency)) as { txid: string } | undefined)?.txid ?? null;
  }

  /** The completed chain in completion order: [txid, prev]. */
  chain(contactHash: string, currency: string): { txid: string; prev_txid: string | null }[] {
    return this.#chainRows.all(contactHash, currencyKey(currency)) as { txid: string; prev_txid: string | null }[];
  }

  /** The settled rows of a chain in chain order, with what an audit checks (audit.ts). */
  auditRows(contactHash: string, currency: string): AuditRow[] {
    const rows = this.#stmt(
      `SELECT txid, prev_txid, from_hash, to_hash, amount_whole, amount_frac, content, sender_sig, recipient_sig, counterparty_pubkey
         FROM ledger_tx_all WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos, seq`,
      true,
    ).all(contactHash, currencyKey(currency)) as {
      txid: string;
      prev_txid: string | null;
      from_hash: string;
      to_hash: string;
      amount_whole: bigint;
      amount_frac: bigint;
      content: string | null;
      sender_sig: string | null;
      recipient_sig: string | null;
      counterparty_pubkey: string | null;
    }[];
    return rows.map((r) => ({
      txid: r.txid,
      prevTxid: r.prev_txid,
      fromHash: r.from_hash,
      toHash: r.to_hash,
      amountWhole: r.amount_whole,
      amountFrac: r.amount_frac,
      content: r.content,
      senderSignature: r.sender_sig,
      recipientSignature: r.recipient_sig,
      counterpartyPublicKey: r.counterparty_pubkey,
    }));
  }

  /**
   * Puts a chain's positions back in link order (after rows were imported into its middle): the positions it holds
   * are handed out again, from the first row (no previous one held) along the links; at a fork, the lower txid first.
   */
  relinkChain(contactHash: string, currency: string): void {
    const rows = this.#stmt(
      `SELECT seq, txid, prev_txid AS prev, chain_pos AS pos FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED}`,
    ).all(contactHash, currencyKey(currency)) as { seq: number; txid: string; prev: string | null; pos: number }[];
    const held = new Set(rows.map((r) => r.txid));
    const next = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = r.prev !== null && held.has(r.prev) ? r.prev : '';
      next.set(key, [...(next.get(key) ?? []), r]);
    }
    const ordered: typeof rows = [];
    const byTxidDesc = (a: { txid: string }, b: { txid: string }): number => (a.txid < b.txid ? 1 : -1);
    // Depth first without recursion (a chain may hold many thousands of rows): the lowest txid is popped first.
    const stack = [...(next.get('') ?? [])].sort(byTxidDesc);
    while (stack.length) {
      const r = stack.pop()!;
      ordered.push(r);
      stack.push(...[...(next.get(r.txid) ?? [])].sort(byTxidDesc));
    }
    const positions = rows.map((r) => r.pos).sort((a, b) => a - b);
    const update = this.#stmt('UPDATE ledger_tx SET chain_pos = ? WHERE seq = ?');
    ordered.forEach((r, i) => update.run(positions[i], r.seq));
  }

  /** A settled row re-linked by a tx drop: its new previous txid, signed content and signatures. */
  relink(seq: number, prev: string | null, content: string, senderSignature: string, recipientSignature: string, now: number): void {
    this.#stmt('UPDATE ledger_tx SET prev_txid = ?, content = ?, sender_sig = ?, recipient_sig = ?, updated_at = ? WHERE seq = ?').run(
      prev,
      content,
      senderSignature,
      recipientSignature,
      now,
      seq,
    );
  }

  /** Every contact and currency with settled rows: the chains there are to audit. */
  chainPairs(): { contactHash: string; currency: string }[] {
    return this.#stmt(
      `SELECT contact_hash AS contactHash, MIN(currency) AS currency FROM ledger_tx_all WHERE ${CHAINED}
         GROUP BY contact_hash, currency_key
         ORDER BY contact_hash, currency_key`,
    ).all() as { contactHash: string; currency: string }[];
  }

  /** Currencies in which this node has a completed chain with the contact. */
  chainCurrencies(contactHash: string): string[] {
    return (
      this.#stmt(
        `SELECT MIN(currency) AS currency FROM ledger_tx_all WHERE contact_hash = ? AND ${CHAINED} GROUP BY currency_key`,
      ).all(
        contactHash,
      ) as { currency: string }[]
    ).map((r) => r.currency);
  }

  /** Our outgoing payment on this chain whose fate is open at the peer (in flight or in doubt), if any. */
  unresolvedOutgoing(contactHash: string, currency: string): TxRow | null {
    const key = currencyKey(currency);
    const sending = this.#unresolvedOut.get('sending', contactHash, key) as RawRow | undefined;
    const pending = this.#unresolvedOut.get('pending', contactHash, key) as RawRow | undefined;
    const r = sending && pending ? (sending.seq < pending.seq ? sending : pending) : (sending ?? pending);
    return r ? toRow(r) : null;
  }

  nextPending(contactHash: string, currencyKeyValue: string): TxRow | null {
    const r = this.#nextPending.get(contactHash, currencyKeyValue) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** The chain's pending outgoing payments queued after `seq`, oldest first. */
  pendingAfter(contactHash: string, currencyKeyValue: string, seq: number, limit: number): TxRow[] {
    return (this.#pendingAfter.all(contactHash, currencyKeyValue, seq, limit) as RawRow[]).map(toRow);
  }

  /** Chains holding pending outgoing payments with the retry time of their oldest one, oldest first. */
  pendingChains(): { contact_hash: string; currency_key: string; next_attempt_at: number }[] {
    return this.#dueChains.all() as { contact_hash: string; currency_key: string; next_attempt_at: number }[];
  }

  /** The earliest expiry of a pending payment that never reached the network, or null. */
  nextExpiry(): number | null {
    return (this.#nextExpiry.get() as { at: number | null }).at;
  }

  balanceOf(contactHash: string, currency: string): { received: Minor; sent: Minor } {
    const r = this.#balanceGet.get(contactHash, currencyKey(currency)) as
      | { received_whole: bigint; received_frac: bigint; sent_whole: bigint; sent_frac: bigint }
      | undefined;
    if (!r) return { received: 0n, sent: 0n };
    return { received: fromParts(r.received_whole, r.received_frac), sent: fromParts(r.sent_whole, r.sent_frac) };
  }

  addToBalance(contactHash: string, currency: string, side: 'received' | 'sent', amount: Minor, now: number): void {
    const current = this.balanceOf(contactHash, currency);
    const next = { ...current, [side]: current[side] + amount };
    const r = toParts(next.received);
    const s = toParts(next.sent);
    this.#balanceUpsert.run({
      contact_hash: contactHash,
      currency_key: currencyKey(currency),
      currency,
      rw: r.whole,
      rf: r.frac,
      sw: s.whole,
      sf: s.frac,
      now,
    });
  }

  balances(contactHash?: string): BalanceRecord[] {
    const rows = (contactHash ? this.#balancesOne.all(contactHash) : this.#balancesAll.all()) as {
      contact_hash: string;
      currency: string;
      received_whole: bigint;
      received_frac: bigint;
      sent_whole: bigint;
      sent_frac: bigint;
    }[];
    return rows.map((r) => ({
      contactHash: r.contact_hash,
      currency: r.currency,
      received: fromParts(r.received_whole, r.received_frac),
      sent: fromParts(r.sent_whole, r.sent_frac),
    }));
  }

  /**
   * Recomputes every balance row from the completed transactions (the totals are kept incrementally; this is the
   * audit). Returns the rows that differed, with what they held and what they hold now. Call inside a transaction.
   */
  /** Recomputes the stored totals from the completed rows: of every chain, or of one (`only`). Returns what changed. */
  rebuildBalances(
    now: number,
    only?: { contactHash: string; currency: string },
  ): { contactHash: string; currency: string; before: { received: Minor; sent: Minor }; after: { received: Minor; sent: Minor } }[] {
    const where = only ? `AND contact_hash = ? AND currency_key = ?` : '';
    const sums = this.#stmt(
      `SELECT contact_hash, currency_key, MIN(currency) AS currency, type, SUM(amount_whole) AS w, SUM(amount_frac) AS f
         FROM ledger_tx_all WHERE status = 'completed' ${where} GROUP BY contact_hash, currency_key, type`,
      true,
    ).all(...(only ? [only.contactHash, currencyKey(only.currency)] : [])) as { contact_hash: string; currency_key: string; currency: string; type: string; w: bigint; f: bigint }[];
    const want = new Map<string, { contactHash: string; currency: string; received: Minor; sent: Minor }>();
    for (const r of sums) {
      const key = `${r.contact_hash}:${r.currency_key}`;
      const entry = want.get(key) ?? { contactHash: r.contact_hash, currency: r.currency, received: 0n, sent: 0n };
      const total = fromParts(r.w, 0n) + r.f;
      if (r.type === 'received') entry.received += total;
      else if (r.type === 'sent') entry.sent += total;
      want.set(key, entry);
    }
    const changed = [];
    for (const b of this.balances(only?.contactHash)) {
      if (only && currencyKey(b.currency) !== currencyKey(only.currency)) continue;
      const key = `${b.contactHash}:${currencyKey(b.currency)}`;
      if (!want.has(key)) want.set(key, { contactHash: b.contactHash, currency: b.currency, received: 0n, sent: 0n });
    }
    for (const w of want.values()) {
      const before = this.balanceOf(w.contactHash, w.currency);
      if (before.received === w.received && before.sent === w.sent) continue;
      const r = toParts(w.received);
      const s = toParts(w.sent);
      this.#balanceUpsert.run({ contact_hash: w.contactHash, currency_key: currencyKey(w.currency), currency: w.currency, rw: r.whole, rf: r.frac, sw: s.whole, sf: s.frac, now });
      changed.push({ contactHash: w.contactHash, currency: w.currency, before, after: { received: w.received, sent: w.sent } });
    }
    return changed;
  }

  counts(): Record<string, number> {
    const rows = this.#stmt(`SELECT status, COUNT(*) AS n FROM ledger_tx GROUP BY status`).all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  refunded(txid: string): Minor {
    const rows = this.#refunds.all(txid) as { amount_whole: bigint; amount_frac: bigint }[];
    return rows.reduce((sum, r) => sum + fromParts(r.amount_whole, r.amount_frac), 0n);
  }

  list(f: TxFilter): { rows: TxRow[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.type === 'relay') where.push('relay = 1');
    else if (f.type) {
      where.push('type = ? AND relay = 0');
      params.push(f.type);
    }
    if (f.contactHash) {
      where.push('contact_hash = ?');
      params.push(f.contactHash);
    }
    if (f.status) {
      where.push('status = ?');
      params.push(f.status);
    }
    if (f.currency) {
      where.push('currency_key = ?');
      params.push(currencyKey(f.currency));
    }
    if (f.search) {
      where.push(`description LIKE ? ESCAPE '\\'`);
      params.push(`%${likeLiteral(f.search)}%`);
    }
    if (f.txidPrefix) {
      where.push(`txid LIKE ? ESCAPE '\\'`);
      params.push(`${likeLiteral(f.txidPrefix)}%`);
    }
    // Amounts are positive: whole * 1e8 + frac is the amount in minor units, well inside SQLite's 64-bit integers.
    if (f.amountMin !== undefined) {
      where.push('amount_whole * 100000000 + amount_frac >= ?');
      params.push(f.amountMin);
    }
    if (f.amountMax !== undefined) {
      where.push('amount_whole * 100000000 + amount_frac <= ?');
      params.push(f.amountMax);
    }
    if (f.from !== undefined) {
      where.push('created_at >= ?');
      params.push(f.from);
    }
    if (f.to !== undefined) {
      where.push('created_at < ?');
      params.push(f.to);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const dir = f.order === 'asc' ? 'ASC' : 'DESC';
    const order = f.sort === 'amount' ? `amount_whole ${dir}, amount_frac ${dir}, seq DESC` : `seq ${dir}`;
    const total = (this.#stmt(`SELECT COUNT(*) AS n FROM ledger_tx_all ${clause}`).get(...params) as { n: number }).n;
    const rows = this.#stmt(`SELECT * FROM ledger_tx_all ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`, true).all(...params, f.limit, f.offset) as RawRow[];
    return { rows: rows.map(toRow), total };
  }

  /** What locked legs from a contact add to its debt here: incoming legs accepted (locked) and not yet settled. */
  lockedIncoming(contactHash: string, currency: string): Minor {
    const r = this.#stmt(
      `SELECT SUM(amount_whole) AS w, SUM(amount_frac) AS f FROM ledger_tx INDEXED BY ledger_tx_locks
         WHERE contact_hash = ? AND currency_key = ? AND status = 'accepted' AND lock_condition IS NOT NULL AND type = 'received'`,
      true,
    ).get(contactHash, currencyKey(currency)) as { w: bigint | null; f: bigint | null };
    return fromParts(r.w ?? 0n, r.f ?? 0n);
  }

  /**
   * Fees earned relaying, per currency: for each route whose two legs here both completed, what came in minus what
   * went out (exactly the relay's fee).
   */
  feeEarnings(): Record<string, Minor> {
    const rows = this.#stmt(
      `SELECT MIN(currency) AS currency, SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END) AS w,
         SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END) AS f
         FROM ledger_tx_all WHERE relay = 1 AND memo IN (
           SELECT memo FROM ledger_tx_all WHERE memo <> 'standard' AND relay = 1
           GROUP BY memo HAVING COUNT(*) = 2 AND SUM(status = 'completed') = 2)
         GROUP BY currency_key`,
      true,
    ).all() as { currency: string; w: bigint; f: bigint }[];
    return Object.fromEntries(rows.map((r) => [r.currency, fromParts(r.w, r.f)]));
  }

  /**
   * The same fees per UTC day (the day the later leg completed) and currency, oldest first, `completedAt` within
   * [from, to); `total` counts the groups.
   */
  feeEarningsByDay(f: { from?: number; to?: number; limit: number; offset: number }): { rows: { day: string; currency: string; amount: Minor }[]; total: number } {
    const routes = `SELECT MIN(currency) AS currency, currency_key, MAX(completed_at) AS at,
        SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END) AS w,
        SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END) AS f
      FROM ledger_tx_all WHERE relay = 1 AND memo <> 'standard'
      GROUP BY memo HAVING COUNT(*) = 2 AND SUM(status = 'completed') = 2`;
    const days = `SELECT date(at / 1000, 'unixepoch') AS day, MIN(currency) AS currency, SUM(w) AS w, SUM(f) AS f FROM (${routes})
      WHERE at >= ? AND at < ? GROUP BY day, currency_key`;
    const range = [f.from ?? 0, f.to ?? Number.MAX_SAFE_INTEGER];
    const total = (this.#stmt(`SELECT COUNT(*) AS n FROM (${days})`).get(...range) as { n: number }).n;
    const rows = this.#stmt(`${days} ORDER BY day, currency LIMIT ? OFFSET ?`, true).all(...range, f.limit, f.offset) as { day: string; currency: string; w: bigint; f: bigint }[];
    return { rows: rows.map((r) => ({ day: r.day, currency: r.currency, amount: fromParts(r.w, r.f) })), total };
  }

  /** This node's legs of one routed payment (memo = the route hash), oldest first. */
  legsOf(routeHash: string): TxRow[] {
    const rows = this.#stmt(`SELECT * FROM ledger_tx_all WHERE memo = ? AND memo <> 'standard' ORDER BY seq`, true).all(routeHash) as RawRow[];
    return rows.map(toRow);
  }

  /**
   * The rows of `exportTransactions` in seq order, read by keyset pages: each page is one short read, so nothing
   * holds the connection between pages. Rows are decoded as they are taken, so a row that cannot be read stops the
   * iteration at that row, after the ones before it.
   */
  *exportRows(f: TxExportFilter, pageSize = f.detail === true ? EXPORT_DETAIL_PAGE : EXPORT_PAGE): Generator<ExportedTx> {
    // Live and archived rows, each read in seq order, merged (a union's ORDER BY would sort what is already sorted).
    const live = this.#exportFrom('ledger_tx', 'live', f, pageSize);
    const archived = this.#exportFrom('ledger_tx_archive', 'archive', f, pageSize);
    let a = live.next();
    let b = archived.next();
    while (!a.done || !b.done) {
      if (b.done || (!a.done && a.value.seq < b.value.seq)) {
        yield a.value as ExportedTx;
        a = live.next();
      } else {
        yield b.value;
        b = archived.next();
      }
    }
  }

  *#exportFrom(table: 'ledger_tx' | 'ledger_tx_archive', source: TxSource, f: TxExportFilter, pageSize: number): Generator<ExportedTx, void> {
    const where = ['seq > ?'];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown): void => {
      where.push(clause);
      params.push(value);
    };
    if (f.type === 'relay') where.push('relay = 1');
    else if (f.type) add('type = ? AND relay = 0', f.type);
    if (f.contactHash) add('contact_hash = ?', f.contactHash);
    if (f.status) add('status = ?', f.status);
    if (f.from !== undefined) add('created_at >= ?', f.from);
    if (f.to !== undefined) add('created_at < ?', f.to);
    const detail = f.detail === true;
    const columns = detail ? `${EXPORT_COLUMNS}, ${EXPORT_DETAIL}` : EXPORT_COLUMNS;
    // Arrays, not objects: half the cost per row, and an export reads millions of them.
    const stmt = this.#stmt(`SELECT ${columns} FROM ${table} WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).raw(true);
    let after: unknown = 0;
    for (;;) {
      const page = stmt.all(after, ...params, pageSize) as unknown[][];
      for (const raw of page) yield exportedTx(raw, source, detail);
      if (page.length < pageSize) return;
      after = page[page.length - 1]![0];
    }
  }

  /** Rows stuck in `sending` (startup: every one of them; at run time: older than the threshold). */
  sendingRows(olderThan: number): TxRow[] {
    const rows = this.#stmt(
      `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'sending' AND COALESCE(sending_started_at, 0) <= ? ORDER BY seq`,
      true,
    ).all(
      olderThan,
    ) as RawRow[];
    return rows.map(toRow);
  }

  /** Pending outgoing rows whose expiry passed and that never reached the network (safe to cancel locally). */
  expiredUnsent(now: number): TxRow[] {
    const rows = this.#stmt(
      `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'pending' AND type = 'sent' AND in_doubt = 0
        AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY seq`,
      true,
    ).all(now) as RawRow[];
    return rows.map(toRow);
  }

  // ---- archival (archive.ts)

  /**
   * The oldest settled rows of a chain that may move to the archive: a prefix of the live chain in chain order, each
   * completed before `olderThan`, at most `limit`, never the chain head (the next payment links to it).
   */
  archivable(contactHash: string, currencyKeyValue: string, olderThan: number, limit: number): ArchivableRow[] {
    const rows = this.#stmt(
      `SELECT seq, txid, content, sender_sig AS senderSignature, recipient_sig AS recipientSignature, chain_pos AS pos, completed_at AS completedAt
         FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos LIMIT ?`,
    ).all(contactHash, currencyKeyValue, limit + 1) as (ArchivableRow & { completedAt: number })[];
    const isHead = (i: number): boolean => i === rows.length - 1 && rows.length <= limit;
    const out: ArchivableRow[] = [];
    for (let i = 0; i < rows.length && out.length < limit && !isHead(i) && rows[i]!.completedAt < olderThan; i++) {
      const { completedAt: _at, ...row } = rows[i]!;
      out.push(row);
    }
    return out;
  }

  /** Moves live rows to the archive as they are (call inside a transaction). */
  moveToArchive(seqs: readonly number[]): void {
    const copy = this.#stmt('INSERT INTO ledger_tx_archive SELECT * FROM ledger_tx WHERE seq = ?');
    const remove = this.#stmt('DELETE FROM ledger_tx WHERE seq = ?');
    for (const seq of seqs) {
      copy.run(seq);
      remove.run(seq);
    }
  }

  /** The archived rows of a chain in chain order: what its checkpoint digests. */
  archivedRows(contactHash: string, currency: string): ArchivableRow[] {
    return this.#stmt(
      `SELECT seq, txid, content, sender_sig AS senderSignature, recipient_sig AS recipientSignature, chain_pos AS pos
         FROM ledger_tx_archive WHERE contact_hash = ? AND currency_key = ? ORDER BY chain_pos`,
    ).all(contactHash, currencyKey(currency)) as ArchivableRow[];
  }

  checkpoint(contactHash: string, currency: string): ArchiveCheckpoint | null {
    return (
      (this.#stmt('SELECT archived, digest, last_pos AS lastPos FROM ledger_archive_checkpoints WHERE contact_hash = ? AND currency_key = ?').get(
        contactHash,
        currencyKey(currency),
      ) as ArchiveCheckpoint | undefined) ?? null
    );
  }

  putCheckpoint(contactHash: string, currency: string, c: ArchiveCheckpoint, now: number): void {
    this.#stmt(
      `INSERT INTO ledger_archive_checkpoints (contact_hash, currency_key, currency, archived, digest, last_pos, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (contact_hash, currency_key) DO UPDATE SET archived = excluded.archived, digest = excluded.digest, last_pos = excluded.last_pos,
         updated_at = excluded.updated_at`,
    ).run(contactHash, currencyKey(currency), currency, c.archived, c.digest, c.lastPos, now);
  }

  /** Completed rows whose completion falls in [from, to): totals per currency and direction, and the UTC days seen. */
  activity(from: number, to: number): LedgerActivity {
    // A relay's payment is counted once, by the leg it was paid (its outgoing leg is the same payment passed on).
    const totals = this.#stmt(
      `SELECT MIN(currency) AS currency, CASE WHEN relay = 1 THEN 'relay' ELSE type END AS type, COUNT(*) AS n, SUM(amount_whole) AS whole,
         SUM(amount_frac) AS frac FROM ledger_tx_all WHERE status = 'completed' AND completed_at >= ? AND completed_at < ?
         AND NOT (relay = 1 AND type = 'sent') GROUP BY currency_key, 2`,
      true,
    ).all(from, to) as { currency: string; type: TxDirection; n: bigint; whole: bigint; frac: bigint }[];
    const days = this.#stmt(
      `SELECT DISTINCT date(completed_at / 1000, 'unixepoch') AS day FROM ledger_tx_all
         WHERE status = 'completed' AND completed_at >= ? AND completed_at < ? ORDER BY day`,
    ).all(from, to) as { day: string }[];
    return {
      totals: totals.map((r) => ({ currency: r.currency, type: r.type, count: Number(r.n), amount: fromParts(r.whole, r.frac) })),
      days: days.map((d) => d.day),
    };
  }
}
