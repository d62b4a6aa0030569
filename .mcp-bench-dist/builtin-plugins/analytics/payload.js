/**
 * The two payloads of Document 2 ("Analytics payloads"), field for field, and how they are written on the wire.
 * Nothing here reads the node: the callers hand in the anonymous id, the version, the time and the aggregates.
 */
import { createHmac } from 'node:crypto';
import { utcStamp } from './schedule.js';
export const EVENTS = { setup: 'node_setup', heartbeat: 'usage_heartbeat' };
/**
 * The anonymous id: HMAC-SHA256 of the public key hash, first 32 hex characters. The key comes from the node's
 * seed, not from a published constant: the same mnemonic gives the same id after a restore, yet nobody who knows
 * the node's public key hash (every contact does) can compute the id and pick the node out of the reports.
 */
export function anonymousId(seedKey, pubkeyHash) {
    return createHmac('sha256', seedKey).update(pubkeyHash).digest('hex').slice(0, 32);
}
export function nodeSetup(analyticsId, version, now) {
    return { event: EVENTS.setup, analytics_id: analyticsId, version, timestamp: utcStamp(now) };
}
export function heartbeat(analyticsId, version, now, periodDays, metrics) {
    return { event: EVENTS.heartbeat, analytics_id: analyticsId, version, timestamp: utcStamp(now), period_days: periodDays, metrics };
}
const BIG = '\u0000';
/**
 * JSON with every bigint written as an integer, digit for digit: a total of whole units may pass 2^53, where a JS
 * number would round it. (Node 20 has no JSON.rawJSON.)
 */
export function toJson(payload) {
    return JSON.stringify(payload, (_key, value) => (typeof value === 'bigint' ? `${BIG}${value}${BIG}` : value)).replace(/"\\u0000(-?\d+)\\u0000"/g, '$1');
}
//# sourceMappingURL=payload.js.map