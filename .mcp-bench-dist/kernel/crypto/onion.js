/**
 * Tor v3 onion service names and key files (Tor's rend-spec-v3, "Encoding onion addresses").
 *
 * The node derives its onion key from its seed, so a restored node keeps its .onion address; these
 * helpers turn that key into the name and into the files Tor reads from a HiddenServiceDir.
 */
import { createHash } from 'node:crypto';
import { CryptoError } from './errors.js';
import { privateKeyFromSeed, rawPublicKey } from './keys.js';
const VERSION = 0x03;
const CHECKSUM_PREFIX = Buffer.from('.onion checksum', 'ascii');
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** Tor's key file headers are exactly 32 bytes: the tag padded with NULs. */
const SECRET_HEADER = Buffer.from('== ed25519v1-secret: type0 ==\0\0\0', 'latin1');
const PUBLIC_HEADER = Buffer.from('== ed25519v1-public: type0 ==\0\0\0', 'latin1');
/** RFC 4648 base32, lower-case, no padding (onion names are always 35 bytes = 56 characters). */
function base32(bytes) {
    let out = '';
    let buffer = 0;
    let bits = 0;
    for (const byte of bytes) {
        buffer = (buffer << 8) | byte;
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out += BASE32_ALPHABET.charAt((buffer >>> bits) & 31);
        }
        buffer &= (1 << bits) - 1;
    }
    if (bits > 0)
        out += BASE32_ALPHABET.charAt((buffer << (5 - bits)) & 31);
    return out;
}
function require32(bytes, what) {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 32) {
        throw new CryptoError('bad-key', `${what} must be 32 bytes`);
    }
}
/** `<56 base32 chars>.onion` for an Ed25519 public key. */
export function onionAddress(publicRaw) {
    require32(publicRaw, 'onion public key');
    const version = Buffer.of(VERSION);
    const checksum = createHash('sha3-256')
        .update(CHECKSUM_PREFIX)
        .update(publicRaw)
        .update(version)
        .digest()
        .subarray(0, 2);
    return `${base32(Buffer.concat([publicRaw, checksum, version]))}.onion`;
}
/**
 * Tor stores the *expanded* secret key (SHA-512 of the seed, first half clamped as in RFC 8032),
 * not the seed, so it can be written from our seed but the seed cannot be recovered from it.
 */
export function torHiddenServiceFiles(onionSeed) {
    require32(onionSeed, 'onion seed');
    const expanded = createHash('sha512').update(onionSeed).digest();
    expanded[0] = (expanded[0] ?? 0) & 248;
    expanded[31] = ((expanded[31] ?? 0) & 127) | 64;
    const publicRaw = rawPublicKey(privateKeyFromSeed('ed25519', onionSeed));
    return {
        secretKey: Buffer.concat([SECRET_HEADER, expanded]),
        publicKey: Buffer.concat([PUBLIC_HEADER, publicRaw]),
        hostname: `${onionAddress(publicRaw)}\n`,
    };
}
//# sourceMappingURL=onion.js.map