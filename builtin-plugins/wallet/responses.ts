/** The answers of the wallet routes, as JSON schemas (`RouteDefinition.response`). */
import {
  amountSchema as amount,
  arrayOf,
  booleanSchema,
  dateTimeSchema,
  integerSchema,
  nullable,
  objectOf,
  optional,
  paginationSchema,
  stringSchema as string,
} from '../../sdk/schema.js';

const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const TX_STATUS = { type: 'string', enum: ['pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed'] };

export const infoResponse = objectOf({
  public_key_hash: hash,
  addresses: objectOf({ http: nullable(string), https: nullable(string), tor: nullable(string) }),
  fee_earnings: arrayOf(objectOf({ currency: string, total_amount: amount })),
  available_credit: arrayOf(objectOf({ currency: string, total_available_credit: amount })),
});

export const balancesResponse = objectOf({
  balances: arrayOf(
    objectOf({
      contact_name: nullable(string),
      address: nullable(string),
      pubkey_hash: hash,
      currency: string,
      received: amount,
      sent: amount,
      net_balance: amount,
    }),
  ),
});

/** The fields every view of a transaction starts with. */
const txCore = { txid: hash, type: string, tx_type: string, status: TX_STATUS, amount, currency: string };

const overviewTx = objectOf({
  ...txCore,
  counterparty_name: nullable(string),
  description: nullable(string),
  timestamp: dateTimeSchema,
});

export const overviewResponse = objectOf({
  balances: arrayOf(objectOf({ currency: string, total_balance: amount })),
  total_available_credit: arrayOf(objectOf({ currency: string, total: amount })),
  recent_transactions: arrayOf(overviewTx),
  transaction_count: integerSchema,
});

const fullTx = objectOf({
  ...txCore,
  sender_address: nullable(string),
  receiver_address: nullable(string),
  counterparty_name: nullable(string),
  counterparty_pubkey_hash: hash,
  description: nullable(string),
  memo: nullable(string),
  previous_txid: nullable(hash),
  refund_of: nullable(hash),
  failure_reason: nullable(string),
  needs_review: booleanSchema,
  timestamp: dateTimeSchema,
  completed_at: nullable(dateTimeSchema),
});

export const transactionsResponse = objectOf({ transactions: arrayOf(fullTx), pagination: paginationSchema });
/** One part of a split payment (originator: its first leg and what it cost; destination: the leg received). */
const partFields = { p2p_hash: hash, txid: nullable(hash), via: nullable(hash), amount, total: nullable(amount), fee: nullable(amount), status: string };
const splitPart = objectOf(partFields);
const splitView = objectOf({ group: hash, role: { type: 'string', enum: ['origin', 'destination'] }, amount, parts: arrayOf(splitPart) });

export const transactionResponse = objectOf({
  transaction: fullTx,
  signatures: objectOf({ sender: nullable(string), recipient: nullable(string) }),
  split: optional(splitView),
  /** A payment this node paid over one route: the first contact, the route's length, what it delivered and cost. */
  route: optional(objectOf({ ...partFields, hops: nullable(integerSchema) })),
});

export const sendResponse = objectOf({
  status: { type: 'string', enum: ['sent', 'awaiting_approval', 'searching'] },
  message: string,
  recipient: string,
  recipient_address: nullable(string),
  amount,
  currency: string,
  txid: nullable(hash),
  type: { type: 'string', enum: ['standard', 'p2p'] },
  p2p_hash: optional(string),
  best_fee: optional(booleanSchema),
  total: optional(amount),
  fee: optional(amount),
  split: optional(objectOf({ group: hash, parts: arrayOf(splitPart) })),
});

export const refundResponse = objectOf({
  status: { type: 'string', enum: ['fully_refunded', 'partially_refunded'] },
  message: string,
  original_txid: hash,
  refund_txid: nullable(hash),
  amount,
  currency: string,
  original_amount: amount,
  already_refunded: amount,
  remaining: amount,
  fully_refunded: booleanSchema,
  note: string,
  type: optional(string),
  p2p_hash: optional(string),
  routing_status: optional(string),
  total: optional(amount),
  fee: optional(amount),
});

export const feeEarningsResponse = objectOf({ days: arrayOf(objectOf({ day: string, currency: string, amount })), pagination: paginationSchema });
