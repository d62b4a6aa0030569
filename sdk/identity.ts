export interface NodeAddresses {
  http: string | null;
  https: string | null;
  tor: string | null;
}

export interface IdentityApi {
  readonly pubkeyHash: string;
  /** Raw Ed25519 public key. */
  readonly publicKey: Buffer;
  /** Raw X25519 public key others seal to. */
  readonly sealingPublicKey: Buffer;
  readonly authCode: string;
  sign(data: Uint8Array): Buffer;
  verify(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean;
  /** A key for encrypting this plugin's data at rest, derived from the node seed and a label. */
  storageKey(label: string): Buffer;
  /**
   * A plugin assertion: the node signs `bytes` for this plugin under `domain` (1-128 printable ASCII characters). The
   * signature covers the plugin's name and the domain too (docs/protocol.md, "Plugin assertions"), so it can stand
   * for nothing else the node signs.
   */
  assert(domain: string, bytes: Uint8Array): Buffer;
  /** Whether `signature` is an assertion of the node with Ed25519 key `publicKey`, made by `plugin` under `domain`. */
  verifyAssertion(publicKey: Uint8Array, plugin: string, domain: string, bytes: Uint8Array, signature: Uint8Array): boolean;
}

/** The node's identity before a plugin is named: the host adds the plugin's assertions to it. */
export type NodeIdentityApi = Omit<IdentityApi, 'assert' | 'verifyAssertion'>;
