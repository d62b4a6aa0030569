/**
 * The `payment-requests` service, for the exports plugin: every request in its export view (Document 1: the listed
 * fields plus requester_pubkey_hash, recipient_pubkey_hash, expires_at and stored_contact_name).
 */
export interface PaymentRequestsService {
  /** Every request, oldest first, optionally filtered, as export-view objects (timestamps `YYYY-MM-DD HH:MM:SS`). */
  exportRows(filter?: { direction?: 'incoming' | 'outgoing'; status?: string; contactHash?: string }): Record<string, unknown>[];
}
