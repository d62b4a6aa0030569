/**
 * Raw 32-byte keys <-> Node KeyObjects for Ed25519 and X25519.
 *
 * Node's crypto has no "raw" import for these curves. Private seeds are wrapped in the fixed PKCS#8
 * header of RFC 8410 (constant because the keys are always 32 bytes); that happens a few times per
 * process. Public keys go through JWK instead of the equally valid SPKI header: with OpenSSL 3 a DER
 * import costs ~80 us and an SPKI export ~90 us, against ~8 us and ~1 us for JWK, and public keys are
 * imported on every message opened (the sender's ephemeral key).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { CryptoError } from './errors.js';
const PKCS8_PREFIX = {
    ed25519: Buffer.from('302e020100300506032b657004220420', 'hex'),
    x25519: Buffer.from('302e020100300506032b656e04220420', 'hex'),
};
const JWK_CURVE = { ed25519: 'Ed25519', x25519: 'X25519' };
export const RAW_KEY_LENGTH = 32;
function requireRaw(raw, what) {
    if (!(raw instanceof Uint8Array) || raw.length !== RAW_KEY_LENGTH) {
        throw new CryptoError('bad-key', `${what} must be ${RAW_KEY_LENGTH} bytes`);
    }
}
/** Private KeyObject from a 32-byte seed (Ed25519) or scalar (X25519). */
export function privateKeyFromSeed(curve, seed) {
    requireRaw(seed, `${curve} private seed`);
    return createPrivateKey({
        key: Buffer.concat([PKCS8_PREFIX[curve], seed]),
        format: 'der',
        type: 'pkcs8',
    });
}
/** Public KeyObject from the raw 32-byte public key. Throws CryptoError('bad-key') if OpenSSL refuses it. */
export function publicKeyFromRaw(curve, raw) {
    requireRaw(raw, `${curve} public key`);
    try {
        const x = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64url');
        return createPublicKey({ key: { kty: 'OKP', crv: JWK_CURVE[curve], x }, format: 'jwk' });
    }
    catch {
        throw new CryptoError('bad-key', `${curve} public key is not a valid point`);
    }
}
export function ed25519PublicFromRaw(raw) {
    return publicKeyFromRaw('ed25519', raw);
}
export function x25519PublicFromRaw(raw) {
    return publicKeyFromRaw('x25519', raw);
}
/** The raw 32-byte public key of an Ed25519/X25519 KeyObject (public or private). */
export function rawPublicKey(key) {
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
    #curve;
    #limit;
    #map = new Map();
    constructor(curve, limit = 4096) {
        this.#curve = curve;
        this.#limit = limit;
    }
    get(raw) {
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
            if (oldest.done !== true)
                this.#map.delete(oldest.value);
        }
        this.#map.set(id, key);
        return key;
    }
}
//# sourceMappingURL=keys.js.map