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
 * Hot path: runs for every peer message. The recipient's KeyObject is cached, the sender's ephemeral key is
 * imported via JWK (see keys.ts for the costs), and both sides keep a session's derived keys, so a new ephemeral
 * key (newPrivateKey: random bytes, not key generation, keys.ts) is made once a minute per recipient.
 */
import {
  createCipheriv,
  createDecipheriv,
  diffieHellman,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { decodeBase64urlStrict, toBuffer, type BytesLike } from './encoding.js';
import { CryptoError } from './errors.js';
import { newPrivateKey, PublicKeyCache, publicKeyFromRaw, RAW_KEY_LENGTH, rawPublicKey } from './keys.js';

/** All fields base64url; `ct` is the ciphertext followed by the 16-byte GCM tag. */
export interface Sealed {
  epk: string;
  iv: string;
  ct: string;
}

const INFO = Buffer.from('wallet-node/seal/v1', 'utf8');
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

const recipientKeys = new PublicKeyCache('x25519');

function messageKey(shared: Buffer, epkRaw: Buffer, recipientRaw: Uint8Array): Buffer {
  // X25519 with a small-order point yields all zeros; OpenSSL refuses it, this is belt and braces.
  if (shared.every((b) => b === 0)) throw new CryptoError('bad-key', 'degenerate shared secret');
  const salt = Buffer.concat([epkRaw, recipientRaw]);
  return Buffer.from(hkdfSync('sha256', shared, salt, INFO, 32));
}

const REPLY_INFO = Buffer.from('wallet-node/seal-reply/v1', 'utf8');

/** A reply sealed under the key both sides derived from the request: no ephemeral key, one AES-GCM pass. */
export interface SealedReply {
  iv: string;
  ct: string;
}

function encrypt(key: Buffer, plaintext: BytesLike, aad: BytesLike): { iv: string; ct: string } {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(toBuffer(aad));
  const ct = Buffer.concat([cipher.update(toBuffer(plaintext)), cipher.final(), cipher.getAuthTag()]);
  return { iv: iv.toString('base64url'), ct: ct.toString('base64url') };
}

function decrypt(key: Buffer, iv: Buffer, ct: Buffer, aad: BytesLike): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
    decipher.setAAD(toBuffer(aad));
    decipher.setAuthTag(ct.subarray(ct.length - TAG_LENGTH));
    return Buffer.concat([decipher.update(ct.subarray(0, ct.length - TAG_LENGTH)), decipher.final()]);
  } catch {
    throw new CryptoError('auth-failed', 'sealed body could not be opened');
  }
}

/**
 * The key for the answer to a sealed message. Only the sender (who made the ephemeral key) and the recipient
 * (who holds the static key) can derive it, so the reply needs no second key agreement.
 */
function replyKeyOf(messageKeyBytes: Buffer, epkRaw: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', messageKeyBytes, epkRaw, REPLY_INFO, 32));
}

interface SessionKeys {
  epk: string;
  key: Buffer;
  replyKey: Buffer;
}

function newSession(recipientPublicRaw: Uint8Array): SessionKeys {
  const recipient = recipientKeys.get(recipientPublicRaw);
  const ephemeral = newPrivateKey('x25519');
  const epkRaw = rawPublicKey(ephemeral);
  const epk = epkRaw.toString('base64url');
  const key = messageKey(diffieHellman({ privateKey: ephemeral, publicKey: recipient }), epkRaw, recipientPublicRaw);
  return { epk, key, replyKey: replyKeyOf(key, epkRaw) };
}

/** Seals to a recipient under a fresh ephemeral key and returns the key its reply will be sealed with. */
export function sealSession(recipientPublicRaw: Uint8Array, plaintext: BytesLike, aad: BytesLike): { sealed: Sealed; replyKey: Buffer } {
  const session = newSession(recipientPublicRaw);
  return { sealed: { epk: session.epk, ...encrypt(session.key, plaintext, aad) }, replyKey: session.replyKey };
}

