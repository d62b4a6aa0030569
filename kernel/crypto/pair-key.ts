/**
 * The key two nodes share from their static sealing keys alone: X25519 of one's private key and the other's public
 * key, then HKDF. A request authenticated by an HMAC under it needs no Ed25519 signature, once its recipient holds the
 * sender's sealing key bound to the sender's identity by a signature it verified (docs/protocol.md, section 4, "Pair
 * MAC"). Only the two ends can compute the key.
 *
 * The salt is the sender's public key, then the recipient's: each direction of a pair has a key of its own, so a
 * message can never be turned back to its sender as one from the other side.
 */
import { createHmac, diffieHellman, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { decodeBase64urlStrict } from './encoding.js';
import { CryptoError } from './errors.js';
import { publicKeyFromRaw } from './keys.js';

const INFO = Buffer.from('wallet-node/pair-mac/v1', 'utf8');
const MAX_KEYS = 4096;

/** Which way the messages a key authenticates travel: from this node to the peer, or from the peer to this node. */
export type PairDirection = 'to' | 'from';

/** Pair keys by peer and direction, each agreed once (a key agreement costs more than a whole MAC). */
export class PairKeys {
  /** Oldest first, for the cap. */
  readonly #keys = new Map<string, Buffer>();

  constructor(
    private readonly privateKey: KeyObject,
    private readonly ownPublicRaw: Uint8Array,
  ) {}

  /** Throws CryptoError('bad-key') for a peer key X25519 refuses or that yields a degenerate secret. */
  key(peerPublicRaw: Uint8Array, direction: PairDirection): Buffer {
    const peer = Buffer.from(peerPublicRaw);
    const id = `${direction}:${peer.toString('base64url')}`;
    const known = this.#keys.get(id);
    if (known) return known;
    let shared: Buffer;
    try {
      shared = diffieHellman({ privateKey: this.privateKey, publicKey: publicKeyFromRaw('x25519', peer) });
    } catch {
      throw new CryptoError('bad-key', 'the peer sealing key is not a usable X25519 key');
    }
    if (shared.every((b) => b === 0)) throw new CryptoError('bad-key', 'degenerate shared secret');
    const own = Buffer.from(this.ownPublicRaw);
    const salt = direction === 'to' ? Buffer.concat([own, peer]) : Buffer.concat([peer, own]);
    const key = Buffer.from(hkdfSync('sha256', shared, salt, INFO, 32));
    if (this.#keys.size >= MAX_KEYS) this.#keys.delete(this.#keys.keys().next().value!);
    this.#keys.set(id, key);
    return key;
  }
}

/** HMAC-SHA256 of `bytes` under a pair key: what a MAC is made of and checked against. */
const macOf = (key: Buffer, bytes: Uint8Array): Buffer => createHmac('sha256', key).update(bytes).digest();

/** The pair MAC of `bytes`, base64url, as a request carries it. */
export const pairMac = (key: Buffer, bytes: Uint8Array): string => macOf(key, bytes).toString('base64url');

/** Whether `mac` is the pair MAC of `bytes` (compared in constant time). */
export function pairMacMatches(key: Buffer, bytes: Uint8Array, mac: string): boolean {
  const given = decodeBase64urlStrict(mac);
  const expected = macOf(key, bytes);
  return given !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
}
