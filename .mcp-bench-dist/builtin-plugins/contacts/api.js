/** Events the plugin publishes (ctx.events): payload `{ pubkey_hash, currency? }`. */
export const CONTACT_EVENTS = {
    accepted: 'contacts.accepted',
    currencyAccepted: 'contacts.currency_accepted',
    declined: 'contacts.declined',
    deleted: 'contacts.deleted',
    blocked: 'contacts.blocked',
    unblocked: 'contacts.unblocked',
};
//# sourceMappingURL=api.js.map