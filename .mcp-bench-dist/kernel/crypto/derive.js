/**
 * Everything a node owns is derived from its BIP39 seed, so the seed phrase alone restores a node.
 *
 * HKDF-SHA256 with a fixed salt and one fixed label per purpose keeps the keys independent of each
 * other: leaking one output (say the at-rest key) reveals nothing about the signing key. The labels
 * are part of the identity format: changing any of them changes every node's identity.
 */
import { createHash, createPublicKey, hkdfSync } from 'node:crypto';
import { CryptoError } from './errors.js';
import { privateKeyFromSeed, rawPublicKey } from './keys.js';
export { ed25519PublicFromRaw, x25519PublicFromRaw, rawPublicKey } from './keys.js';
const SALT = Buffer.from('wallet-node/v1', 'utf8');
const KEY_LENGTH = 32;
/** 80 bits: enough for a login code that is rate-limited, short enough to type. */
const AUTH_CODE_BYTES = 10;
export const DERIVATION_LABELS = {
    signing: 'ed25519-signing',
    sealing: 'x25519-sealing',
    onion: 'tor-onion-v3',
    authCode: 'auth-code',
    storage: 'at-rest-storage',
};
function hkdf(ikm, salt, label, length = KEY_LENGTH) {
    return Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from(label, 'utf8'), length));
}
function keyPair(curve, seed) {
    const privateKey = privateKeyFromSeed(curve, seed);
    const publicKey = createPublicKey(privateKey);
    return { privateKey, publicKey, publicRaw: rawPublicKey(publicKey) };
}
export function deriveNodeKeys(seed) {
    // BIP39 seeds are 64 bytes; anything much shorter means a caller passed the wrong thing.
    if (!(seed instanceof Uint8Array) || seed.length < 32) {
        throw new CryptoError('bad-key', 'node seed must be at least 32 bytes');
    }
    const onionSeed = hkdf(seed, SALT, DERIVATION_LABELS.onion);
    const onion = keyPair('ed25519', onionSeed);
    return {
        signing: keyPair('ed25519', hkdf(seed, SALT, DERIVATION_LABELS.signing)),
        sealing: keyPair('x25519', hkdf(seed, SALT, DERIVATION_LABELS.sealing)),
        onion: { seed: onionSeed, publicRaw: onion.publicRaw },
        authCode: hkdf(seed, SALT, DERIVATION_LABELS.authCode).subarray(0, AUTH_CODE_BYTES).toString('hex'),
        storageKey: hkdf(seed, SALT, DERIVATION_LABELS.storage),
    };
}
/** Lower-case hex SHA-256 of the raw 32-byte Ed25519 public key: the node's stable id on the network. */
export function pubkeyHash(ed25519PublicRaw) {
    if (!(ed25519PublicRaw instanceof Uint8Array) || ed25519PublicRaw.length !== KEY_LENGTH) {
        throw new CryptoError('bad-key', 'ed25519 public key must be 32 bytes');
    }
    return createHash('sha256').update(ed25519PublicRaw).digest('hex');
}
/**
 * A key for one purpose of at-rest encryption (e.g. one table's secrets), so a mistake in one place
 * (a reused IV, a leaked blob) cannot be replayed against another purpose's data.
 */
export function deriveSubkey(storageKey, label) {
    if (!(storageKey instanceof Uint8Array) || storageKey.length !== KEY_LENGTH) {
        throw new CryptoError('bad-key', 'storage key must be 32 bytes');
    }
    if (typeof label !== 'string' || label.length === 0) {
        throw new CryptoError('malformed', 'subkey label must be a non-empty string');
    }
    // A distinct salt keeps subkeys from ever colliding with the top-level derivations above.
    return hkdf(storageKey, Buffer.from('wallet-node/v1/subkey', 'utf8'), label);
}
//# sourceMappingURL=derive.js.map