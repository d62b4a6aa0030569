/** The kernel's cryptography, one module per job; import from here unless you need a single piece. */
export { CryptoError } from './errors.js';
export { generateMnemonic, isValidMnemonic, mnemonicToSeed, normalizeMnemonic, MNEMONIC_WORDS } from './mnemonic.js';
export { deriveNodeKeys, deriveSubkey, pubkeyHash, ed25519PublicFromRaw, x25519PublicFromRaw, rawPublicKey, DERIVATION_LABELS, } from './derive.js';
export { onionAddress, torHiddenServiceFiles } from './onion.js';
export { sign, verify } from './sign.js';
export { seal, open } from './seal.js';
export { encryptAtRest, decryptAtRest } from './at-rest.js';
//# sourceMappingURL=index.js.map