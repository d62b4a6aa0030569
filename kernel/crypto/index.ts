/** The kernel's cryptography, one module per job; import from here unless you need a single piece. */
export { CryptoError, type CryptoErrorReason } from './errors.js';
export { type BytesLike } from './encoding.js';
export { generateMnemonic, isValidMnemonic, mnemonicToSeed, normalizeMnemonic, MNEMONIC_WORDS } from './mnemonic.js';
export {
  deriveNodeKeys,
  deriveSubkey,
  pubkeyHash,
  ed25519PublicFromRaw,
  x25519PublicFromRaw,
  rawPublicKey,
  DERIVATION_LABELS,
  type KeyPair,
  type NodeKeys,
} from './derive.js';
export { onionAddress, torHiddenServiceFiles, type TorHiddenServiceFiles } from './onion.js';
export { sign, verify } from './sign.js';
export { seal, open, type Sealed } from './seal.js';
export { encryptAtRest, decryptAtRest } from './at-rest.js';
