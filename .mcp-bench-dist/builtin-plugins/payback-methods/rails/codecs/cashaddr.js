/**
 * Bitcoin Cash CashAddr: a prefix (`bitcoincash:`, optional when typed), base32 payload of a version byte and
 * hash, and a 40-bit BCH-code checksum computed over the prefix as well, so a prefix-less address is
 * verified against the mainnet prefix.
 */
import { fail, pass } from '../common/check.js';
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
function polymod(values) {
    let checksum = 1n;
    for (const value of values) {
        const top = checksum >> 35n;
        checksum = ((checksum & 0x07ffffffffn) << 5n) ^ BigInt(value);
        GENERATORS.forEach((generator, bit) => {
            if ((top >> BigInt(bit)) & 1n)
                checksum ^= generator;
        });
    }
    return checksum ^ 1n;
}
function fiveToEight(words) {
    let accumulator = 0;
    let bits = 0;
    const out = [];
    for (const word of words) {
        accumulator = (accumulator << 5) | word;
        bits += 5;
        while (bits >= 8) {
            bits -= 8;
            out.push((accumulator >> bits) & 0xff);
        }
        accumulator &= (1 << bits) - 1;
    }
    if (bits >= 5 || accumulator !== 0)
        return undefined;
    return Uint8Array.from(out);
}
// Size code 0 is a 160-bit hash; 3 is the 256-bit hash of P2SH32 (2023 upgrade).
const HASH_BYTES = { 0: 20, 3: 32 };
export function checkCashAddr(input) {
    if (input !== input.toLowerCase() && input !== input.toUpperCase())
        return fail('invalid_format', 'mixes upper and lower case');
    const lower = input.toLowerCase();
    const separator = lower.indexOf(':');
    const prefix = separator === -1 ? 'bitcoincash' : lower.slice(0, separator);
    const payload = separator === -1 ? lower : lower.slice(separator + 1);
    if (prefix === 'bchtest' || prefix === 'bchreg')
        return fail('wrong_network', 'is a testnet address');
    if (prefix !== 'bitcoincash')
        return fail('invalid_format', 'the CashAddr prefix is bitcoincash:');
    if (![...payload].every((char) => CHARSET.includes(char))) {
        return fail('invalid_format', 'contains characters outside the CashAddr alphabet');
    }
    if (payload.length !== 42 && payload.length !== 61)
        return fail('invalid_length', 'a CashAddr payload has 42 or 61 characters');
    const words = [...payload].map((char) => CHARSET.indexOf(char));
    const prefixWords = [...prefix].map((char) => char.charCodeAt(0) & 0x1f);
    if (polymod([...prefixWords, 0, ...words]) !== 0n)
        return fail('invalid_checksum', 'CashAddr checksum does not match');
    const bytes = fiveToEight(words.slice(0, -8));
    if (!bytes)
        return fail('invalid_format', 'has non-zero padding bits');
    const version = bytes[0] ?? 0;
    const typeBits = version >> 3;
    if (version & 0x80 || HASH_BYTES[version & 0x07] !== bytes.length - 1) {
        return fail('invalid_length', 'hash size does not match the version byte');
    }
    // Spendable forms: P2PKH with a 160-bit hash, P2SH with a 160- or 256-bit hash. Token-aware types (z, r)
    // and a 256-bit "P2PKH" are valid encodings that no ordinary wallet pays to.
    const spendable = (typeBits === 0 && bytes.length === 21) || typeBits === 1;
    if (!spendable)
        return fail('not_allowed', 'only P2PKH (q...) and P2SH (p...) addresses are accepted');
    return pass({ address: `bitcoincash:${payload}`, type: typeBits === 0 ? 'p2pkh' : 'p2sh' });
}
//# sourceMappingURL=cashaddr.js.map