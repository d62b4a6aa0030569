/**
 * TON user-friendly addresses: 36 bytes (flags, workchain, 32-byte hash, CRC16-XMODEM of the first 34 bytes)
 * written as 48 characters of base64 or base64url. Raw `0:<hex>` addresses are not accepted: they carry no
 * checksum and no bounceable flag.
 */
import { base64, base64url } from '@scure/base';
import { fail, pass } from '../common/check.js';
import { crc16Xmodem } from './crc16.js';
const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TESTNET_FLAG = 0x80;
export function checkTonAddress(input) {
    const standard = /^[A-Za-z0-9+/]+$/.test(input);
    const urlSafe = /^[A-Za-z0-9_-]+$/.test(input);
    if (!standard && !urlSafe)
        return fail('invalid_format', 'uses characters outside base64 and base64url');
    if (input.length !== 48)
        return fail('invalid_length', 'a TON address has 48 characters');
    let bytes;
    try {
        bytes = urlSafe ? base64url.decode(input) : base64.decode(input);
    }
    catch {
        return fail('invalid_format', 'is not valid base64');
    }
    const crc = crc16Xmodem(bytes.slice(0, 34));
    if (bytes[34] !== crc >> 8 || bytes[35] !== (crc & 0xff))
        return fail('invalid_checksum', 'CRC16 checksum does not match');
    const flags = bytes[0] ?? 0;
    if (flags & TESTNET_FLAG)
        return fail('wrong_network', 'is a testnet address');
    if (flags !== BOUNCEABLE && flags !== NON_BOUNCEABLE)
        return fail('invalid_value', 'has unknown address flags');
    const workchain = bytes[1];
    if (workchain !== 0x00 && workchain !== 0xff)
        return fail('invalid_value', 'is not on the basechain or masterchain');
    return pass(input);
}
//# sourceMappingURL=ton-address.js.map