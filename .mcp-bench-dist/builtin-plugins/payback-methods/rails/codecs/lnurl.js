/**
 * LNURL (LUD-01): a URL encoded as bech32 with the `lnurl` prefix and no length cap. It must point to an
 * https URL, or plain http on a Tor onion service, where transport encryption comes from Tor itself.
 */
import { bech32 } from '@scure/base';
import { fail, pass } from '../common/check.js';
const DATA_CHARS = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
export function checkLnurl(input) {
    if (input !== input.toLowerCase() && input !== input.toUpperCase())
        return fail('invalid_format', 'mixes upper and lower case');
    const lnurl = input.toLowerCase();
    if (!lnurl.startsWith('lnurl1') || !DATA_CHARS.test(lnurl.slice(6))) {
        return fail('invalid_format', 'an LNURL starts with lnurl1 and uses the bech32 alphabet');
    }
    const decoded = bech32.decodeUnsafe(lnurl, false);
    if (!decoded || decoded.prefix !== 'lnurl')
        return fail('invalid_checksum', 'bech32 checksum does not match');
    const bytes = bech32.fromWordsUnsafe(decoded.words);
    let url;
    try {
        if (!bytes)
            throw new Error('padding');
        url = new URL(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    }
    catch {
        return fail('invalid_value', 'does not encode a URL');
    }
    const onion = url.hostname.endsWith('.onion');
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && onion)) {
        return fail('invalid_value', 'must encode an https URL (or http on an onion service)');
    }
    return pass(lnurl);
}
//# sourceMappingURL=lnurl.js.map