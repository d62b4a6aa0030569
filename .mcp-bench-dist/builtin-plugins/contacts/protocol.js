/**
 * The contact message types on the wire (inside sealed, signed envelopes; see docs/protocol.md).
 * Amounts travel as trimmed decimal strings; currency codes as the sender stores them (matched
 * case-insensitively).
 */
export const MSG = {
    /** "Let us open a credit line in this currency" (a new contact or one more currency). Must arrive. */
    request: 'contact.request',
    /** "I accept your request for this currency" with the credit the acceptor extends. Must arrive. */
    accept: 'contact.accept',
    /** "I decline (or withdraw) the pending request for this currency". Must arrive. */
    currencyDecline: 'contact.currency_decline',
    /** "I decline your contact request" (sent once after the per-currency declines). Must arrive. */
    decline: 'contact.decline',
    /** Status exchange; answered synchronously with a pong. Not queued. */
    ping: 'contact.ping',
    /**
     * "My addresses changed" (the hostname setting changed): the recipient replaces what it stores for the sender with
     * the addresses of the signed envelope header. Must arrive.
     */
    addresses: 'contact.addresses',
};
export const QUEUED_TYPES = [MSG.request, MSG.accept, MSG.currencyDecline, MSG.decline, MSG.addresses];
//# sourceMappingURL=protocol.js.map