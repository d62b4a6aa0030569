/**
 * Addresses of Bitcoin-family chains: base58check with a per-chain version byte, and (where the chain has
 * segwit) bech32/bech32m with a per-chain prefix. Addresses of the chain's test networks are recognised so
 * the user is told "wrong network" rather than "invalid".
 */
import { fail, pass } from '../common/check.js';
import { decodeBase58Check } from './base58check.js';
import { decodeSegwit } from './segwit.js';
export const BITCOIN = {
    name: 'Bitcoin',
    versions: [0x00, 0x05],
    testVersions: [0x6f, 0xc4],
    segwitHrp: 'bc',
    testHrps: ['tb', 'bcrt'],
};
export const LITECOIN = {
    name: 'Litecoin',
    versions: [0x30, 0x32, 0x05],
    testVersions: [0x6f, 0x3a, 0xc4],
    segwitHrp: 'ltc',
    testHrps: ['tltc', 'rltc'],
};
export const DOGECOIN = { name: 'Dogecoin', versions: [0x1e, 0x16], testVersions: [0x71, 0xc4] };
/** Bitcoin Cash kept Bitcoin's legacy version bytes; its segwit-free successor format is CashAddr. */
export const BITCOIN_CASH_LEGACY = { name: 'Bitcoin Cash', versions: [0x00, 0x05], testVersions: [0x6f, 0xc4] };
export function checkUtxoAddress(input, chain) {
    const lower = input.toLowerCase();
    if (chain.segwitHrp && lower.startsWith(`${chain.segwitHrp}1`)) {
        const segwit = decodeSegwit(input, chain.segwitHrp);
        return segwit.ok ? pass(lower) : segwit;
    }
    if (chain.testHrps?.some((hrp) => lower.startsWith(`${hrp}1`)))
        return fail('wrong_network', 'is a testnet address');
    if (chain === LITECOIN && lower.startsWith('ltcmweb1'))
        return fail('not_allowed', 'MWEB addresses are not accepted');
    const decoded = decodeBase58Check(input, 21);
    if (!decoded.ok)
        return decoded;
    const version = decoded.value[0] ?? -1;
    if (chain.versions.includes(version))
        return pass(input);
    if (chain.testVersions.includes(version))
        return fail('wrong_network', 'is a testnet address');
    return fail('invalid_value', `is not a ${chain.name} address`);
}
//# sourceMappingURL=utxo-address.js.map