/**
 * Raw 32-byte keys <-> Node KeyObjects for Ed25519 and X25519.
 *
 * Node's crypto has no "raw" import for these curves. Private seeds are wrapped in the fixed PKCS#8
 * header of RFC 8410 (constant because the keys are always 32 bytes); that happens a few times per
 * process. Public keys go through JWK instead of the equally valid SPKI header: with OpenSSL 3 a DER
 * import costs ~80 us and an SPKI export ~90 us, against ~8 us and ~1 us for JWK, and public keys are
 * imported on every message opened (the sender's ephemeral key).
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { CryptoError } from './errors.js';

export type CurveName = 'ed25519' | 'x25519';

const PKCS8_PREFIX: Record<CurveName, Buffer> = {
  ed25519: Buffer.from('302e020100300506032b657004220420', 'hex'),
  x25519: Buffer.from('302e020100300506032b656e04220420', 'hex'),
};

const JWK_CURVE: Record<CurveName, string> = { ed25519: 'Ed25519', x25519: 'X25519' };

export const RAW_KEY_LENGTH = 32;

function requireRaw(raw: Uint8Array, what: string): void {
  if (!(raw instanceof Uint8Array) || raw.length !== RAW_KEY_LENGTH) {
    throw new CryptoError('bad-key', `${what} must be ${RAW_KEY_LENGTH} bytes`);
  }
}

/** Private KeyObject from a 32-byte seed (Ed25519) or scalar (X25519). */
export function privateKeyFromSeed(curve: CurveName, seed: Uint8Array): KeyObject {
  requireRaw(seed, `${curve} private seed`);
  return createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX[curve], seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

/**
 * A new private key: 32 random bytes as its seed (Ed25519) or scalar (X25519), which is all key generation does for
 * these curves. Not `generateKeyPair(Sync)`: on Node 20 a finished key-generation job can be destroyed by a garbage
 * collection that runs while its key is being exported under the key's lock (an allocation inside the JWK export), and
 * the job's destructor then waits for that lock for good. Seen once, in a test process: its main thread in
 * `futex_wait` under `KeyGenJob::~KeyGenJob`, called from `ExportJWKEdKey`, for 15 minutes, until killed.
 */
export function newPrivateKey(curve: CurveName): KeyObject {
  return privateKeyFromSeed(curve, randomBytes(RAW_KEY_LENGTH));
}

/** Public KeyObject from the raw 32-byte public key. Throws CryptoError('bad-key') if OpenSSL refuses it. */
export function publicKeyFromRaw(curve: CurveName, raw: Uint8Array): KeyObject {
  requireRaw(raw, `${curve} public key`);
  try {
    const x = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64url');
    return createPublicKey({ key: { kty: 'OKP', crv: JWK_CURVE[curve], x }, format: 'jwk' });
  } catch {
    throw new CryptoError('bad-key', `${curve} public key is not a valid point`);
  }
}

export function ed25519PublicFromRaw(raw: Uint8Array): KeyObject {
  return publicKeyFromRaw('ed25519', raw);
}

export function x25519PublicFromRaw(raw: Uint8Array): KeyObject {
  return publicKeyFromRaw('x25519', raw);
}

/** The raw 32-byte public key of an Ed25519/X25519 KeyObject (public or private). */
export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const curve = pub.asymmetricKeyType;
  if (curve !== 'ed25519' && curve !== 'x25519') {
    throw new CryptoError('bad-key', `expected an ed25519 or x25519 key, got ${String(curve)}`);
  }
  const { x } = pub.export({ format: 'jwk' });
  const raw = typeof x === 'string' ? Buffer.from(x, 'base64url') : undefined;
  if (raw === undefined || raw.length !== RAW_KEY_LENGTH) {
    throw new CryptoError('bad-key', `${curve} key did not export a 32-byte public key`);
  }
  return raw;
}

/**
 * A small bounded cache of public KeyObjects by raw key.
 *
 * Importing a key from DER costs about as much as a signature check; a node talks to the same few
 * hundred peers over and over, so keeping their KeyObjects turns verify/seal into the bare curve
 * operation. Insertion order of a Map gives a cheap LRU: a hit is re-inserted at the end, the oldest
 * entry goes when full. KeyObjects are immutable, so sharing them is safe.
 */
export class PublicKeyCache {
  readonly #curve: CurveName;
  readonly #limit: number;
  readonly #map = new Map<string, KeyObject>();

  constructor(curve: CurveName, limit = 4096) {
    this.#curve = curve;
    this.#limit = limit;
  }

  get(raw: Uint8Array): KeyObject {
    requireRaw(raw, `${this.#curve} public key`);
    const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
    const hit = this.#map.get(id);
    if (hit !== undefined) {
      this.#map.delete(id);
      this.#map.set(id, hit);
      return hit;
    }
    const key = publicKeyFromRaw(this.#curve, raw);
    if (this.#map.size >= this.#limit) {
      const oldest = this.#map.keys().next();
      if (oldest.done !== true) this.#map.delete(oldest.value);
    }
    this.#map.set(id, key);
    return key;
  }
}
