/**
 * JSON shapes of payment requests (Document 1, "Payment request"). Timestamps are `YYYY-MM-DD HH:MM:SS` (UTC).
 */
import { formatMinor } from '../../sdk/money.js';
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
