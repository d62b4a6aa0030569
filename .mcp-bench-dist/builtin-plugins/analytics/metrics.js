/**
 * The heartbeat's metrics over a period, from aggregates only: the ledger's totals of completed payments, the
 * contacts service's count of accepted contacts, and the handshakes this plugin counted. No row, name, address,
 * key or single amount reaches the payload; a currency's volume is a sum.
 *
 * Counting rules (Document 2): sent, received and P2P counts are real payments only (completed; a payment that was
 * refused, cancelled or failed moved no money); P2P is the relay direction; the zero-amount contact handshakes are
 * `tx_contact_count`; `contact_count` is the absolute number of accepted contacts; `days_active` counts the UTC
 * days of the period with a payment or a handshake. A volume that would be one payment's amount is withheld.
 */
import { fromParts, toParts } from '../../sdk/money.js';
const COUNT_FIELD = {
    sent: 'tx_sent_count',
    received: 'tx_received_count',
    relay: 'tx_p2p_count',
};
function emptyVolume(currency) {
    return {
        currency,
        sent_count: 0,
        sent_whole: 0n,
        sent_frac: 0,
        received_count: 0,
        received_whole: 0n,
        received_frac: 0,
        relay_count: 0,
        relay_whole: 0n,
        relay_frac: 0,
    };
}
/**
 * A sum over fewer payments than this is sent as 0 (its count still goes): the sum of one payment is that payment's
 * amount, which Document 2 never sends ("individual transaction details").
 */
export const MIN_PAYMENTS_PER_SUM = 2;
const DIRECTIONS = ['sent', 'received', 'relay'];
/**
 * Per currency (case-insensitively one row), sorted by code; totals split into whole units and 1e-8 fractions, and
 * withheld where they would show a single payment.
 */
export function volumes(totals) {
    const rows = new Map();
    for (const t of totals) {
        const key = t.currency.toLowerCase();
        const row = rows.get(key) ?? emptyVolume(t.currency);
        rows.set(key, row);
        row[`${t.type}_count`] += t.count;
        const { whole, frac } = toParts(fromParts(row[`${t.type}_whole`], row[`${t.type}_frac`]) + t.amount);
        row[`${t.type}_whole`] = whole;
        row[`${t.type}_frac`] = Number(frac);
    }
    for (const row of rows.values()) {
        for (const d of DIRECTIONS) {
            if (row[`${d}_count`] >= MIN_PAYMENTS_PER_SUM)
                continue;
            row[`${d}_whole`] = 0n;
            row[`${d}_frac`] = 0;
        }
    }
    return [...rows.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
export function collectMetrics(sources, from, to) {
    const activity = sources.ledger.activity(from, to);
    const handshakes = sources.store.handshakes(from, to);
    const metrics = {
        tx_sent_count: 0,
        tx_received_count: 0,
        tx_p2p_count: 0,
        tx_contact_count: handshakes.count,
        contact_count: sources.contacts.accepted().length,
        days_active: new Set([...activity.days, ...handshakes.days]).size,
        volume_by_currency: volumes(activity.totals),
    };
    for (const t of activity.totals)
        metrics[COUNT_FIELD[t.type]] += t.count;
    return metrics;
}
//# sourceMappingURL=metrics.js.map