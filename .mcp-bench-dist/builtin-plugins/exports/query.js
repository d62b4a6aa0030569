/**
 * The query string of the export routes (Document 1, "Exports"): `format`, `view`, and each entity's filters. A
 * parameter the route does not know is refused rather than ignored: a misspelt filter would otherwise hand the
 * operator every row while they believe they got a few.
 */
import { ApiError } from '../../sdk/index.js';
export const TX_STATUSES = ['pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed'];
export const TX_TYPES = ['sent', 'received', 'relay'];
export const REQUEST_STATUSES = ['pending', 'sending', 'approved', 'failed', 'declined', 'cancelled', 'expired'];
export const REQUEST_DIRECTIONS = ['incoming', 'outgoing'];
export const CONTACT_STATUSES = ['accepted', 'pending', 'blocked'];
/** The filters each entity takes besides `format` and `view`. */
export const FILTERS = {
    transactions: ['contact_pubkey_hash', 'status', 'type', 'from', 'to'],
    payment_requests: ['contact_pubkey_hash', 'status', 'direction', 'from', 'to'],
    contacts: ['status'],
    balances: ['currency', 'contact_pubkey_hash'],
};
const STATUSES = {
    transactions: TX_STATUSES,
    payment_requests: REQUEST_STATUSES,
    contacts: CONTACT_STATUSES,
};
const parameters = (entity) => ['format', 'view', ...FILTERS[entity]];
/** Every parameter a string: `parseQuery` reads the values, so each refusal names its field and what it takes. */
export function querySchema(entity) {
    return { type: 'object', properties: Object.fromEntries(parameters(entity).map((n) => [n, { type: 'string' }])) };
}
const invalid = (field, message, code = 'validation_error') => new ApiError(code, 400, message, { field });
function oneOf(field, raw, allowed) {
    if (raw === undefined)
        return undefined;
    const value = raw.trim().toLowerCase();
    if (!allowed.includes(value))
        throw invalid(field, `${field} must be one of ${allowed.join(', ')}`);
    return value;
}
const DAY_MS = 86_400_000;
/** A calendar date `YYYY-MM-DD` (UTC) as the ms of its start; February 30 is refused, not rolled over. */
function day(field, raw) {
    if (raw === undefined)
        return undefined;
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
    const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
    if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw.trim()) {
        throw invalid(field, `${field} must be a date YYYY-MM-DD (UTC)`);
    }
    return ms;
}
export function parseQuery(entity, q) {
    const known = parameters(entity);
    for (const key of Object.keys(q)) {
        if (!known.includes(key))
            throw invalid(key, `Unknown parameter ${key}: the ${entity} export takes ${known.join(', ')}`);
    }
    const out = {
        format: oneOf('format', q.format, ['csv', 'json']) ?? 'csv',
        view: oneOf('view', q.view, ['slim', 'full']) ?? 'slim',
    };
    if (q.contact_pubkey_hash !== undefined) {
        const hash = q.contact_pubkey_hash.trim().toLowerCase();
        if (!/^[0-9a-f]{64}$/.test(hash))
            throw invalid('contact_pubkey_hash', 'contact_pubkey_hash must be a 64-character hex string', 'invalid_hash');
        out.contactHash = hash;
    }
    const status = oneOf('status', q.status, STATUSES[entity] ?? []);
    if (status)
        out.status = status;
    const type = oneOf('type', q.type, TX_TYPES);
    if (type)
        out.type = type;
    const direction = oneOf('direction', q.direction, REQUEST_DIRECTIONS);
    if (direction)
        out.direction = direction;
    if (q.currency !== undefined) {
        const code = q.currency.trim();
        if (!/^[A-Za-z0-9]{3,10}$/.test(code))
            throw invalid('currency', 'currency must be 3-10 letters or digits', 'invalid_currency');
        out.currency = code.toLowerCase();
    }
    const from = day('from', q.from);
    const to = day('to', q.to);
    if (from !== undefined && to !== undefined && from > to)
        throw invalid('from', 'from must not be after to');
    if (from !== undefined)
        out.from = from;
    if (to !== undefined)
        out.to = to + DAY_MS;
    return out;
}
//# sourceMappingURL=query.js.map