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
import type { KeyObject } from 'node:crypto';
import { decryptAtRest, encryptAtRest, newPrivateKey, open, rawPublicKey, seal, type Sealed } from '../../sdk/crypto.js';
import { isPlainObject } from './validate.js';

export class FieldCipher {
  constructor(private readonly key: Buffer) {}

  static ownAad(methodId: string): string {
    return `payback-method:${methodId}`;
  }

  static receivedAad(contactHash: string, remoteId: string): string {
    return `payback-received:${contactHash}:${remoteId}`;
  }

  encrypt(fields: Record<string, unknown>, aad: string): string {
    return encryptAtRest(this.key, JSON.stringify(fields), aad);
  }

  /** The fields, or null when the blob does not open (wrong key after a restore with another seed, tampering). */
  decrypt(blob: string, aad: string): Record<string, unknown> | null {
    try {
      const value: unknown = JSON.parse(decryptAtRest(this.key, blob, aad).toString('utf8'));
      return isPlainObject(value) ? value : null;
    } catch {
      return null;
    }
  }
}

export interface ReplyKey {
  /** Raw X25519 public key, base64url: what the request carries. */
  publicB64: string;
  publicRaw: Buffer;
  privateKey: KeyObject;
}

export function newReplyKey(): ReplyKey {
  const privateKey = newPrivateKey('x25519');
  const publicRaw = rawPublicKey(privateKey);
  return { publicB64: publicRaw.toString('base64url'), publicRaw, privateKey };
}

/** Binds the sealed methods to this pair of nodes and this request's key. */
export function replyAad(responderHash: string, requesterHash: string, replyKeyB64: string): string {
  return `payback.fetch/v1|${responderHash}|${requesterHash}|${replyKeyB64}`;
}

export function sealReply(replyKeyRaw: Buffer, plaintext: string, aad: string): Sealed {
  return seal(replyKeyRaw, Buffer.from(plaintext, 'utf8'), Buffer.from(aad, 'utf8'));
}

/** Throws CryptoError when the sealed body does not open. */
export function openReply(key: ReplyKey, sealed: Sealed, aad: string): string {
  return open(key.privateKey, key.publicRaw, sealed, Buffer.from(aad, 'utf8')).toString('utf8');
}
