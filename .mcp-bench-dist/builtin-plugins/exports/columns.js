/**
 * The columns of each export, slim and full, in Document 1's order, and the rules of its "Rules" paragraph:
 * descriptions display-sanitised, signed content verbatim, counterparty names only from accepted contacts, dates
 * `YYYY-MM-DDTHH:MM:SSZ`, amounts as `_decimal` (8 decimals), `_whole` and `_frac` (the sign on the whole part).
 */
import { formatMinorFixed, toParts } from '../../sdk/money.js';
import { clampUtf8, stripUnsafeText } from '../../sdk/text.js';
/**
 * The most a description within Document 1's 255 characters can take in UTF-8 (4 bytes each): a valid description
 * is never cut, and whatever arrived longer (older data, a foreign node) still makes a bounded cell.
 */
export const DESCRIPTION_MAX_BYTES = 255 * 4;
/** A description as a reader should see it: control, bidirectional and zero-width characters removed, byte-clamped. */
export function displayDescription(text) {
    return text === null ? null : clampUtf8(stripUnsafeText(text), DESCRIPTION_MAX_BYTES);
}
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const DAY_S = 86_400;
let cachedDay = NaN;
let cachedDayText = '';
/**
 * `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds, cut not rounded). The date part is kept per day and the time made by
 * arithmetic: an export formats millions of these, and `toISOString` per row cost as much as reading the row.
 */
