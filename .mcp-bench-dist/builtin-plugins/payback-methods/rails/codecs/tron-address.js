/** Tron addresses: base58check of version byte 0x41 and a 20-byte account id, always 34 characters from T. */
import { fail, pass } from '../common/check.js';
import { decodeBase58Check, isBase58 } from './base58check.js';
export function checkTronAddress(input) {
    if (!input.startsWith('T') || !isBase58(input))
        return fail('invalid_format', 'a Tron address is T followed by base58');
    if (input.length !== 34)
        return fail('invalid_length', 'a Tron address has 34 characters');
    const decoded = decodeBase58Check(input, 21);
    if (!decoded.ok)
        return decoded;
    if (decoded.value[0] !== 0x41)
        return fail('invalid_value', 'version byte is not 0x41');
    return pass(input);
}
//# sourceMappingURL=tron-address.js.map