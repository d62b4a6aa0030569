import { isIPv6 } from 'node:net';
/**
 * Scrubbing of a debug report before it leaves the node. Applied to every string (values and keys) of the
 * report, so the JSON structure can never be broken by a replacement:
 *   - onion addresses          → `[redacted].onion`
 *   - http(s) URLs             → scheme + `[redacted]` (`https://[redacted]`)
 *   - hex runs of ≥ 64 chars   → `[redacted-key]` (keys, hashes, signatures)
 *   - IPv6 and IPv4 addresses  → `[redacted-ip]`
 * Order matters: URLs go first (they may hold onion names and addresses), then onions, keys, addresses.
 */
const URL_RE = /\b(https?):\/\/[^\s"'<>\\]+/gi;
const ONION_RE = /\b[a-z2-7]{16,56}\.onion\b/gi;
const HEX_RE = /[0-9a-f]{64,}/gi;
const KEY_ID_RE = /\bwn[0-9a-f]{8}_[0-9a-f]{24}\b/gi;
/** Candidates only: a run of hex groups and colons (optionally ending in a dotted quad), confirmed by isIPv6. */
const IPV6_CANDIDATE_RE = /(?<![0-9a-z:.])(?:[0-9a-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4})(?![0-9a-z:])/gi;
const IPV4_RE = /(?<![\d.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\d.])/g;
export function scrubText(text) {
    return text
        .replace(URL_RE, (_m, scheme) => `${scheme.toLowerCase()}://[redacted]`)
        .replace(ONION_RE, '[redacted].onion')
        .replace(HEX_RE, '[redacted-key]')
        .replace(KEY_ID_RE, '[redacted-key-id]')
        .replace(IPV6_CANDIDATE_RE, (m) => (isIPv6(m) ? '[redacted-ip]' : m))
        .replace(IPV4_RE, '[redacted-ip]');
}
/** A deep copy with `fn` applied to every string, object keys included. */
export function mapStrings(value, fn) {
    if (typeof value === 'string')
        return fn(value);
    if (Array.isArray(value))
        return value.map((v) => mapStrings(v, fn));
    if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [fn(k), mapStrings(v, fn)]));
    }
    return value;
}
export const scrub = (value) => mapStrings(value, scrubText);
//# sourceMappingURL=scrub.js.map