/**
 * Signatures of third-party plugins: Ed25519 over the manifest's bytes and the entry's bytes, each by its SHA-256,
 * checked against the public keys the operator trusts. The trust anchors live in a file of the data directory that
 * only the operator edits (`trusted-plugin-keys`): no API key, even an admin one, can widen them.
 */
import { createHash, createPrivateKey, createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { newPrivateKey } from '../../crypto/keys.js';
import { existsSync, readFileSync } from 'node:fs';
import { verify } from '../../crypto/sign.js';
import { TRUSTED_KEYS_FILE } from '../../data-files.js';

export const SIGNATURE_FILE = 'plugin.sig';
const DOMAIN = 'wallet-node plugin signature v1';
const HEX32 = /^[0-9a-f]{64}$/;

/** plugin.sig. */
export interface PluginSignature {
  v: 1;
  algorithm: 'ed25519';
  /** Raw Ed25519 public key, 64 hex characters. */
  public_key: string;
  manifest_sha256: string;
  entry: string;
  entry_sha256: string;
  /** base64 of the signature over `signedMessage`. */
  signature: string;
}

export interface TrustedKey {
  public_key: string;
  name: string;
}

export type SignatureStatus = 'trusted' | 'untrusted' | 'unsigned' | 'invalid';

export interface SignatureVerdict {
  status: SignatureStatus;
  /** The trusted key's name. */
  signer: string | null;
  public_key: string | null;
  /** Why the plugin is not trusted, for the operator; null when it is. */
  reason: string | null;
}

export const sha256Hex = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The bytes signed: a domain line, then the plugin's name, the manifest's digest, the entry's name and digest. */
export function signedMessage(name: string, manifestSha: string, entry: string, entrySha: string): Buffer {
  return Buffer.from(`${DOMAIN}\n${name}\n${manifestSha}\n${entry}\n${entrySha}`, 'utf8');
}

export function publicKeyHex(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url').toString('hex');
}

/** A new author key pair: the private key as PKCS#8 PEM, the public key as the hex an operator trusts. */
export function generateAuthorKey(): { privatePem: string; publicHex: string } {
  const privateKey = newPrivateKey('ed25519');
  return { privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicHex: publicKeyHex(createPublicKey(privateKey)) };
}

export function signPlugin(input: { name: string; manifest: Uint8Array; entryName: string; entry: Uint8Array }, privatePem: string): PluginSignature {
  const key = createPrivateKey(privatePem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the signing key must be an Ed25519 private key');
  const manifestSha = sha256Hex(input.manifest);
  const entrySha = sha256Hex(input.entry);
  const signature = nodeSign(null, signedMessage(input.name, manifestSha, input.entryName, entrySha), key);
  return {
    v: 1,
    algorithm: 'ed25519',
    public_key: publicKeyHex(createPublicKey(key)),
    manifest_sha256: manifestSha,
    entry: input.entryName,
    entry_sha256: entrySha,
    signature: signature.toString('base64'),
  };
}

/**
 * `trusted-plugin-keys`: one key a line, `<64 hex> <name>`; `#` starts a comment. Lines that are not a key are
 * reported, not fatal: one typo must not untrust every other author.
 */
export function readTrustedKeys(file: string): { keys: TrustedKey[]; problems: string[] } {
  if (!existsSync(file)) return { keys: [], problems: [] };
  const keys: TrustedKey[] = [];
  const problems: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/#.*$/, '').trim();
      if (!line) return;
      const [hex, ...name] = line.split(/\s+/);
      if (!HEX32.test(hex!.toLowerCase())) return void problems.push(`line ${i + 1}: not a 64-hex Ed25519 public key`);
      keys.push({ public_key: hex!.toLowerCase(), name: name.join(' ') || hex!.slice(0, 16) });
    });
  return { keys, problems };
}

/**
 * Checks plugin.sig against the files as they are now. `invalid` when the signature does not cover these exact
 * bytes (a file changed after signing) or is malformed; `untrusted` when it is valid but by a key the operator does
 * not trust; `unsigned` without plugin.sig.
 */
export function verifyPlugin(
  files: { name: string; manifest: Uint8Array; entryName: string; entry: Uint8Array; signature: string | null },
  trusted: readonly TrustedKey[],
): SignatureVerdict {
  if (files.signature === null) return { status: 'unsigned', signer: null, public_key: null, reason: 'the plugin is not signed (no plugin.sig)' };
  let sig: Partial<PluginSignature>;
  try {
    sig = JSON.parse(files.signature) as Partial<PluginSignature>;
  } catch {
    return { status: 'invalid', signer: null, public_key: null, reason: 'plugin.sig is not JSON' };
  }
  const publicKey = typeof sig.public_key === 'string' && HEX32.test(sig.public_key) ? sig.public_key : null;
  const invalid = (reason: string): SignatureVerdict => ({ status: 'invalid', signer: null, public_key: publicKey, reason });
  if (sig.v !== 1 || sig.algorithm !== 'ed25519' || !publicKey || typeof sig.signature !== 'string') {
    return invalid('plugin.sig is not a version 1 Ed25519 signature');
  }
  const manifestSha = sha256Hex(files.manifest);
  const entrySha = sha256Hex(files.entry);
  if (sig.manifest_sha256 !== manifestSha) return invalid('plugin.json changed after it was signed (its SHA-256 differs from the signed one)');
  if (sig.entry !== files.entryName) return invalid(`the signature covers entry "${String(sig.entry)}", the manifest names "${files.entryName}"`);
  if (sig.entry_sha256 !== entrySha) return invalid(`${files.entryName} changed after it was signed (its SHA-256 differs from the signed one)`);
  const ok = verify(Buffer.from(publicKey, 'hex'), signedMessage(files.name, manifestSha, files.entryName, entrySha), Buffer.from(sig.signature, 'base64'));
  if (!ok) return invalid('the signature does not verify');
  const key = trusted.find((k) => k.public_key === publicKey);
  if (!key) return { status: 'untrusted', signer: null, public_key: publicKey, reason: `signed by ${publicKey}, which is not in ${TRUSTED_KEYS_FILE}` };
  return { status: 'trusted', signer: key.name, public_key: publicKey, reason: null };
}