export function exportDate(ms) {
    if (ms === null || !Number.isFinite(ms))
        return null;
    const seconds = Math.floor(ms / 1000);
    const day = Math.floor(seconds / DAY_S);
    if (day !== cachedDay) {
        const iso = new Date(day * DAY_S * 1000).toISOString();
        cachedDayText = iso.slice(0, iso.indexOf('T') + 1);
        cachedDay = day;
    }
    const t = seconds - day * DAY_S;
    return `${cachedDayText}${TWO_DIGITS[Math.floor(t / 3600)]}:${TWO_DIGITS[Math.floor(t / 60) % 60]}:${TWO_DIGITS[t % 60]}Z`;
}
/** A stored ISO 8601 time in the export's form; null when absent or unreadable. */
export const exportDateOf = (iso) => (iso === null ? null : exportDate(Date.parse(iso)));
const col = (name, kind, get) => ({ name, kind, get });
/** The three amount columns of one amount (`amount_decimal`, `amount_whole`, `amount_frac`), split once per row. */
function amountColumns(prefix, of) {
    let last;
    let parts = { value: 0n, whole: 0n, frac: 0n };
    const split = (r) => {
        if (r !== last) {
            last = r;
            const value = of(r);
            parts = { value, ...toParts(value) };
        }
        return parts;
    };
    return [
        col(`${prefix}_decimal`, 'decimal', (r) => {
            const p = split(r);
            return p.value >= 0n ? `${p.whole}.${String(p.frac).padStart(8, '0')}` : formatMinorFixed(p.value);
        }),
        col(`${prefix}_whole`, 'int', (r) => split(r).whole),
        col(`${prefix}_frac`, 'int', (r) => split(r).frac),
    ];
}
export function transactionColumns(view, names) {
    const slim = [
        col('txid', 'text', (r) => r.txid),
        col('date_utc', 'date', (r) => exportDate(r.createdAt)),
        col('direction', 'text', (r) => r.type),
        col('status', 'text', (r) => r.status),
        col('counterparty_name', 'text', (r) => names.get(r.contactHash) ?? null),
        col('counterparty_pubkey_hash', 'text', (r) => r.contactHash),
        col('currency', 'text', (r) => r.currency),
        ...amountColumns('amount', (r) => r.amount),
        col('description', 'text', (r) => displayDescription(r.description)),
    ];
    if (view === 'slim')
        return slim;
    const d = (r) => r.detail;
    return [
        ...slim,
        col('routing_marker', 'text', (r) => d(r).memo),
        col('tx_type', 'text', (r) => r.txType),
        col('sender_address', 'text', (r) => d(r).senderAddress),
        col('receiver_address', 'text', (r) => d(r).receiverAddress),
        col('sender_signature', 'token', (r) => d(r).senderSignature),
        col('recipient_signature', 'token', (r) => d(r).recipientSignature),
        col('signed_message_content', 'verbatim', (r) => d(r).content),
        col('previous_txid', 'text', (r) => d(r).prevTxid),
        // A direct payment's sender and recipient are its ends; a relayed leg's ends are the route's (routing, later).
        col('initial_sender_address', 'text', (r) => (r.type === 'relay' ? null : d(r).senderAddress)),
        col('end_recipient_address', 'text', (r) => (r.type === 'relay' ? null : d(r).receiverAddress)),
        col('recovery_count', 'int', (r) => d(r).recoveryCount),
        col('expires_at', 'date', (r) => exportDate(d(r).expiresAt)),
        col('source_table', 'text', (r) => r.source),
    ];
}
export function requestColumns(view, names) {
    const slim = [
        col('request_id', 'text', (r) => r.requestId),
        col('date_utc', 'date', (r) => exportDate(r.createdAt)),
        col('direction', 'text', (r) => r.direction),
        col('status', 'text', (r) => r.status),
        col('counterparty_name', 'text', (r) => names.get(r.contactHash) ?? null),
        col('counterparty_pubkey_hash', 'text', (r) => r.contactHash),
        col('currency', 'text', (r) => r.currency),
        ...amountColumns('amount', (r) => r.amount),
        col('description', 'text', (r) => displayDescription(r.description)),
    ];
    if (view === 'slim')
        return slim;
    return [
        ...slim,
        col('requester_pubkey_hash', 'text', (r) => r.requesterHash),
        col('recipient_pubkey_hash', 'text', (r) => r.recipientHash),
        col('requester_address', 'text', (r) => r.requesterAddress),
        col('expires_at', 'date', (r) => exportDate(r.expiresAt)),
        col('responded_at', 'date', (r) => exportDate(r.respondedAt)),
        col('resulting_txid', 'text', (r) => r.resultingTxid),
        // A request travels in a signed envelope that is not kept: there is no signed payload of its own to show.
        col('signed_message_content', 'verbatim', () => null),
        col('stored_contact_name', 'text', (r) => r.storedContactName),
        col('source_table', 'text', (r) => r.source),
    ];
}
export function contactColumns(view) {
    const slim = [
        col('name', 'text', (r) => r.name),
        col('pubkey_hash', 'text', (r) => r.pubkeyHash),
        col('status', 'text', (r) => r.status),
        col('online_status', 'text', (r) => r.onlineStatus),
        col('created_at_utc', 'date', (r) => exportDateOf(r.createdAt)),
        col('last_ping_at_utc', 'date', (r) => exportDateOf(r.lastPingAt)),
    ];
    if (view === 'slim')
        return slim;
    return [
        ...slim,
        col('tor_address', 'text', (r) => r.addresses.tor),
        col('https_address', 'text', (r) => r.addresses.https),
        col('http_address', 'text', (r) => r.addresses.http),
        col('valid_chain', 'bool', (r) => r.chainValid),
        // The contacts plugin does not keep the version a contact's node reports (yet): empty, like an unknown value.
        col('remote_version', 'text', () => null),
        col('contact_id', 'int', (r) => r.id),
        col('pubkey', 'token', (r) => r.pubkey),
    ];
}
export function balanceColumns(view) {
    const net = (r) => r.received - r.sent;
    const slim = [
        col('currency', 'text', (r) => r.currency),
        col('contact_name', 'text', (r) => r.contactName),
        col('contact_pubkey_hash', 'text', (r) => r.contactHash),
        col('received_decimal', 'decimal', (r) => formatMinorFixed(r.received)),
        col('sent_decimal', 'decimal', (r) => formatMinorFixed(r.sent)),
        col('net_decimal', 'decimal', (r) => formatMinorFixed(net(r))),
    ];
    if (view === 'slim')
        return slim;
    const [, receivedWhole, receivedFrac] = amountColumns('received', (r) => r.received);
    const [, sentWhole, sentFrac] = amountColumns('sent', (r) => r.sent);
    const [, netWhole, netFrac] = amountColumns('net', net);
    return [...slim, receivedWhole, receivedFrac, sentWhole, sentFrac, netWhole, netFrac];
}
//# sourceMappingURL=columns.js.map