/**
 * A transaction's own row: written when the transaction is created, read by txid (live or archived), patched as it
 * moves, and what the direct refunds of it add up to.
 */
import type { Database, Statement } from 'better-sqlite3';
import { keyAfterArchive } from '../../../sdk/archive-keys.js';
import { fromParts, toParts, type Minor } from '../../../sdk/money.js';
import type { TxStatus } from '../api.js';
import { MEMO_STANDARD } from '../content.js';
import type { FeeLeg, FeeTotals } from './fees.js';
import { currencyKey, toRow, type RawRow, type TxRow } from './rows.js';

const TX_TYPE_STANDARD = 'standard';
/** The reference's tx_type of routed (P2P) legs. */
const TX_TYPE_ROUTED = 'p2p';
/** A row's tx_type: a clearing's leg, another routed leg, or a direct payment. */
const txTypeOf = (t: { kind?: string; condition?: string | null }): string => t.kind ?? (t.condition ? TX_TYPE_ROUTED : TX_TYPE_STANDARD);

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

/** A row about to change, as `patch` needs it. */
export type PatchedRow = Pick<TxRow, 'seq' | 'status'> & FeeLeg;

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

export class Transactions {
  readonly #insert: Statement;
  readonly #byTxid: Statement;
  readonly #byTxidArchived: Statement;
  readonly #refunds: Statement;
  readonly #patchCache = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly fees: FeeTotals,
  ) {
    // After every row, live or archived: the newest row moves to the archive when it settled before an older one.
    this.#insert = db.prepare(`INSERT INTO ledger_tx (seq, txid, type, status, contact_hash, counterparty_pubkey, from_hash, to_hash,
        amount_whole, amount_frac, currency, currency_key, time_us, salt, prev_txid, description, expires_at, content, sender_sig,
        recipient_sig, sender_address, receiver_address, refund_of, memo, tx_type, relay, lock_condition, created_at, updated_at)
      VALUES (${keyAfterArchive('ledger_tx', 'ledger_tx_archive', 'seq')}, @txid, @type, @status, @contact_hash, @counterparty_pubkey, @from_hash, @to_hash, @amount_whole, @amount_frac, @currency,
        @currency_key, @time_us, @salt, @prev_txid, @description, @expires_at, @content, @sender_sig, @recipient_sig, @sender_address,
        @receiver_address, @refund_of, @memo, @tx_type, @relay, @lock_condition, @now, @now)`);
    this.#byTxid = db.prepare('SELECT * FROM ledger_tx WHERE txid = ?').safeIntegers(true);
    this.#byTxidArchived = db.prepare('SELECT * FROM ledger_tx_archive WHERE txid = ?').safeIntegers(true);
    this.#refunds = db
      .prepare(
        `SELECT amount_whole, amount_frac FROM ledger_tx_all WHERE refund_of = ? AND type = 'sent' AND lock_condition IS NULL
           AND (status IN ('pending', 'sending', 'sent', 'accepted', 'completed') OR (status = 'failed' AND in_doubt = 1))`,
      )
      .safeIntegers(true);
  }

  insert(t: InsertTx): TxRow {
    const { whole, frac } = toParts(t.amount);
    const params = {
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
    };
    const info = this.fees.around({ relay: t.relay === true, memo: params.memo }, () => this.#insert.run(params));
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

  /** Changes `row` (as it stands before the change: its status, route and relay flag count for the fees earned). */
  patch(row: PatchedRow, patch: TxPatch, now: number): void {
    const keys = (Object.keys(patch) as (keyof TxPatch)[]).filter((k) => patch[k] !== undefined).sort();
    const sig = keys.join(',');
    let stmt = this.#patchCache.get(sig);
    if (!stmt) {
      const sets = keys.map((k) => `${PATCH_COLUMNS[k]} = @${k}`);
      stmt = this.db.prepare(`UPDATE ledger_tx SET ${[...sets, 'updated_at = @now'].join(', ')} WHERE seq = @seq`);
      this.#patchCache.set(sig, stmt);
    }
    const params: Record<string, unknown> = { seq: row.seq, now };
    for (const k of keys) {
      const v = patch[k];
      params[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    this.fees.aroundStatus(row, patch.status, () => stmt.run(params));
  }

  refunded(txid: string): Minor {
    const rows = this.#refunds.all(txid) as { amount_whole: bigint; amount_frac: bigint }[];
    return rows.reduce((sum, r) => sum + fromParts(r.amount_whole, r.amount_frac), 0n);
  }
}
