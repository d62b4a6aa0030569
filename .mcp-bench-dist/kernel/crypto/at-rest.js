/**
 * Encryption of local secrets (the seed phrase, API secrets, provider tokens) before they touch disk.
 *
 * Format: "v1.<iv>.<ciphertext+tag>" (base64url). Text, so it fits a JSON file or a TEXT column; the
 * version prefix lets the format change later without guessing. The AAD names what the blob is
 * ("identity", "api-key:<id>", ...) so a blob copied into another slot fails to decrypt instead of
 * being read as something else.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { decodeBase64urlStrict, toBuffer } from './encoding.js';
import { CryptoError } from './errors.js';
const VERSION = 'v1';
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const KEY_LENGTH = 32;
function requireKey(key) {
    if (!(key instanceof Uint8Array) || key.length !== KEY_LENGTH) {
        throw new CryptoError('bad-key', 'at-rest key must be 32 bytes');
    }
}
export function encryptAtRest(key, plaintext, aad) {
    requireKey(key);
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(toBuffer(plaintext)), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${iv.toString('base64url')}.${ct.toString('base64url')}`;
}
/** Throws CryptoError: 'malformed' for a blob that is not ours, 'auth-failed' for tamper/wrong key/wrong AAD. */
export function decryptAtRest(key, blob, aad) {
    requireKey(key);
    const parts = typeof blob === 'string' ? blob.split('.') : [];
    if (parts.length !== 3 || parts[0] !== VERSION) {
        throw new CryptoError('malformed', 'encrypted blob has an unknown format');
    }
    const iv = decodeBase64urlStrict(parts[1]);
    const ct = decodeBase64urlStrict(parts[2]);
    if (iv?.length !== IV_LENGTH || ct === undefined || ct.length < TAG_LENGTH) {
        throw new CryptoError('malformed', 'encrypted blob is truncated or not base64url');
    }
    try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(ct.subarray(ct.length - TAG_LENGTH));
        return Buffer.concat([decipher.update(ct.subarray(0, ct.length - TAG_LENGTH)), decipher.final()]);
    }
    catch {
        throw new CryptoError('auth-failed', 'encrypted blob failed authentication (wrong key, wrong label or tampered)');
    }
}
//# sourceMappingURL=at-rest.js.map