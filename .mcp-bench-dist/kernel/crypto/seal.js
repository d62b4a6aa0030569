/**
 * Sealing: encrypt to a recipient's X25519 public key so that only its holder can read the body.
 *
 * `seal` uses a fresh ephemeral X25519 key (so the sender keeps nothing that could decrypt the body later);
 * the peer hot path reuses one per recipient for a minute (SealingSessions). Key = HKDF-SHA256 of the ECDH
 * secret, salted with both
 * public keys so the key is bound to this exact sender-ephemeral/recipient pair. AES-256-GCM then
 * authenticates the ciphertext together with caller-supplied AAD (the envelope header), so a body
 * cannot be moved under another header.
 *
 * Hot path: runs for every peer message. The recipient's KeyObject is cached, the ephemeral public key
 * comes out of key generation already as base64url (no export round-trip), the sender's ephemeral key is
 * imported via JWK (see keys.ts for the costs), and both sides keep a session's derived keys.
 */
import { createCipheriv, createDecipheriv, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, } from 'node:crypto';
import { decodeBase64urlStrict, toBuffer } from './encoding.js';
import { CryptoError } from './errors.js';
import { PublicKeyCache, publicKeyFromRaw, RAW_KEY_LENGTH } from './keys.js';
const INFO = Buffer.from('wallet-node/seal/v1', 'utf8');
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const recipientKeys = new PublicKeyCache('x25519');
/**
 * Node documents that a key pair generated with `publicKeyEncoding` returns that half already
 * exported; the typings only model PEM/DER with both halves encoded, hence this narrow signature.
 */
const generateEphemeral = generateKeyPairSync;
function messageKey(shared, epkRaw, recipientRaw) {
    // X25519 with a small-order point yields all zeros; OpenSSL refuses it, this is belt and braces.
    if (shared.every((b) => b === 0))
        throw new CryptoError('bad-key', 'degenerate shared secret');
    const salt = Buffer.concat([epkRaw, recipientRaw]);
    return Buffer.from(hkdfSync('sha256', shared, salt, INFO, 32));
}
const REPLY_INFO = Buffer.from('wallet-node/seal-reply/v1', 'utf8');
function encrypt(key, plaintext, aad) {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(toBuffer(aad));
    const ct = Buffer.concat([cipher.update(toBuffer(plaintext)), cipher.final(), cipher.getAuthTag()]);
    return { iv: iv.toString('base64url'), ct: ct.toString('base64url') };
}
function decrypt(key, iv, ct, aad) {
    try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
        decipher.setAAD(toBuffer(aad));
        decipher.setAuthTag(ct.subarray(ct.length - TAG_LENGTH));
        return Buffer.concat([decipher.update(ct.subarray(0, ct.length - TAG_LENGTH)), decipher.final()]);
    }
    catch {
        throw new CryptoError('auth-failed', 'sealed body could not be opened');
    }
}
/**
 * The key for the answer to a sealed message. Only the sender (who made the ephemeral key) and the recipient
 * (who holds the static key) can derive it, so the reply needs no second key agreement.
 */
function replyKeyOf(messageKeyBytes, epkRaw) {
    return Buffer.from(hkdfSync('sha256', messageKeyBytes, epkRaw, REPLY_INFO, 32));
}
function newSession(recipientPublicRaw) {
    const recipient = recipientKeys.get(recipientPublicRaw);
    const ephemeral = generateEphemeral('x25519', { publicKeyEncoding: { format: 'jwk' } });
    const epk = ephemeral.publicKey.x;
    if (typeof epk !== 'string')
        throw new CryptoError('bad-key', 'ephemeral key generation failed');
    const epkRaw = Buffer.from(epk, 'base64url');
    const key = messageKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }), epkRaw, recipientPublicRaw);
    return { epk, key, replyKey: replyKeyOf(key, epkRaw) };
}
/** Seals to a recipient under a fresh ephemeral key and returns the key its reply will be sealed with. */
export function sealSession(recipientPublicRaw, plaintext, aad) {
    const session = newSession(recipientPublicRaw);
    return { sealed: { epk: session.epk, ...encrypt(session.key, plaintext, aad) }, replyKey: session.replyKey };
}
export function seal(recipientPublicRaw, plaintext, aad) {
    return sealSession(recipientPublicRaw, plaintext, aad).sealed;
}
/** How long a sender keeps using one ephemeral key for the same recipient. */
export const SESSION_LIFETIME_MS = 60_000;
const MAX_SESSIONS = 4096;
/**
 * The sending side of the peer hot path: one ephemeral key per recipient, reused for SESSION_LIFETIME_MS.
 * A key agreement costs more than everything else in sealing a message, and a busy pair of nodes exchanges
 * thousands of messages a second. Reuse is safe because every message still gets a random 96-bit IV (far
 * below GCM's 2^32 bound per key in one minute) and its own header as AAD; what it gives up is forward
 * secrecy finer than the window: the ephemeral private key lives in memory for at most a minute.
 */
