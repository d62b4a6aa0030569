/**
 * The ledger's node-to-node messages (docs/protocol.md, "Ledger messages").
 *
 *   ledger.send   {content, sender_signature}
 *     ok    → {status:'completed', txid, content, sender_signature, recipient_signature, available_credit}
 *     refusals (PeerRefusal codes, data in brackets):
 *       invalid_transaction        malformed content, wrong recipient or sender, bad txid
 *       invalid_signature          the sender signature does not verify
 *       duplicate_txid             the txid is known here as something else
 *       currency_not_allowed       the currency is not in the receiver's allowed list
 *       contact_not_accepted       the sender is not an accepted contact with this currency accepted
 *       expired                    the signed `expires` has passed on the receiver's clock
 *       chain_busy [retry_after_ms] the receiver is settling its own payment on this chain; retry shortly
 *       invalid_previous_txid [expected_txid]  prev is not the receiver's chain head
 *       insufficient_credit [available_credit] the sender's debt after the payment would exceed the limit
 *       chain_blocked              the chain takes no transactions until a gap is resolved (a rejected tx drop)
 *
 *   Pipelining: `following` carries up to MAX_FOLLOWING more payments of the same chain, each signed onto the one
 *   before it. The receiver takes them in the same transaction, in order, up to the first refusal, and answers each
 *   in the reply's `following` (a SendReply, or {status:'refused', code, message, data}); a payment without an
 *   answer was not looked at (a refusal before it, or a node that predates `following` and ignores it).
 */
export const MSG = {
  send: 'ledger.send',
} as const;

export const REFUSAL = {
  invalid: 'invalid_transaction',
  badSignature: 'invalid_signature',
  duplicate: 'duplicate_txid',
  currency: 'currency_not_allowed',
  notAccepted: 'contact_not_accepted',
  expired: 'expired',
  chainBusy: 'chain_busy',
  invalidPrevious: 'invalid_previous_txid',
  insufficientCredit: 'insufficient_credit',
  notHeld: 'not_held',
  chainBlocked: 'chain_blocked',
} as const;

export interface SendPayload {
  type: typeof MSG.send;
  [key: string]: unknown;
  /** The canonical signed content (see content.ts). */
  content: string;
  /** base64url Ed25519 signature of "wn-tx-v1\n" + content by the sender. */
  sender_signature: string;
  /** Answer from your record of this payment, or refuse `not_held`; never take it as a new payment. */
  held_only?: true;
  /** The payments that follow this one on the chain (pipelining, above). */
  following?: SignedEntry[];
}

/** Payments after the first in one `ledger.send`: a batch of a chain's queue travels in one exchange. */
export const MAX_FOLLOWING = 63;

export interface SignedEntry {
  content: string;
  sender_signature: string;
}

export type FollowingResult = SendReply | { status: 'refused'; code: string; message: string; data?: Record<string, unknown> };

export interface SendReply {
  status: 'completed';
  txid: string;
  /** The content the receiver countersigned (the one it holds: an earlier signing when the txid was known). */
  content: string;
  sender_signature: string;
  /** base64url Ed25519 signature of the same bytes by the receiver. */
  recipient_signature: string;
  /** What the sender may still send in this currency (limit minus its debt), minor units as a decimal string. */
  available_credit: string;
  /** The answers to the request's `following`, in order, up to the first refusal. */
  following?: FollowingResult[];
}
