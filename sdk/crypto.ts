/**
 * The node's own primitives for plugins that keep or pass secrets: AES-256-GCM at rest with associated data, and
 * sealing to an X25519 key (ephemeral key agreement, HKDF-SHA256, AES-256-GCM).
 */
export { decryptAtRest, encryptAtRest } from '../kernel/crypto/at-rest.js';
export { newPrivateKey, rawPublicKey } from '../kernel/crypto/keys.js';
export { open, seal, type Sealed } from '../kernel/crypto/seal.js';
