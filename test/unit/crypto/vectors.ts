/**
 * Published test vectors, each with where it comes from, and the golden identity of the BIP39
 * all-zero-entropy phrase (computed independently with Python's hashlib + pyca/cryptography, so the
 * TypeScript derivation cannot agree with itself by accident).
 */

/** BIP39 24-word vector for entropy 00..00 (the official vector file uses passphrase "TREZOR"). */
export const ABANDON_ART = `${'abandon '.repeat(23)}art`;
/** The same phrase with the empty passphrase; matches several independent BIP39 implementations' tests. */
export const ABANDON_ART_SEED_EMPTY_PASSPHRASE =
  '408b285c123836004f4b8842c89324c1f01382450c0d439af345ba7fc49acf70' +
  '5489c6fc77dbd4e3dc1dd8cc6bc9f043db8ada1e243c4a0eafb290d399480840';
/** Official trezor/python-mnemonic vectors.json, 24 words of zero entropy, passphrase "TREZOR". */
export const ABANDON_ART_SEED_TREZOR =
  'bda85446c68413707090a52022edd26a1c9462295029f2e60cd7c4f2bbd3097170af7a4d73245cafa9c3cca8d561a7c3de6f5d4a10be8ed2a5e608d68f92fcc8';

/** Our identity format for ABANDON_ART (labels and salt of kernel/crypto/derive.ts). */
export const ABANDON_ART_IDENTITY = {
  pubkeyHash: '01e67f4c59d5e71e8777db51a55bf237223c7f616689fcf2ccf4d6e3453d0945',
  publicKey: '2b67a2feadacde9361b0dd29a9fb5bc8fb68bd0764f08b17ad5e91b43ddce28e',
  sealingPublicKey: '0d92cacbc399c86ac4872e8157d0ca4b04e6b6d67222a8a99d52105d62b8e40b',
  onionAddress: '7bnf7j6lmshv277grslmibq4sku7vhydkzmyooqo4ag47ieo6zdt5tid.onion',
  authCode: '56c66a9c19f2e8871f53',
  storageKey: '5c22f7f90552f7deb68c92ebaac907575f9dfc3ef2958ff76ce98e1943a9fe3e',
  subkeyApiSecrets: 'e85eb2c3a6b8a73982c78fa93f4ab1c4f5ae3e1f5000e813eb834426bca504aa',
} as const;

/** RFC 8032 section 7.1, TEST 1 (empty message). */
export const RFC8032_TEST1 = {
  seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  signature:
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
} as const;

/**
 * Tor's own test (src/test/test_hs_common.c, test_build_address, from hs_build_address.py):
 * the onion name of RFC 8032 TEST 1's public key.
 */
export const TOR_ONION_OF_RFC8032_TEST1 = '25njqamcweflpvkl73j4szahhihoc4xt3ktcgjnpaingr5yhkenl5sid.onion';
/**
 * Tor's expanded secret key for RFC 8032 TEST 1's seed, as accepted by a real tor's ADD_ONION
 * (ServiceID 25njq...l5sid) in one public project's test and computed with hashlib in another.
 */
export const TOR_EXPANDED_KEY_OF_RFC8032_TEST1 =
  'MHyDhk8oM8tCei7xwAoBPP3/J2jZgMCjpSDwBpBN6U+bTwr+KAt0aneGhOdUQlAgV7dHOgPwj5b1o46Sh+Afjw==';

/** RFC 7748 section 6.1 (X25519 Alice/Bob). */
export const RFC7748 = {
  alicePrivate: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
  alicePublic: '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
  bobPrivate: '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
  bobPublic: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
  shared: '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
} as const;
