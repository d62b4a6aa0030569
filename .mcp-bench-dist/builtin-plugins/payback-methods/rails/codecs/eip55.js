/** Ethereum-style addresses with the EIP-55 mixed-case checksum (keccak-256 of the lower-case hex). */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { fail, pass } from '../common/check.js';
export function toChecksumAddress(hex40) {
    const lower = hex40.toLowerCase();
    const hash = keccak_256(new TextEncoder().encode(lower));
    let out = '0x';
    for (let i = 0; i < lower.length; i++) {
        const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
        const char = lower.charAt(i);
        out += nibble >= 8 ? char.toUpperCase() : char;
    }
    return out;
}
/** Returns the EIP-55 form. Single-case input carries no checksum and is accepted, as EIP-55 specifies. */
export function checkEvmAddress(input) {
    if (!input.startsWith('0x'))
        return fail('invalid_format', 'an address starts with 0x');
    const body = input.slice(2);
    if (!/^[0-9a-fA-F]*$/.test(body))
        return fail('invalid_format', 'an address is hexadecimal after 0x');
    if (body.length !== 40)
        return fail('invalid_length', 'an address has 40 hex digits after 0x');
    const checksummed = toChecksumAddress(body);
    const singleCase = body === body.toLowerCase() || body === body.toUpperCase();
    if (!singleCase && `0x${body}` !== checksummed)
        return fail('invalid_checksum', 'EIP-55 checksum does not match');
    if (/^0+$/.test(body))
        return fail('invalid_value', 'the zero address burns funds');
    return pass(checksummed);
}
//# sourceMappingURL=eip55.js.map