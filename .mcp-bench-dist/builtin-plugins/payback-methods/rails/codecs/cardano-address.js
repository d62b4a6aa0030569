/**
 * Cardano Shelley payment addresses (CIP-19): bech32 with the `addr` prefix, no length cap, whose first
 * byte carries the address type (0-7 payment types) and the network id (1 = mainnet).
 */
import { bech32 } from '@scure/base';
import { fail, pass } from '../common/check.js';
const DATA_CHARS = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
/** Expected payload sizes: base (header + two 28-byte hashes), pointer (variable), enterprise (one hash). */
function payloadFits(type, length) {
    if (type <= 3)
        return length === 57;
    if (type <= 5)
        return length >= 32 && length <= 59;
    return length === 29;
}
export function checkCardanoAddress(input) {
    // Byron addresses are base58 (mixed case), so they are recognised before the bech32 case rule applies.
    if (/^(Ae2|DdzFF)/.test(input))
        return fail('not_allowed', 'Byron-era addresses are not accepted');
    if (input !== input.toLowerCase() && input !== input.toUpperCase())
        return fail('invalid_format', 'mixes upper and lower case');
    const address = input.toLowerCase();
    if (address.startsWith('addr_test1'))
        return fail('wrong_network', 'is a testnet address');
    if (!address.startsWith('addr1') || !DATA_CHARS.test(address.slice(5))) {
        return fail('invalid_format', 'a Shelley address is addr1 followed by bech32 characters');
    }
    if (address.length < 58 || address.length > 108)
        return fail('invalid_length', 'a Shelley address has 58 to 108 characters');
    const decoded = bech32.decodeUnsafe(address, false);
    if (!decoded || decoded.prefix !== 'addr')
        return fail('invalid_checksum', 'bech32 checksum does not match');
    const bytes = bech32.fromWordsUnsafe(decoded.words);
    if (!bytes || bytes.length === 0)
        return fail('invalid_format', 'has non-zero padding bits');
    const header = bytes[0] ?? 0;
    const type = header >> 4;
    if (type > 7)
        return fail('invalid_value', 'is not a payment address');
    if ((header & 0x0f) !== 1)
        return fail('wrong_network', 'is not a mainnet address');
    if (!payloadFits(type, bytes.length))
        return fail('invalid_length', 'payload size does not match the address type');
    return pass(address);
}
//# sourceMappingURL=cardano-address.js.map