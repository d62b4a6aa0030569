/**
 * A transaction row as the plugin's code holds it (TxRow) and as it is read whole from ledger_tx (RawRow, toRow),
 * shared by the parts of the store that return rows.
 */
import { fromParts } from '../../../sdk/money.js';
import type { LedgerTx, TxDirection, TxStatus } from '../api.js';

export const currencyKey = (currency: string): string => currency.toLowerCase();

/** A row as read with safe integers (every INTEGER column is a bigint). */
export interface RawRow {
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

export function toRow(r: RawRow): TxRow {
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