export function seal(recipientPublicRaw: Uint8Array, plaintext: BytesLike, aad: BytesLike): Sealed {
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
  readonly #byRecipient = new Map<string, SessionKeys & { expiresAt: number }>();

  seal(recipientPublicRaw: Uint8Array, plaintext: BytesLike, aad: BytesLike, nowMs = Date.now()): { sealed: Sealed; replyKey: Buffer } {
    const id = Buffer.from(recipientPublicRaw).toString('base64url');
    let session = this.#byRecipient.get(id);
    if (!session || session.expiresAt <= nowMs) {
      this.#byRecipient.delete(id);
      if (this.#byRecipient.size >= MAX_SESSIONS) forgetOldest(this.#byRecipient);
      session = { ...newSession(recipientPublicRaw), expiresAt: nowMs + SESSION_LIFETIME_MS };
      this.#byRecipient.set(id, session);
    }
    return { sealed: { epk: session.epk, ...encrypt(session.key, plaintext, aad) }, replyKey: session.replyKey };
  }
}

/** Maps keep insertion order: the first entry is the oldest. */
function forgetOldest(map: Map<string, unknown>): void {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
}

/**
 * The receiving side's memo of keys derived from senders' ephemeral keys, so a session's messages after the
 * first skip the key agreement. The derivation is deterministic (epk and our static key), so the memo can
 * never hold a wrong key; it is bounded in size and age so derived keys do not outlive the sender's window
 * by much.
 */
export class OpenedSessions {
  readonly #byEpk = new Map<string, { key: Buffer; replyKey: Buffer; expiresAt: number }>();

  keysFor(epk: string, nowMs: number, derive: () => { key: Buffer; replyKey: Buffer }): { key: Buffer; replyKey: Buffer } {
    const hit = this.#byEpk.get(epk);
    if (hit && hit.expiresAt > nowMs) return hit;
    this.#byEpk.delete(epk);
    if (this.#byEpk.size >= MAX_SESSIONS) forgetOldest(this.#byEpk);
    const keys = { ...derive(), expiresAt: nowMs + 2 * SESSION_LIFETIME_MS };
    this.#byEpk.set(epk, keys);
    return keys;
  }
}

/** Opens a sealed message and returns the key to seal its reply with. Throws like `open`. */
export function openSession(
  recipientPrivateKey: KeyObject,
  recipientPublicRaw: Uint8Array,
  sealed: Sealed,
  aad: BytesLike,
  memo?: OpenedSessions,
): { plaintext: Buffer; replyKey: Buffer } {
  const fields: Partial<Record<keyof Sealed, unknown>> =
    typeof sealed === 'object' && sealed !== null ? sealed : {};
  const epkRaw = decodeBase64urlStrict(fields.epk);
  const iv = decodeBase64urlStrict(fields.iv);
  const ct = decodeBase64urlStrict(fields.ct);
  if (epkRaw?.length !== RAW_KEY_LENGTH || iv?.length !== IV_LENGTH || ct === undefined || ct.length < TAG_LENGTH) {
    throw new CryptoError('malformed', 'sealed body is malformed');
  }
  const derive = (): { key: Buffer; replyKey: Buffer } => {
    try {
      const shared = diffieHellman({ privateKey: recipientPrivateKey, publicKey: publicKeyFromRaw('x25519', epkRaw) });
      const key = messageKey(shared, epkRaw, recipientPublicRaw);
      return { key, replyKey: replyKeyOf(key, epkRaw) };
    } catch {
      // A bad ephemeral key is indistinguishable from tampering for the caller.
      throw new CryptoError('auth-failed', 'sealed body could not be opened');
    }
  };
  const keys = memo ? memo.keysFor(fields.epk as string, Date.now(), derive) : derive();
  return { plaintext: decrypt(keys.key, iv, ct, aad), replyKey: keys.replyKey };
}

/**
 * Throws CryptoError: 'malformed' if the sealed object is not well-formed, 'auth-failed' if it does
 * not decrypt under this key and AAD (tampering, wrong recipient and wrong AAD look the same on purpose).
 */
export function open(recipientPrivateKey: KeyObject, recipientPublicRaw: Uint8Array, sealed: Sealed, aad: BytesLike): Buffer {
  return openSession(recipientPrivateKey, recipientPublicRaw, sealed, aad).plaintext;
}

export function sealReply(replyKey: Buffer, plaintext: BytesLike, aad: BytesLike): SealedReply {
  return encrypt(replyKey, plaintext, aad);
}

export function openReply(replyKey: Buffer, sealed: SealedReply, aad: BytesLike): Buffer {
  const iv = decodeBase64urlStrict(sealed?.iv);
  const ct = decodeBase64urlStrict(sealed?.ct);
  if (iv?.length !== IV_LENGTH || ct === undefined || ct.length < TAG_LENGTH) {
    throw new CryptoError('malformed', 'sealed reply is malformed');
  }
  return decrypt(replyKey, iv, ct, aad);
}
