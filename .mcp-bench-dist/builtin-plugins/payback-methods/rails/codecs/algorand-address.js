/**
 * Algorand addresses: 58 upper-case base32 characters (no padding) of a 32-byte key plus the last 4 bytes of
 * its SHA-512/256. Lower case is refused, as Document 1 states the address upper-case (and the SDKs encode it so).
 */
import { base32nopad } from '@scure/base';
import { sha512_256 } from '@noble/hashes/sha2.js';
import { fail, pass } from '../common/check.js';
import { bytesEqual } from './base58check.js';
export function checkAlgorandAddress(address) {
    if (/[a-z]/.test(address))
        return fail('invalid_format', 'an Algorand address is upper-case base32');
    if (!/^[A-Z2-7]+$/.test(address))
        return fail('invalid_format', 'contains characters outside base32');
    if (address.length !== 58)
        return fail('invalid_length', 'an Algorand address has 58 characters');
    let bytes;
    try {
        bytes = base32nopad.decode(address);
    }
    catch {
        return fail('invalid_format', 'is not canonical base32');
    }
    const key = bytes.slice(0, 32);
    if (!bytesEqual(sha512_256(key).slice(-4), bytes.slice(32)))
        return fail('invalid_checksum', 'checksum does not match');
    return pass(address);
}
//# sourceMappingURL=algorand-address.js.map