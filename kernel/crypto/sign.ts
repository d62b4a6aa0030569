/**
 * Ed25519 signatures (pure EdDSA, RFC 8032: no pre-hash).
 *
 * Two implementations of the same two operations. libsodium (sodium-native) signs in about half the time of Node's
 * OpenSSL build and verifies in half the time too (19 and 50 us against 36 and 106 us here); a payment costs two
 * signatures and two checks on its path, so it is the one used wherever its prebuilt binary loads. Node's crypto
 * is the fallback on a platform sodium-native has no binary for. Ed25519 is deterministic: both give the same
 * signature for the same key and bytes, and each verifies the other's (test/unit/crypto/sign.test.ts).
 * libsodium is the stricter verifier: it also refuses a public key or a signature point of small order, which no
 * honest signer produces (docs/decisions.md).
 */
import { createRequire } from 'node:module';
import { sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { CryptoError } from './errors.js';
import { PublicKeyCache, RAW_KEY_LENGTH } from './keys.js';

const SIGNATURE_LENGTH = 64;
const SECRET_KEY_LENGTH = 64;

export interface Ed25519 {
  readonly name: 'libsodium' | 'node:crypto';
  sign(privateKey: KeyObject, data: Uint8Array): Buffer;
  /** May throw on unusable input: `verify` below turns that into false. */
  verify(publicRaw: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean;
}

const verifyKeys = new PublicKeyCache('ed25519');

export const nodeEd25519: Ed25519 = {
  name: 'node:crypto',
  sign: (privateKey, data) => nodeSign(null, data, privateKey),
  verify: (publicRaw, data, signature) => nodeVerify(null, data, verifyKeys.get(publicRaw), signature),
};

/** The part of sodium-native used here. */
interface Sodium {
  sodium_malloc(size: number): Buffer;
  crypto_sign_seed_keypair(publicKey: Buffer, secretKey: Buffer, seed: Buffer): void;
  crypto_sign_detached(signature: Buffer, message: Uint8Array, secretKey: Buffer): void;
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

/** libsodium's Ed25519, or null where sodium-native has no binary for this platform. */
export function sodiumEd25519(): Ed25519 | null {
  let sodium: Sodium;
  try {
    sodium = createRequire(import.meta.url)('sodium-native') as Sodium;
  } catch {
    return null;
  }
  // libsodium signs with the seed and public key together; made once per key, in memory it guards and never swaps.
  const secrets = new WeakMap<KeyObject, Buffer>();
  const secretOf = (privateKey: KeyObject): Buffer => {
    let secret = secrets.get(privateKey);
    if (secret === undefined) {
      // As Node's crypto does: any other key (an X25519 one has a 32-byte secret too) is refused, not used as a seed.
      if (privateKey.asymmetricKeyType !== 'ed25519') throw new CryptoError('bad-key', 'an Ed25519 signature needs an Ed25519 private key');
      const seed = Buffer.from(String(privateKey.export({ format: 'jwk' }).d), 'base64url');
      secret = sodium.sodium_malloc(SECRET_KEY_LENGTH);
      sodium.crypto_sign_seed_keypair(Buffer.alloc(RAW_KEY_LENGTH), secret, seed);
      seed.fill(0);
      secrets.set(privateKey, secret);
    }
    return secret;
  };
  return {
    name: 'libsodium',
    sign(privateKey, data) {
      const signature = Buffer.alloc(SIGNATURE_LENGTH);
      sodium.crypto_sign_detached(signature, data, secretOf(privateKey));
      return signature;
    },
    verify: (publicRaw, data, signature) => publicRaw.length === RAW_KEY_LENGTH && sodium.crypto_sign_verify_detached(signature, data, publicRaw),
  };
}

let chosen: Ed25519 | null = null;

/** The implementation this process uses, loaded at the first signature or check (a CLI command may need none). */
export function ed25519(): Ed25519 {
  return (chosen ??= sodiumEd25519() ?? nodeEd25519);
}

export function sign(privateKey: KeyObject, data: Uint8Array): Buffer {
  return ed25519().sign(privateKey, data);
}

/**
 * True only for a valid signature. Anything else, including garbage keys or signatures of the wrong
 * size, is simply false: inputs come straight off the network and a verifier that throws invites a
 * caller to treat "threw" differently from "invalid".
 */
export function verify(publicRaw: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_LENGTH) return false;
    if (!(data instanceof Uint8Array)) return false;
    return ed25519().verify(publicRaw, data, signature);
  } catch {
    return false;
  }
}
