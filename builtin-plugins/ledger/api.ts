/**
 * The `ledger` service: what wallet, payment requests, and later routing, chain drops and exports use to move money
 * and read it back. A plugin lists `"requires": ["ledger"]` in its plugin.json and, in setup:
 *
 *   const ledger = ctx.services.use<LedgerService>('ledger');
 *   const tx = ctx.db.tx(() => ledger.send({ contactHash, amount: 150000000n, currency: 'USD', description: 'lunch' }));
 *   ledger.onFinal((tx) => { ... });   // runs inside the transaction that makes a payment final
 *
 * Amounts are bigint minor units (1 = 1e-8). A payment is created `pending` and sent by the ledger's queue right
 * after the creating transaction commits; the REST layer answers at once ("accepted into the pipeline").
 */
import type { Minor } from '../../kernel/money.js';

/** Every status a transaction row can hold (Document 1). Direct payments never persist `sent` or `accepted`. */
export type TxStatus = 'pending' | 'sending' | 'sent' | 'accepted' | 'rejected' | 'cancelled' | 'completed' | 'failed';
export type TxDirection = 'sent' | 'received' | 'relay';

/** Final statuses: nothing moves a transaction out of them (except an operator's revival of an in-doubt failure). */
export const FINAL_STATUSES: readonly TxStatus[] = ['completed', 'rejected', 'cancelled', 'failed'];

export interface LedgerTx {
  txid: string;
  /** sent, received (relay later). */
  type: TxDirection;
  /** Always `standard` for direct payments. */
  txType: string;
  status: TxStatus;
  /** The counterparty's pubkey hash. */
  contactHash: string;
  fromHash: string;
  toHash: string;
  amount: Minor;
  currency: string;
  /** Previous txid on the chain of this pair and currency (null: first); set when the payment is signed. */
  prevTxid: string | null;
  memo: string;
  description: string | null;
  senderAddress: string | null;
  receiverAddress: string | null;
  /** For a refund: the received txid it returns. */
  refundOf: string | null;
  /** Signed time, microseconds since the epoch. */
  timeMicros: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  expiresAt: number | null;
  /** The signed content, verbatim (null until signed). */
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  /** Code or text of why the payment was rejected, cancelled or failed. */
  failureReason: string | null;
  /** Set when the outcome may differ on the other side (a failure after a delivery whose answer was lost). */
  needsReview: boolean;
  recoveryCount: number;
  /** The counterparty's raw Ed25519 key (base64url), when known. */
  counterpartyPublicKey: string | null;
}

export interface NewPayment {
  /** The recipient: an accepted contact holding an accepted line in `currency`. */
  contactHash: string;
  amount: Minor;
  currency: string;
  description?: string | null;
  /** A refund names the received transaction it returns. */
  refundOf?: string | null;
  /** The address shown as the recipient's (defaults to the contact's preferred one). */
  recipientAddress?: string | null;
}

export interface TxFilter {
  type?: TxDirection;
  contactHash?: string;
  status?: TxStatus;
  currency?: string;
  limit: number;
  offset: number;
}

export interface LedgerActivity {
  /** One row per currency (grouped case-insensitively) and direction that saw a completed payment. */
  totals: { currency: string; type: TxDirection; count: number; amount: Minor }[];
  days: string[];
}

export interface BalanceRecord {
  contactHash: string;
  currency: string;
  received: Minor;
  sent: Minor;
}

export interface LedgerService {
  /**
   * Creates an outgoing direct payment (`pending`) and queues it; call it inside `ctx.db.tx` to commit it with your
   * own change (the queue starts only after that transaction commits). Validates nothing the caller must check
   * (amount range, contact acceptance, allowed currency): callers answer those with their own REST errors.
   */
  send(payment: NewPayment): LedgerTx;
  get(txid: string): LedgerTx | null;
  list(filter: TxFilter): { rows: LedgerTx[]; total: number };
  /** Every balance row (per contact and currency), or one contact's. */
  balances(contactHash?: string): BalanceRecord[];
  /** Completed totals with one contact in one currency. */
  balance(contactHash: string, currency: string): { received: Minor; sent: Minor };
  /**
   * What refunds of a received transaction add up to: completed, in flight (pending, sending), and failed ones that
   * may have reached the contact (in doubt: they can still complete when resent, so they are not refundable twice).
   */
  refunded(txid: string): Minor;
  /**
   * Sends a payment failed for delivery (never confirmed either way) once more: the same payment, same txid, so the
   * contact settles it at most once (it answers a copy it already holds from its record). Call inside a transaction;
   * null when the payment is not such a failure (it was refused, or it is not final). Its dead letter is resolved when
   * it completes.
   */
  resend(txid: string, why: string): LedgerTx | null;
  /** The chain head (last completed txid) with a contact in a currency. */
  head(contactHash: string, currency: string): string | null;
  /** Fees earned from relaying, per currency (empty until routing exists). */
  feeEarnings(): Record<string, Minor>;
  /**
   * Completed payments whose completion time (ms since the epoch) falls in [from, to), in aggregate only: count and
   * total per currency and direction, and the UTC days (YYYY-MM-DD) on which any completed. For usage statistics.
   */
  activity(from: number, to: number): LedgerActivity;
  /**
   * Called synchronously inside the database transaction that moves a payment to a final status (completed,
   * rejected, cancelled, failed), on both sides. Use it to commit your own consequence atomically (payment requests).
   */
  onFinal(listener: (tx: LedgerTx) => void): () => void;
}

/** Events published after commit (ctx.events): payload `{ txid, type, status, contact_hash, currency }`. */
export const LEDGER_EVENTS = {
  final: 'ledger.tx_final',
} as const;
