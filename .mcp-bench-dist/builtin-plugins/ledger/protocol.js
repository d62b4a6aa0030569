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
 */
export const MSG = {
    send: 'ledger.send',
};
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
};
//# sourceMappingURL=protocol.js.map