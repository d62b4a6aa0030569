/**
 * What the send queue (sender.ts) reads: a chain's next pending payments, the chains that hold some and when they are
 * due, the earliest expiry, and the rows stuck in `sending` or expired before they left.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { PreparedStatements } from '../../../sdk/index.js';
import { MAX_FOLLOWING } from '../protocol.js';
import { currencyKey, toRow, type RawRow, type TxRow } from './rows.js';

export class QueueRows {
  readonly #sendingOut: Statement;
  readonly #othersOut: Statement;
  readonly #doubtOut: Statement;
  readonly #firstPending: Statement;
  readonly #pendingAfter: Statement;
  readonly #dueChains: Statement;
  readonly #nextExpiry: Statement;

  constructor(
    db: Database,
    private readonly statements: PreparedStatements,
  ) {
    // The hot queries name their index: without statistics the planner may prefer a scan of a whole contact's rows.
    // The partial indexes hold pending outgoing rows only (tables.ts, version 5): each lookup costs the same whatever
    // the backlog.
    this.#sendingOut = db
      .prepare(`SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'sending' AND contact_hash = ? AND currency_key = ? AND type = 'sent' ORDER BY seq LIMIT 1`)
      .safeIntegers(true);
    this.#othersOut = db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'sending' AND contact_hash = ? AND currency_key = ? AND type = 'sent')
             OR EXISTS (SELECT 1 FROM ledger_tx INDEXED BY ledger_tx_outbound WHERE status = 'pending' AND type = 'sent' AND contact_hash = ? AND currency_key = ?
                          AND seq <> ?)`,
      )
      .pluck();
    this.#doubtOut = db
      .prepare(
        `SELECT * FROM ledger_tx INDEXED BY ledger_tx_doubt WHERE status = 'pending' AND type = 'sent' AND in_doubt = 1 AND contact_hash = ? AND currency_key = ?
           ORDER BY seq LIMIT 1`,
      )
      .safeIntegers(true);
    this.#firstPending = db
      .prepare(`SELECT * FROM ledger_tx INDEXED BY ledger_tx_outbound WHERE status = 'pending' AND type = 'sent' AND contact_hash = ? AND currency_key = ? ORDER BY seq LIMIT 1`)
      .safeIntegers(true);
    // The limit is written in, not bound: SQLite (3.46 on) plans with a bound LIMIT's value, so it prepares a statement
    // with `LIMIT ?` again at every run, which cost this one 30-160 µs a payment against 2 µs.
    this.#pendingAfter = db
      .prepare(
        `SELECT * FROM ledger_tx INDEXED BY ledger_tx_outbound WHERE status = 'pending' AND type = 'sent' AND contact_hash = ? AND currency_key = ?
           AND seq > ? ORDER BY seq LIMIT ${MAX_FOLLOWING}`,
      )
      .safeIntegers(true);
    this.#dueChains = db.prepare(
      `SELECT t.contact_hash, t.currency_key, t.next_attempt_at FROM ledger_tx t WHERE t.seq IN (
         SELECT MIN(seq) FROM ledger_tx INDEXED BY ledger_tx_outbound WHERE status = 'pending' AND type = 'sent' GROUP BY contact_hash, currency_key)
       ORDER BY t.seq`,
    );
    this.#nextExpiry = db.prepare(
      `SELECT MIN(expires_at) AS at FROM ledger_tx INDEXED BY ledger_tx_expiring WHERE status = 'pending' AND type = 'sent' AND in_doubt = 0
         AND expires_at IS NOT NULL`,
    );
  }

  /** Our outgoing payment on this chain whose fate is open at the peer (in flight or in doubt), if any. */
  unresolvedOutgoing(contactHash: string, currency: string): TxRow | null {
    const key = currencyKey(currency);
    const sending = this.#sendingOut.get(contactHash, key) as RawRow | undefined;
    const pending = this.#doubtOut.get(contactHash, key) as RawRow | undefined;
    const r = sending && pending ? (sending.seq < pending.seq ? sending : pending) : (sending ?? pending);
    return r ? toRow(r) : null;
  }

  /** Whether a payment of ours on this chain other than row `seq` is in `sending` or waits in `pending`. */
  othersOut(contactHash: string, currencyKeyValue: string, seq: number): boolean {
    return this.#othersOut.get(contactHash, currencyKeyValue, contactHash, currencyKeyValue, seq) === 1;
  }

  /** The chain's next payment to send: one in doubt before any other (it may be the contact's head), else the oldest. */
  nextPending(contactHash: string, currencyKeyValue: string): TxRow | null {
    const r = (this.#doubtOut.get(contactHash, currencyKeyValue) ?? this.#firstPending.get(contactHash, currencyKeyValue)) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** The chain's pending outgoing payments queued after `seq`, oldest first: as many as can follow one in an exchange. */
  pendingAfter(contactHash: string, currencyKeyValue: string, seq: number): TxRow[] {
    return (this.#pendingAfter.all(contactHash, currencyKeyValue, seq) as RawRow[]).map(toRow);
  }

  /** Chains holding pending outgoing payments with the retry time of their oldest one, oldest first. */
  pendingChains(): { contact_hash: string; currency_key: string; next_attempt_at: number }[] {
    return this.#dueChains.all() as { contact_hash: string; currency_key: string; next_attempt_at: number }[];
  }

  /** The earliest expiry of a pending payment that never reached the network, or null. */
  nextExpiry(): number | null {
    return (this.#nextExpiry.get() as { at: number | null }).at;
  }

  /** Rows stuck in `sending` (startup: every one of them; at run time: older than the threshold). */
  sendingRows(olderThan: number): TxRow[] {
    const rows = this.statements.get(
      `SELECT * FROM ledger_tx INDEXED BY ledger_tx_queue WHERE status = 'sending' AND COALESCE(sending_started_at, 0) <= ? ORDER BY seq`,
      true,
    ).all(
      olderThan,
    ) as RawRow[];
    return rows.map(toRow);
  }

  /** Pending outgoing rows whose expiry passed and that never reached the network (safe to cancel locally). */
  expiredUnsent(now: number): TxRow[] {
    const rows = this.statements.get(
      `SELECT * FROM ledger_tx INDEXED BY ledger_tx_expiring WHERE status = 'pending' AND type = 'sent' AND in_doubt = 0
        AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY seq`,
      true,
    ).all(now) as RawRow[];
    return rows.map(toRow);
  }
}
