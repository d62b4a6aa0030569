/** XRP Ledger classic addresses: XRP-alphabet base58check of version 0 and a 20-byte account id (r...). */
import { fail, pass } from '../common/check.js';
import { decodeXrpBase58Check, isBase58 } from './base58check.js';
// ACCOUNT_ZERO and ACCOUNT_ONE are placeholders in ledger objects; nobody holds their keys.
const RESERVED = new Set(['rrrrrrrrrrrrrrrrrrrrrhoLvTp', 'rrrrrrrrrrrrrrrrrrrrBZbvji']);
export function checkXrpAddress(input) {
    if (input.startsWith('X'))
        return fail('invalid_format', 'X-addresses are not accepted; use the r-address and a destination tag');
    if (!input.startsWith('r') || !isBase58(input))
        return fail('invalid_format', 'an XRP address is r followed by base58');
    if (input.length < 25 || input.length > 35)
        return fail('invalid_length', 'an XRP address has 25 to 35 characters');
    const decoded = decodeXrpBase58Check(input, 21);
    if (!decoded.ok)
        return decoded;
    if (decoded.value[0] !== 0x00)
        return fail('invalid_value', 'is not an account address');
    if (RESERVED.has(input))
        return fail('not_allowed', 'is a reserved account nobody controls');
    return pass(input);
}
//# sourceMappingURL=xrp-address.js.map