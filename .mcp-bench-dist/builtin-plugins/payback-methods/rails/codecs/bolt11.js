/**
 * BOLT 11 Lightning invoices, mainnet only. Invoices are longer than the 90-character cap of BIP 173, so the
 * bech32 checksum is verified without a length limit. The node signature is not recovered (that needs
 * secp256k1), but the structure is walked: timestamp, tagged fields and a 104-word signature, with exactly
 * the payment hash that every invoice must carry.
 */
import { bech32 } from '@scure/base';
import { fail, pass } from '../common/check.js';
const DATA_CHARS = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
const TIMESTAMP_WORDS = 7;
const SIGNATURE_WORDS = 104;
const PAYMENT_HASH_TAG = 1;
const PAYMENT_HASH_WORDS = 52;
function hasPaymentHash(words) {
    const end = words.length - SIGNATURE_WORDS;
    let index = TIMESTAMP_WORDS;
    let found = false;
    while (index < end) {
        const type = words[index] ?? 0;
        const length = (words[index + 1] ?? 0) * 32 + (words[index + 2] ?? 0);
        index += 3 + length;
        if (index > end)
            return undefined;
        if (type === PAYMENT_HASH_TAG && length === PAYMENT_HASH_WORDS)
            found = true;
    }
    return found;
}
export function checkBolt11(input) {
    if (input !== input.toLowerCase() && input !== input.toUpperCase())
        return fail('invalid_format', 'mixes upper and lower case');
    const invoice = input.toLowerCase();
    const separator = invoice.lastIndexOf('1');
    const hrp = invoice.slice(0, separator);
    const match = /^ln(bcrt|bc|tbs|tb|sb)(\d*)([munp]?)$/.exec(hrp);
    if (separator < 0 || !match || !DATA_CHARS.test(invoice.slice(separator + 1))) {
        return fail('invalid_format', 'a Lightning invoice starts with lnbc and uses the bech32 alphabet');
    }
    const decoded = bech32.decodeUnsafe(invoice, false);
    if (!decoded || decoded.prefix !== hrp)
        return fail('invalid_checksum', 'bech32 checksum does not match');
    if (match[1] !== 'bc')
        return fail('wrong_network', 'is not a Bitcoin mainnet invoice');
    const [, , amount = '', multiplier = ''] = match;
    if ((multiplier && !amount) || /^0/.test(amount) || (multiplier === 'p' && !amount.endsWith('0'))) {
        return fail('invalid_format', 'has a malformed amount');
    }
    if (decoded.words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS)
        return fail('invalid_length', 'is too short to hold a signature');
    const paymentHash = hasPaymentHash(decoded.words);
    if (paymentHash === undefined)
        return fail('invalid_format', 'has a tagged field running past the signature');
    if (!paymentHash)
        return fail('invalid_format', 'has no payment hash');
    return pass(invoice);
}
//# sourceMappingURL=bolt11.js.map