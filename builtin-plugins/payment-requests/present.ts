/**
 * JSON shapes of payment requests (Document 1, "Payment request"). Timestamps are `YYYY-MM-DD HH:MM:SS` (UTC).
 */
import { formatMinor } from '../../sdk/money.js';
import { amountSchema, arrayOf, integerSchema, nullable, objectOf, optional, stringSchema } from '../../sdk/schema.js';
import type { RequestRow } from './store.js';

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function requestTime(ms: number | null): string | null {
  if (ms === null) return null;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const RESOLVED = new Set(['approved', 'failed', 'declined', 'cancelled', 'expired']);

/** A request as listed. `resulting_txid` and `responded_at` appear once the request is resolved. */
export function requestView(r: RequestRow, contactName: string | null): Record<string, unknown> {
  return {
    id: r.id,
    request_id: r.requestId,
    direction: r.direction,
    status: r.status,
    contact_name: contactName ?? r.storedContactName,
    ...(r.direction === 'incoming' ? { requester_address: r.requesterAddress } : {}),
    amount: formatMinor(r.amount),
    currency: r.currency,
    description: r.description,
    created_at: requestTime(r.createdAt),
    ...(RESOLVED.has(r.status) || r.resultingTxid ? { resulting_txid: r.resultingTxid, responded_at: requestTime(r.respondedAt) } : {}),
    ...(r.payerNote ? { payer_note: r.payerNote } : {}),
    ...(r.status === 'failed' && r.failureReason ? { failure_reason: r.failureReason } : {}),
    delivery: r.delivery,
    ...(r.deliveryError ? { delivery_error: r.deliveryError } : {}),
  };
}

// ---- The answers of the request routes, as JSON schemas (`RouteDefinition.response`)

const time = { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$' };
const requestSchema = objectOf({
  id: integerSchema,
  request_id: stringSchema,
  direction: { type: 'string', enum: ['incoming', 'outgoing'] },
  status: stringSchema,
  contact_name: nullable(stringSchema),
  requester_address: optional(nullable(stringSchema)),
  amount: amountSchema,
  currency: stringSchema,
  description: nullable(stringSchema),
  created_at: time,
  resulting_txid: optional(nullable(stringSchema)),
  responded_at: optional(nullable(time)),
  payer_note: optional(stringSchema),
  failure_reason: optional(stringSchema),
  delivery: stringSchema,
  delivery_error: optional(stringSchema),
});
export const requestListResponse = objectOf({
  incoming: arrayOf(requestSchema),
  outgoing: arrayOf(requestSchema),
  pagination: objectOf({ incoming_total: integerSchema, outgoing_total: integerSchema, limit: integerSchema, offset: integerSchema }),
});
export const requestCreatedResponse = objectOf({ request_id: stringSchema });
/** An approved or retried request's payment: its txid, and the route's hash when it goes over one. */
export const requestPaymentResponse = objectOf({ txid: nullable(stringSchema), p2p_hash: optional(stringSchema) });
