/**
 * Segregated-witness addresses (BIP 173 bech32 for version 0, BIP 350 bech32m for versions 1-16). Future
 * witness versions are accepted as the BIPs require, so receivers can upgrade before senders do.
 */
import { bech32, bech32m } from '@scure/base';
import { fail, pass } from '../common/check.js';
const DATA_CHARS = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
/** `address` must already be known to start with `hrp1` (case-insensitively). */
export function decodeSegwit(address, hrp) {
    if (address !== address.toLowerCase() && address !== address.toUpperCase()) {
        return fail('invalid_format', 'mixes upper and lower case');
    }
    const lower = address.toLowerCase();
    if (!lower.startsWith(`${hrp}1`) || !DATA_CHARS.test(lower.slice(hrp.length + 1))) {
        return fail('invalid_format', 'contains characters outside the bech32 alphabet');
    }
    if (lower.length > 90)
        return fail('invalid_length', 'is longer than 90 characters');
    const asBech32 = bech32.decodeUnsafe(lower, 90);
    const asBech32m = asBech32 ? undefined : bech32m.decodeUnsafe(lower, 90);
    const decoded = asBech32 ?? asBech32m;
    if (!decoded || decoded.prefix !== hrp)
        return fail('invalid_checksum', 'bech32 checksum does not match');
    const [version, ...data] = decoded.words;
    if (version === undefined)
        return fail('invalid_length', 'has no witness program');
    if (version > 16)
        return fail('invalid_value', `witness version ${version} does not exist`);
    // Version 0 must use the original bech32 constant and every later version bech32m (BIP 350).
    if ((version === 0) !== (asBech32 !== undefined)) {
        return fail('invalid_checksum', 'uses the wrong checksum variant for its witness version');
    }
    const program = bech32.fromWordsUnsafe(data);
    if (!program)
        return fail('invalid_format', 'has non-zero padding bits');
    if (program.length < 2 || program.length > 40)
        return fail('invalid_length', 'witness program must be 2 to 40 bytes');
    if (version === 0 && program.length !== 20 && program.length !== 32) {
        return fail('invalid_length', 'a version 0 witness program is 20 or 32 bytes');
    }
    return pass({ version, program });
}
//# sourceMappingURL=segwit.js.map