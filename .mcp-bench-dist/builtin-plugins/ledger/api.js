/** Final statuses: nothing moves a transaction out of them (except an operator's revival of an in-doubt failure). */
export const FINAL_STATUSES = ['completed', 'rejected', 'cancelled', 'failed'];
/** Events published after commit (ctx.events): payload `{ txid, type, status, contact_hash, currency }`. */
export const LEDGER_EVENTS = {
    final: 'ledger.tx_final',
};
//# sourceMappingURL=api.js.map