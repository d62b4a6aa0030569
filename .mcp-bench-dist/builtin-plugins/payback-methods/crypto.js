/**
 * Secrets of this plugin, at rest and on the wire.
 *
 * At rest: each row's `fields` object is JSON, encrypted with AES-256-GCM under a key derived from the node seed
 * (`ctx.identity.storageKey('payback-methods')`), with the row's identity as associated data: a blob copied to
 * another row does not decrypt. Nothing else of the fields reaches the database (masked_display is recomputed).
 *
 * On the wire (the `payback.fetch` reply): the kernel already seals every reply to the requesting node, but it
 * also records each reply (so a retried message is answered without running the handler twice). To keep
 * plaintext fields out of that record, the methods travel sealed once more, to a one-time X25519 key the
 * requester generated for this fetch and forgets right after: what the responder's database keeps cannot be
 * opened by anyone afterwards.
 */
import { generateKeyPairSync } from 'node:crypto';
import { decryptAtRest, encryptAtRest } from '../../kernel/crypto/at-rest.js';
import { rawPublicKey } from '../../kernel/crypto/keys.js';
import { open, seal } from '../../kernel/crypto/seal.js';
import { isPlainObject } from './validate.js';
export class FieldCipher {
    key;
    constructor(key) {
        this.key = key;
    }
    static ownAad(methodId) {
        return `payback-method:${methodId}`;
    }
    static receivedAad(contactHash, remoteId) {
        return `payback-received:${contactHash}:${remoteId}`;
    }
    encrypt(fields, aad) {
        return encryptAtRest(this.key, JSON.stringify(fields), aad);
    }
    /** The fields, or null when the blob does not open (wrong key after a restore with another seed, tampering). */
    decrypt(blob, aad) {
        try {
            const value = JSON.parse(decryptAtRest(this.key, blob, aad).toString('utf8'));
            return isPlainObject(value) ? value : null;
        }
        catch {
            return null;
        }
    }
}
export function newReplyKey() {
    const { privateKey } = generateKeyPairSync('x25519');
    const publicRaw = rawPublicKey(privateKey);
    return { publicB64: publicRaw.toString('base64url'), publicRaw, privateKey };
}
/** Binds the sealed methods to this pair of nodes and this request's key. */
export function replyAad(responderHash, requesterHash, replyKeyB64) {
    return `payback.fetch/v1|${responderHash}|${requesterHash}|${replyKeyB64}`;
}
export function sealReply(replyKeyRaw, plaintext, aad) {
    return seal(replyKeyRaw, Buffer.from(plaintext, 'utf8'), Buffer.from(aad, 'utf8'));
}
/** Throws CryptoError when the sealed body does not open. */
export function openReply(key, sealed, aad) {
    return open(key.privateKey, key.publicRaw, sealed, Buffer.from(aad, 'utf8')).toString('utf8');
}
//# sourceMappingURL=crypto.js.map