export class SealingSessions {
    #byRecipient = new Map();
    seal(recipientPublicRaw, plaintext, aad, nowMs = Date.now()) {
        const id = Buffer.from(recipientPublicRaw).toString('base64url');
        let session = this.#byRecipient.get(id);
        if (!session || session.expiresAt <= nowMs) {
            this.#byRecipient.delete(id);
            if (this.#byRecipient.size >= MAX_SESSIONS)
                forgetOldest(this.#byRecipient);
            session = { ...newSession(recipientPublicRaw), expiresAt: nowMs + SESSION_LIFETIME_MS };
            this.#byRecipient.set(id, session);
        }
        return { sealed: { epk: session.epk, ...encrypt(session.key, plaintext, aad) }, replyKey: session.replyKey };
    }
}
/** Maps keep insertion order: the first entry is the oldest. */
function forgetOldest(map) {
    const oldest = map.keys().next();
    if (!oldest.done)
        map.delete(oldest.value);
}
/**
 * The receiving side's memo of keys derived from senders' ephemeral keys, so a session's messages after the
 * first skip the key agreement. The derivation is deterministic (epk and our static key), so the memo can
 * never hold a wrong key; it is bounded in size and age so derived keys do not outlive the sender's window
 * by much.
 */
export class OpenedSessions {
    #byEpk = new Map();
    keysFor(epk, nowMs, derive) {
        const hit = this.#byEpk.get(epk);
        if (hit && hit.expiresAt > nowMs)
            return hit;
        this.#byEpk.delete(epk);
        if (this.#byEpk.size >= MAX_SESSIONS)
            forgetOldest(this.#byEpk);
        const keys = { ...derive(), expiresAt: nowMs + 2 * SESSION_LIFETIME_MS };
        this.#byEpk.set(epk, keys);
        return keys;
    }
}
/** Opens a sealed message and returns the key to seal its reply with. Throws like `open`. */
export function openSession(recipientPrivateKey, recipientPublicRaw, sealed, aad, memo) {
    const fields = typeof sealed === 'object' && sealed !== null ? sealed : {};
    const epkRaw = decodeBase64urlStrict(fields.epk);
    const iv = decodeBase64urlStrict(fields.iv);
    const ct = decodeBase64urlStrict(fields.ct);
    if (epkRaw?.length !== RAW_KEY_LENGTH || iv?.length !== IV_LENGTH || ct === undefined || ct.length < TAG_LENGTH) {
        throw new CryptoError('malformed', 'sealed body is malformed');
    }
    const derive = () => {
        try {
            const shared = diffieHellman({ privateKey: recipientPrivateKey, publicKey: publicKeyFromRaw('x25519', epkRaw) });
            const key = messageKey(shared, epkRaw, recipientPublicRaw);
            return { key, replyKey: replyKeyOf(key, epkRaw) };
        }
        catch {
            // A bad ephemeral key is indistinguishable from tampering for the caller.
            throw new CryptoError('auth-failed', 'sealed body could not be opened');
        }
    };
    const keys = memo ? memo.keysFor(fields.epk, Date.now(), derive) : derive();
    return { plaintext: decrypt(keys.key, iv, ct, aad), replyKey: keys.replyKey };
}
/**
 * Throws CryptoError: 'malformed' if the sealed object is not well-formed, 'auth-failed' if it does
 * not decrypt under this key and AAD (tampering, wrong recipient and wrong AAD look the same on purpose).
 */
export function open(recipientPrivateKey, recipientPublicRaw, sealed, aad) {
    return openSession(recipientPrivateKey, recipientPublicRaw, sealed, aad).plaintext;
}
export function sealReply(replyKey, plaintext, aad) {
    return encrypt(replyKey, plaintext, aad);
}
export function openReply(replyKey, sealed, aad) {
    const iv = decodeBase64urlStrict(sealed?.iv);
    const ct = decodeBase64urlStrict(sealed?.ct);
    if (iv?.length !== IV_LENGTH || ct === undefined || ct.length < TAG_LENGTH) {
        throw new CryptoError('malformed', 'sealed reply is malformed');
    }
    return decrypt(replyKey, iv, ct, aad);
}
//# sourceMappingURL=seal.js.map