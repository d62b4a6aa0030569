/**
 * The routing plugin's node-to-node messages and the pure rules they follow (docs/protocol.md, "Routing").
 *
 *   route.request   discovery (DLQ label p2p): {hash, salt, time, currency, amount, budget, fast, expires}
 *                   reply {status: 'answered', response} when the receiver can answer at once (destination, dead
 *                   end, a search already done), else {status: 'pending'} and a route.response follows
 *   route.response  an answer (DLQ label rp2p): {hash, budget, found, amount?, hops?, condition?, signature?}
 *   route.cancel    the asker does not need the offer any more: {hash, budget}
 *   route.prepare   a hash-locked leg, payer → payee: {hash, budget, statement, signature}
 *                   reply {status: 'locked' | 'fulfilled', fulfillment?, recipient_signature}
 *   route.fulfil    payee → payer, the preimage: {txid, fulfillment}
 *   route.reject    payee → payer, the leg is released: {txid, reason}
 *   route.note      originator → destination, sealed: {hash, secret, description?, origin_address?}
 */
import { createHash, randomBytes } from 'node:crypto';
import { PeerRefusal, percentOf } from '../../sdk/index.js';
export const MSG = {
    request: 'route.request',
    response: 'route.response',
    cancel: 'route.cancel',
    prepare: 'route.prepare',
    fulfil: 'route.fulfil',
    reject: 'route.reject',
    note: 'route.note',
};
export const REFUSAL = {
    invalid: 'invalid_request',
    rateLimited: 'rate_limited',
    notAccepted: 'contact_not_accepted',
    currency: 'currency_not_allowed',
    insufficientCredit: 'insufficient_credit',
    expired: 'expired',
    unknownRoute: 'route_unknown',
    mismatch: 'route_mismatch',
    unknownLeg: 'unknown_leg',
    badFulfillment: 'invalid_fulfillment',
    rejected: 'rejected',
};
export const HEX64 = /^[0-9a-f]{64}$/;
const MINOR = /^[1-9][0-9]{0,29}$/;
const CURRENCY = /^[A-Za-z0-9]{3,10}$/;
/** The most legs a route may have (maxP2pLevel's ceiling). */
export const MAX_BUDGET = 10;
export const sha256Hex = (data) => createHash('sha256').update(data).digest('hex');
export const randomHex = (bytes) => randomBytes(bytes).toString('hex');
/** The condition a preimage (hex) fulfils: hex SHA-256 of its bytes. */
export const conditionOf = (preimage) => sha256Hex(Buffer.from(preimage, 'hex'));
/**
 * The route hash commits to the destination's address (canonical form), a salt and the request time, so a relay
 * learns the destination only if it already knows that address (it tests its own and its contacts' addresses).
 */
export const routeHash = (address, salt, timeMicros) => sha256Hex(`wn-route-v1\n${address}\n${salt}\n${timeMicros}`);
/** A relay's fee on what it passes on: its percent for the upstream's line, truncated to 1e-8, at least 1e-8 when not zero. */
export function relayFee(amount, percent) {
    if (percent === null || Number(percent) === 0)
        return 0n;
    const fee = percentOf(amount, percent);
    return fee > 0n ? fee : 1n;
}
/** Whether a route costing `total` for `base` stays within `maxFee` percent of the amount (exactly, no rounding). */
export function withinMaxFee(base, total, maxFeePercent) {
    // An integer fee is at most base x p / 100 exactly when it is at most that value truncated.
    return total - base <= percentOf(base, maxFeePercent);
}
/**
 * The hop budget of a new route request (the reference's rule): maxP2pLevel, or when randomized, from half of it
 * upwards, one more level at a time with probability 0.7, so a relay cannot tell how far the originator is.
 */
