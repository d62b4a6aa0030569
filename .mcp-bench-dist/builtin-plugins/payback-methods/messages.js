/**
 * The contact fetch flow over the peer protocol (message type `payback.fetch`).
 *
 *   request  {type:'payback.fetch', v:1, reply_key:<base64url X25519 public key, one-time>, currency:<code>|null}
 *   reply    ok:true  {v:1, sealed:{epk, iv, ct}}   sealed to reply_key (crypto.ts), AAD
 *            `payback.fetch/v1|<responder hash>|<requester hash>|<reply_key>`; inside:
 *            {methods:[{method_id, type, label, currency, priority, fields, settlement_min_unit,
 *            settlement_min_unit_exponent}], generated_at}
 *            ok:false  not_a_contact | rate_limited | invalid_request
 *
 * Only contacts this node has accepted may fetch; blocked keys are refused by the contacts plugin's filter before
 * any handler runs. Only enabled methods whose share policy is `auto` are sent; `never` and disabled methods
 * never leave the node. The requester replaces its cached copy of that contact's methods with the answer.
 */
import { ApiError, PeerDeliveryError, PeerRefusal } from '../../sdk/index.js';
import { CONTACT_EVENTS } from '../contacts/api.js';
import { FieldCipher, newReplyKey, openReply, replyAad, sealReply } from './crypto.js';
import { receivedView } from './present.js';
import { RAIL_ID } from './registry.js';
import { LABEL_MAX, PRIORITY_MAX, PRIORITY_MIN, isPlainObject, normalizeCurrency } from './validate.js';
export const FETCH_TYPE = 'payback.fetch';
const PROTOCOL_VERSION = 1;
/** Per requesting contact: at most this many fetches per window (a fetch decrypts every shared method). */
export const FETCH_LIMIT = { max: 30, windowMs: 60_000 };
/** What a reply may carry at most; anything beyond is dropped by the requester. */
const MAX_METHODS = 500;
const MAX_FIELDS_JSON = 128 * 1024;
const B64URL_KEY = /^[A-Za-z0-9_-]{43}$/;
export class FetchFlow {
    core;
    contacts;
    #recent = new Map();
    constructor(core, contacts) {
        this.core = core;
        this.contacts = contacts;
    }
    register() {
        const { ctx } = this.core;
        ctx.peer.handle(FETCH_TYPE, (m) => this.answer(m));
        // Secrets a contact shared are dropped once it is no longer a contact.
        const forget = (payload) => {
            const hash = payload?.pubkey_hash;
            if (typeof hash === 'string' && this.core.store.forgetContact(hash) > 0) {
                ctx.log.info('payback methods of a former contact forgotten', { pubkey_hash: hash });
            }
        };
        ctx.events.subscribe(CONTACT_EVENTS.deleted, forget);
        ctx.events.subscribe(CONTACT_EVENTS.blocked, forget);
    }
    // ---- responder
    #allow(hash, now) {
        const times = (this.#recent.get(hash) ?? []).filter((t) => t > now - FETCH_LIMIT.windowMs);
        if (times.length >= FETCH_LIMIT.max) {
            this.#recent.set(hash, times);
            return false;
        }
        times.push(now);
        this.#recent.set(hash, times);
        return true;
    }
    answer(m) {
        const { ctx, store } = this.core;
        const requester = m.sender.pubkeyHash;
        if (!this.contacts.isAccepted(requester)) {
            throw new PeerRefusal('not_a_contact', 'only accepted contacts may fetch payback methods from this node');
        }
        if (!this.#allow(requester, ctx.clock.now())) {
            throw new PeerRefusal('rate_limited', `at most ${FETCH_LIMIT.max} fetches per minute`);
        }
        const replyKey = m.payload.reply_key;
        if (typeof replyKey !== 'string' || !B64URL_KEY.test(replyKey)) {
            throw new PeerRefusal('invalid_request', 'reply_key must be a base64url X25519 public key');
        }
        let currency;
        const rawCurrency = m.payload.currency;
        if (rawCurrency !== undefined && rawCurrency !== null) {
            const code = typeof rawCurrency === 'string' ? normalizeCurrency(rawCurrency) : null;
            if (!code)
                throw new PeerRefusal('invalid_request', 'currency must be 3-10 letters or digits, or null');
            currency = code;
        }
        const methods = [];
        for (const row of store.list({ includeDisabled: false, sharedOnly: true, ...(currency !== undefined ? { currency } : {}) })) {
            const fields = this.core.fieldsOf(row);
            if (!fields)
                continue;
            methods.push({
                method_id: row.method_id,
                type: row.type,
                label: row.label,
                currency: row.currency,
                priority: row.priority,
                fields,
                settlement_min_unit: row.settlement_min_unit,
                settlement_min_unit_exponent: row.settlement_min_unit_exponent,
            });
        }
        let sealed;
        try {
            const plaintext = JSON.stringify({ methods, generated_at: this.core.nowIso() });
            sealed = sealReply(Buffer.from(replyKey, 'base64url'), plaintext, replyAad(ctx.identity.pubkeyHash, requester, replyKey));
        }
        catch {
            throw new PeerRefusal('invalid_request', 'reply_key is not a usable X25519 public key');
        }
        ctx.log.info('payback methods shared with a contact', { pubkey_hash: requester, count: methods.length });
        return { v: PROTOCOL_VERSION, sealed };
    }
    // ---- requester
    resolve(reference) {
        const contact = this.contacts.resolve(reference);
        if (!contact.pubkeyHash) {
            throw new ApiError('contact_keys_unknown', 409, 'The keys of this contact are not known yet (its node has not answered so far)');
        }
        return contact;
    }
    async fetch(reference, rawCurrency) {
        const { ctx, store, cipher } = this.core;
        let currency = null;
        if (rawCurrency !== undefined && rawCurrency !== null && rawCurrency !== '') {
            currency = typeof rawCurrency === 'string' ? normalizeCurrency(rawCurrency) : null;
            if (!currency)
                throw new ApiError('invalid_currency', 400, 'currency must be 3 to 10 letters or digits', { field: 'currency' });
        }
        const contact = this.resolve(reference);
        if (contact.status === 'blocked')
            throw new ApiError('contact_blocked', 409, 'This contact is blocked; unblock it first');
        const target = this.contacts.target(contact.pubkeyHash);
        if (!target)
            throw new ApiError('contact_keys_unknown', 409, 'The keys of this contact are not known yet (its node has not answered so far)');
        const key = newReplyKey();
        let reply;
        try {
            reply = await ctx.peer.request(target, { type: FETCH_TYPE, v: PROTOCOL_VERSION, reply_key: key.publicB64, currency });
        }
        catch (err) {
            if (err instanceof PeerDeliveryError) {
                throw new ApiError('contact_unreachable', 502, `The contact's node could not be reached: ${err.message}`, { peer_code: err.code });
            }
            throw err;
        }
        if (!reply.ok) {
            const code = reply.error?.code ?? 'refused';
            const message = `The contact's node refused: ${reply.error?.message ?? code}`;
            if (code === 'rate_limited')
                throw new ApiError('fetch_rate_limited', 429, message, { peer_code: code });
            throw new ApiError('fetch_refused', 403, message, { peer_code: code });
        }
        if (reply.sender.pubkeyHash !== contact.pubkeyHash)
            throw new ApiError('invalid_reply', 502, 'The reply came from another node');
        let inner;
        try {
            const sealed = reply.data.sealed;
            inner = JSON.parse(openReply(key, sealed, replyAad(contact.pubkeyHash, ctx.identity.pubkeyHash, key.publicB64)));
        }
        catch {
            throw new ApiError('invalid_reply', 502, "The contact's reply could not be opened");
        }
        const list = isPlainObject(inner) && Array.isArray(inner.methods) ? inner.methods : null;
        if (!list)
            throw new ApiError('invalid_reply', 502, "The contact's reply holds no method list");
        const fetchedAt = this.core.nowIso();
        const rows = [];
        const seen = new Set();
        for (const item of list.slice(0, MAX_METHODS)) {
            const m = sharedMethod(item);
            if (!m || seen.has(m.method_id)) {
                ctx.log.warn('a malformed shared payback method was dropped', { pubkey_hash: contact.pubkeyHash });
                continue;
            }
            if (currency !== null && m.currency.toLowerCase() !== currency.toLowerCase())
                continue;
            seen.add(m.method_id);
            rows.push({
                contact_hash: contact.pubkeyHash,
                remote_id: m.method_id,
                position: rows.length,
                type: m.type,
                label: m.label,
                currency: m.currency,
                priority: m.priority,
                fields_enc: cipher.encrypt(m.fields, FieldCipher.receivedAad(contact.pubkeyHash, m.method_id)),
                settlement_min_unit: m.settlement_min_unit,
                settlement_min_unit_exponent: m.settlement_min_unit_exponent,
                fetched_at: fetchedAt,
            });
        }
        ctx.db.tx(() => store.replaceReceived(contact.pubkeyHash, currency, rows));
        ctx.log.info('payback methods fetched from a contact', { pubkey_hash: contact.pubkeyHash, count: rows.length });
        return this.cached(contact, currency);
    }
    /** What we hold from a contact (as of the last fetch), optionally one currency's worth. */
    cached(contact, currency) {
        const { store, cipher, registry } = this.core;
        const rows = store.received(contact.pubkeyHash).filter((r) => currency === null || r.currency.toLowerCase() === currency.toLowerCase());
        const methods = rows.map((r) => {
            const fields = cipher.decrypt(r.fields_enc, FieldCipher.receivedAad(r.contact_hash, r.remote_id));
            return receivedView(r, registry.mask(registry.get(r.type), fields), fields);
        });
        const fetchedAt = rows.reduce((latest, r) => (latest === null || r.fetched_at > latest ? r.fetched_at : latest), null);
        return { contact: { name: contact.name, pubkey_hash: contact.pubkeyHash }, methods, fetched_at: fetchedAt };
    }
}
const isInt = (v, min, max) => Number.isInteger(v) && v >= min && v <= max;
/** A method as a contact sent it, checked for shape (its fields are the contact's business, but bounded). */
function sharedMethod(item) {
    if (!isPlainObject(item))
        return null;
    const { method_id, type, label, currency, priority, fields, settlement_min_unit, settlement_min_unit_exponent } = item;
    if (typeof method_id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(method_id))
        return null;
    if (typeof type !== 'string' || !RAIL_ID.test(type))
        return null;
    if (typeof label !== 'string' || label.trim() === '' || [...label].length > LABEL_MAX)
        return null;
    const code = typeof currency === 'string' ? normalizeCurrency(currency) : null;
    if (!code)
        return null;
    if (!isInt(priority, PRIORITY_MIN, PRIORITY_MAX))
        return null;
    if (!isPlainObject(fields) || JSON.stringify(fields).length > MAX_FIELDS_JSON)
        return null;
    if (!isInt(settlement_min_unit, 1, 1_000_000_000) || !isInt(settlement_min_unit_exponent, -30, 0))
        return null;
    return { method_id, type, label: label.trim(), currency: code, priority, fields, settlement_min_unit, settlement_min_unit_exponent };
}
//# sourceMappingURL=messages.js.map