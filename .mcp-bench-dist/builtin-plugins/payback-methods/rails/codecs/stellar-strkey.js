/**
 * Stellar account ids (SEP-23 strkey): base32 of version byte 6<<3, a 32-byte ed25519 key and a
 * CRC16-XMODEM checksum stored little-endian. Muxed (M...) accounts are not accepted here.
 */
import { base32nopad } from '@scure/base';
import { fail, pass } from '../common/check.js';
import { crc16Xmodem } from './crc16.js';
const ACCOUNT_VERSION = 6 << 3;
export function checkStellarAccount(input) {
    const key = input.toUpperCase();
    if (!/^[A-Z2-7]+$/.test(key))
        return fail('invalid_format', 'contains characters outside base32');
    if (!key.startsWith('G'))
        return fail('invalid_format', 'a Stellar account id starts with G');
    if (key.length !== 56)
        return fail('invalid_length', 'a Stellar account id has 56 characters');
    const bytes = base32nopad.decode(key);
    const crc = crc16Xmodem(bytes.slice(0, 33));
    if (bytes[33] !== (crc & 0xff) || bytes[34] !== crc >> 8)
        return fail('invalid_checksum', 'CRC16 checksum does not match');
    if (bytes[0] !== ACCOUNT_VERSION)
        return fail('invalid_value', 'is not an account id');
    return pass(key);
}
//# sourceMappingURL=stellar-strkey.js.map