/**
 * Base58Check (version byte + payload + first 4 bytes of double SHA-256). Decoded by hand rather than with
 * `createBase58check` so a bad alphabet, a wrong length and a bad checksum get different error codes.
 */
import { base58, base58xrp } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { fail, pass } from '../common/check.js';
// Bitcoin and XRP alphabets differ in order only; both leave out 0, O, I and l.
const BASE58_CHARS = /^[1-9A-HJ-NP-Za-km-z]+$/;
export function isBase58(value) {
    return BASE58_CHARS.test(value);
}
export function doubleSha256Checksum(payload) {
    return sha256(sha256(payload)).slice(0, 4);
}
export function bytesEqual(a, b) {
    return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
/** Decodes with the given alphabet and returns the payload (version byte included, checksum removed). */
export function decodeBase58Check(value, payloadLength, coder = base58) {
    if (!isBase58(value))
        return fail('invalid_format', 'contains characters outside the base58 alphabet');
    let bytes;
    try {
        bytes = coder.decode(value);
    }
    catch {
        return fail('invalid_format', 'is not valid base58');
    }
    if (bytes.length !== payloadLength + 4)
        return fail('invalid_length', 'decodes to the wrong number of bytes');
    const payload = bytes.slice(0, payloadLength);
    if (!bytesEqual(doubleSha256Checksum(payload), bytes.slice(payloadLength))) {
        return fail('invalid_checksum', 'base58check checksum does not match');
    }
    return pass(payload);
}
export function decodeXrpBase58Check(value, payloadLength) {
    return decodeBase58Check(value, payloadLength, base58xrp);
}
//# sourceMappingURL=base58check.js.map