/**
 * The `payment-requests` service, for the exports plugin: every request as an export reads it (Document 1: the listed
 * fields plus requester_pubkey_hash, recipient_pubkey_hash, expires_at and stored_contact_name).
 */
import type { Minor } from '../../sdk/money.js';
import type { BatchedRun } from '../../sdk/batches.js';

export type RequestStatus = 'pending' | 'sending' | 'approved' | 'failed' | 'declined' | 'cancelled' | 'expired';
export type RequestDirection = 'incoming' | 'outgoing';

/** What `exportRequests` reads. Every filter is optional; `from` and `to` bound `createdAt` (ms, from <= t < to). */
export interface RequestExportFilter {
  direction?: RequestDirection;
  status?: RequestStatus;
  /** The other party: the requester of an incoming request, the recipient of an outgoing one. */
  contactHash?: string;
  from?: number;
  to?: number;
}

/** A request as an export reads it. Times in ms since the epoch. */
export interface ExportedRequest {
  /** Store order, oldest first: the key on which archived and live rows merge into one sequence. */
  id: number;
  /** Where it is stored: live, or the archive that request archival (issue 15) moves old rows to. */
  source: 'live' | 'archive';
  requestId: string;
  direction: RequestDirection;
  status: RequestStatus;
  contactHash: string;
  requesterHash: string;
  recipientHash: string;
  /** The contact's name when the request was made. */
  storedContactName: string | null;
  requesterAddress: string | null;
  amount: Minor;
  currency: string;
  description: string | null;
  resultingTxid: string | null;
  createdAt: number;
  respondedAt: number | null;
  expiresAt: number;
}

export const PAYMENT_REQUEST_EVENTS = {
  /** A request was created, arrived, or changed status; payload `{ request_id, direction, status }`. */
  changed: 'payment_requests.changed',
} as const;

export interface PaymentRequestsService {
  /**
   * Every request the filter matches, oldest first, read a page at a time while the caller iterates: memory stays flat
   * whatever the count, and no read stays open between two pages. Live and archived rows, one sequence in `id` order.
   * A row that cannot be read faithfully throws from the iteration.
   */
  exportRequests(filter?: RequestExportFilter): Iterable<ExportedRequest>;
  /**
   * Archival: moves requests resolved (approved, declined, cancelled, expired) and unchanged since before `olderThan`
   * (ms) to the archive, `batchSize` per database transaction. They stay visible to every lookup, listing and export.
   */
  archiveResolved(olderThan: number, batchSize: number): Promise<BatchedRun>;
  /**
   * Asks an accepted contact to pay, as POST /api/v1/requests does, with its checks and errors (invalid_amount,
   * invalid_currency, invalid_description, contact_not_found, ambiguous_contact, contact_not_accepted, self_send).
   * For the plugin gateway: third-party plugins reach it as `payment_requests.create`.
   */
  create(input: { contact: string; amount: unknown; currency: unknown; description?: unknown }): CreatedRequest;
}

export interface CreatedRequest {
  requestId: string;
  contactHash: string;
  amount: Minor;
  currency: string;
  status: RequestStatus;
}
