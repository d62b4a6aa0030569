import { sameCurrency } from '../system/currency.js';
import { LEDGER_EVENTS } from './api.js';
import { FINAL_STATUSES } from './api.js';
/** The address a peer is best reached at, in the house preference: tor > https > http. */
export function preferredAddress(a) {
    if (!a)
        return null;
    return a.tor ?? a.https ?? a.http ?? null;
}
export const publicTx = (row) => {
    const { seq: _seq, currencyKey: _ck, salt: _salt, inDoubt: _d, attempts: _a, repoints: _r, busyRetries: _b, nextAttemptAt: _n, sendingStartedAt: _s, chainPos: _p, relay, type, ...tx } = row;
    return { ...tx, type: relay ? 'relay' : type };
};
function applyPatch(row, patch, now) {
    const out = { ...row, updatedAt: now };
    for (const [k, v] of Object.entries(patch))
        if (v !== undefined)
            out[k] = v;
    return out;
}
export class LedgerCore {
    ctx;
    store;
    contacts;
    #listeners = new Set();
    constructor(ctx, store, contacts) {
        this.ctx = ctx;
        this.store = store;
        this.contacts = contacts;
    }
    now() {
        return this.ctx.clock.now();
    }
    ownHash() {
        return this.ctx.identity.pubkeyHash;
    }
    ownAddress() {
        return preferredAddress(this.ctx.kernel.node.addresses);
    }
    contactAddress(hash) {
        return preferredAddress(this.contacts.get(hash)?.addresses);
    }
    /** The allowed-list spelling of a currency, or null when it is not allowed. */
    allowedCurrency(currency) {
        const allowed = this.ctx.settings.get('allowedCurrencies') ?? [];
        return allowed.find((c) => sameCurrency(c, currency)) ?? null;
    }
    onFinal(listener) {
        this.#listeners.add(listener);
        return () => this.#listeners.delete(listener);
    }
    /**
     * Applies a change to a row (call inside ctx.db.tx). When the change makes the row final, the listeners run in
     * the same transaction and an event is published after commit.
     */
    update(row, patch) {
        const now = this.now();
        this.store.patch(row.seq, patch, now);
        // The patch names TxRow fields: the updated row is the old one with the patch applied (no re-read).
        const updated = applyPatch(row, patch, now);
        if (patch.status && FINAL_STATUSES.includes(patch.status) && patch.status !== 'completed')
            this.#final(updated);
        return updated;
    }
    /** Completes a row: chain position, balances and listeners in the caller's transaction. */
    complete(row, patch = {}) {
        const now = this.now();
        if (Object.keys(patch).length)
            this.store.patch(row.seq, patch, now);
        const patched = applyPatch(row, patch, now);
        const chainPos = this.store.complete(patched, now);
        const updated = {
            ...patched,
            status: 'completed',
            chainPos,
            completedAt: now,
            inDoubt: false,
            nextAttemptAt: 0,
            sendingStartedAt: null,
            failureReason: null,
        };
        this.#final(updated);
        return updated;
    }
    finalize(row, status, reason, extra = {}) {
        return this.update(row, {
            ...extra,
            status,
            failureReason: reason,
            sendingStartedAt: null,
            nextAttemptAt: 0,
        });
    }
    #final(row) {
        const tx = publicTx(row);
        for (const listener of this.#listeners)
            listener(tx);
        this.ctx.db.afterCommit(() => this.ctx.events.publish(LEDGER_EVENTS.final, {
            txid: tx.txid,
            type: tx.type,
            status: tx.status,
            contact_hash: tx.contactHash,
            currency: tx.currency,
        }));
    }
}
//# sourceMappingURL=core.js.map