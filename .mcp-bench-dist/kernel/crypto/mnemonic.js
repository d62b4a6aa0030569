/**
 * The 24-word BIP39 seed phrase that is the whole identity of a node.
 *
 * Generation and checksum validation come from @scure/bip39 (audited, wordlist bundled). The seed
 * itself is computed with Node's native PBKDF2 instead of the library's pure-JS one: it is the same
 * standard formula (checked against the published vector in the tests) and about ten times faster,
 * which matters when tests start dozens of nodes.
 */
import { pbkdf2Sync } from 'node:crypto';
import { generateMnemonic as scureGenerate, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { CryptoError } from './errors.js';
export const MNEMONIC_WORDS = 24;
/** 24 words carry 256 bits of entropy plus an 8-bit checksum. */
const ENTROPY_BITS = 256;
export function generateMnemonic() {
    return scureGenerate(wordlist, ENTROPY_BITS);
}
/** People paste phrases with stray spaces, newlines and capitals; none of that changes the identity. */
export function normalizeMnemonic(input) {
    return input.trim().toLowerCase().split(/\s+/u).join(' ');
}
/** Exactly 24 English words with a correct checksum (after normalisation). */
export function isValidMnemonic(input) {
    if (typeof input !== 'string')
        return false;
    const normalized = normalizeMnemonic(input);
    if (normalized.split(' ').length !== MNEMONIC_WORDS)
        return false;
    return validateMnemonic(normalized, wordlist);
}
/**
 * Standard BIP39 seed: PBKDF2-HMAC-SHA512(NFKD(phrase), "mnemonic" + NFKD(passphrase), 2048, 64)
 * with an empty passphrase, so any BIP39 tool computes the same 64 bytes.
 *
 * Refuses an invalid phrase rather than deriving keys from a typo; the message never repeats the words.
 */
export function mnemonicToSeed(mnemonic) {
    if (!isValidMnemonic(mnemonic)) {
        throw new CryptoError('malformed', `seed phrase is not a valid ${MNEMONIC_WORDS}-word BIP39 phrase`);
    }
    const normalized = normalizeMnemonic(mnemonic).normalize('NFKD');
    return new Uint8Array(pbkdf2Sync(normalized, 'mnemonic', 2048, 64, 'sha512'));
}
//# sourceMappingURL=mnemonic.js.map