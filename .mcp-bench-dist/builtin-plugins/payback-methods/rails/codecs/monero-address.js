/**
 * Monero addresses: Monero's block base58 of network byte, spend key, view key (and, for integrated
 * addresses, an 8-byte payment id) followed by the first 4 bytes of their keccak-256.
 */
import { base58xmr } from '@scure/base';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { fail, pass } from '../common/check.js';
import { bytesEqual, isBase58 } from './base58check.js';
const MAINNET = { 18: 'standard', 19: 'integrated', 42: 'subaddress' };
// Testnet (53, 54, 63) and stagenet (24, 25, 36) network bytes.
const OTHER_NETWORKS = new Set([53, 54, 63, 24, 25, 36]);
export function checkMoneroAddress(input) {
    if (!isBase58(input))
        return fail('invalid_format', 'contains characters outside the base58 alphabet');
    if (input.length !== 95 && input.length !== 106) {
        return fail('invalid_length', 'a Monero address has 95 characters (106 when integrated)');
    }
    let bytes;
    try {
        bytes = base58xmr.decode(input);
    }
    catch {
        return fail('invalid_format', 'is not valid Monero base58');
    }
    const body = bytes.slice(0, -4);
    if (!bytesEqual(keccak_256(body).slice(0, 4), bytes.slice(-4)))
        return fail('invalid_checksum', 'checksum does not match');
    const network = bytes[0] ?? -1;
    if (OTHER_NETWORKS.has(network))
        return fail('wrong_network', 'is a testnet or stagenet address');
    const kind = MAINNET[network];
    if (!kind)
        return fail('invalid_value', 'has an unknown network byte');
    if ((kind === 'integrated') !== (input.length === 106))
        return fail('invalid_length', 'length does not match the address type');
    return pass({ address: input, kind });
}
//# sourceMappingURL=monero-address.js.map