export function hopBudget(maxLevel, randomized, random = Math.random) {
    const max = Math.max(1, Math.min(MAX_BUDGET, Math.floor(maxLevel)));
    if (!randomized)
        return max;
    let budget = Math.max(1, Math.floor(max / 2));
    while (budget < max && random() >= 0.3)
        budget++;
    return budget;
}
/** The bytes a responder signs for an offer: it carries `amount` to the destination of `hash` within `hops` legs. */
export const offerBytes = (o) => Buffer.from(`wn-route-offer-v1\n${o.hash}\n${o.budget}\n${o.amount}\n${o.hops}\n${o.condition}\n${o.currency}`, 'utf8');
const bad = (message) => new PeerRefusal(REFUSAL.invalid, message);
const int = (v, min, max, field) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
        throw bad(`${field} must be an integer from ${min} to ${max}`);
    return v;
};
const hex64 = (v, field) => {
    if (typeof v !== 'string' || !HEX64.test(v))
        throw bad(`${field} must be 64 lower-case hex characters`);
    return v;
};
const minor = (v, field) => {
    if (typeof v !== 'string' || !MINOR.test(v))
        throw bad(`${field} must be a positive integer of minor units`);
    return BigInt(v);
};
export function parseRequest(p) {
    if (typeof p.salt !== 'string' || !HEX64.test(p.salt))
        throw bad('salt must be 64 hex characters');
    if (typeof p.currency !== 'string' || !CURRENCY.test(p.currency))
        throw bad('currency is malformed');
    if (typeof p.fast !== 'boolean')
        throw bad('fast must be a boolean');
    return {
        hash: hex64(p.hash, 'hash'),
        salt: p.salt,
        time: int(p.time, 1, Number.MAX_SAFE_INTEGER, 'time'),
        currency: p.currency,
        amount: minor(p.amount, 'amount'),
        budget: int(p.budget, 0, MAX_BUDGET, 'budget'),
        fast: p.fast,
        expires: int(p.expires, 1, Number.MAX_SAFE_INTEGER, 'expires'),
    };
}
export const requestPayload = (r) => ({
    type: MSG.request,
    hash: r.hash,
    salt: r.salt,
    time: r.time,
    currency: r.currency,
    amount: r.amount.toString(),
    budget: r.budget,
    fast: r.fast,
    expires: r.expires,
});
export function parseAnswer(p) {
    if (typeof p !== 'object' || p === null)
        throw bad('an answer must be an object');
    const a = p;
    if (a.found !== true)
        return { found: false };
    if (typeof a.signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(a.signature))
        throw bad('signature must be base64url');
    return { found: true, amount: minor(a.amount, 'amount'), hops: int(a.hops, 0, MAX_BUDGET, 'hops'), condition: hex64(a.condition, 'condition'), signature: a.signature };
}
export const answerPayload = (a) => a.found ? { found: true, amount: a.amount.toString(), hops: a.hops, condition: a.condition, signature: a.signature } : { found: false };
export function parseResponse(p) {
    return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget'), answer: parseAnswer(p) };
}
export function parseCancel(p) {
    return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget') };
}
export function parsePrepare(p) {
    if (typeof p.statement !== 'string' || typeof p.signature !== 'string')
        throw bad('statement and signature are required');
    return { hash: hex64(p.hash, 'hash'), budget: int(p.budget, 0, MAX_BUDGET, 'budget'), statement: p.statement, signature: p.signature };
}
export function parseFulfil(p) {
    return { txid: hex64(p.txid, 'txid'), fulfillment: hex64(p.fulfillment, 'fulfillment') };
}
export function parseReject(p) {
    return { txid: hex64(p.txid, 'txid'), reason: typeof p.reason === 'string' ? p.reason.slice(0, 200) : 'rejected' };
}
export function parseNote(p) {
    if (typeof p.secret !== 'string' || !HEX64.test(p.secret))
        throw bad('secret must be 64 hex characters');
    const description = p.description === undefined || p.description === null ? null : p.description;
    if (description !== null && (typeof description !== 'string' || [...description].length > 255))
        throw bad('description must be at most 255 characters');
    const origin = typeof p.origin_address === 'string' && p.origin_address.length <= 300 ? p.origin_address : null;
    return { hash: hex64(p.hash, 'hash'), secret: p.secret, description, originAddress: origin };
}
//# sourceMappingURL=protocol.js.map