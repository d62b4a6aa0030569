/**
 * The node's identity: one 24-word seed phrase from which every key is derived (see crypto/derive.ts),
 * kept encrypted in the data directory.
 *
 * Files (both mode 600, created once and never rewritten):
 *   master.key    32 random bytes. It encrypts identity.enc. It has to be a separate random secret:
 *                 every key we could derive comes from the seed phrase, and the seed phrase cannot be
 *                 the key that protects itself. Keeping the two apart also means identity.enc alone
 *                 (copied off a disk, pasted in a ticket) reveals nothing.
 *   identity.enc  encryptAtRest(master.key, seed phrase, AAD "identity").
 *
 * The seed phrase never appears in an error message, and an Identity prints and serialises without it.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import { decryptAtRest, encryptAtRest } from './crypto/at-rest.js';
import type { BytesLike } from './crypto/encoding.js';
import { CryptoError } from './crypto/errors.js';
import { deriveNodeKeys, deriveSubkey, pubkeyHash, type NodeKeys } from './crypto/derive.js';
import { generateMnemonic, isValidMnemonic, mnemonicToSeed, normalizeMnemonic } from './crypto/mnemonic.js';
import { onionAddress, torHiddenServiceFiles, type TorHiddenServiceFiles } from './crypto/onion.js';
import { open, OpenedSessions, openSession, seal, type Sealed } from './crypto/seal.js';
import { PairKeys, type PairDirection } from './crypto/pair-key.js';
import { sign, verify } from './crypto/sign.js';
import { IDENTITY_FILE, MASTER_KEY_FILE } from './data-files.js';

const IDENTITY_AAD = 'identity';
const MASTER_KEY_LENGTH = 32;
const PRIVATE_FILE_MODE = 0o600;

export type IdentityErrorCode =
  /** The seed phrase given to restore from is not 24 valid BIP39 words. */
  | 'restore-invalid'
  /** The data directory already holds a different identity than the one given to restore. */
  | 'restore-mismatch'
  /** identity.enc exists but master.key is missing or damaged. */
  | 'master-key-unusable'
  /** identity.enc cannot be decrypted or does not hold a valid seed phrase. */
  | 'identity-unreadable'
  /** The data directory holds no identity (openExistingIdentity never creates one). */
  | 'identity-missing';

export class IdentityError extends Error {
  readonly code: IdentityErrorCode;

  constructor(code: IdentityErrorCode, message: string) {
    super(message);
    this.name = 'IdentityError';
    this.code = code;
  }
}

export interface IdentityOptions {
  /** Seed phrase to restore from on first start; on later starts it must match the stored one. */
  restoreMnemonic?: string;
}

/** Whether the directory holds no identity yet (the next start will create or restore one). */
export function isFreshDataDir(dataDir: string): boolean {
  return !existsSync(join(dataDir, IDENTITY_FILE));
}

export class Identity {
  /** Hex SHA-256 of the raw Ed25519 public key: how other nodes name this one. */
  readonly pubkeyHash: string;
  readonly onionAddress: string;
  readonly #mnemonic: string;
  readonly #keys: NodeKeys;
  readonly #openedSessions = new OpenedSessions();
  readonly #pairKeys: PairKeys;

  private constructor(mnemonic: string) {
    this.#mnemonic = normalizeMnemonic(mnemonic);
    this.#keys = deriveNodeKeys(mnemonicToSeed(this.#mnemonic));
    this.pubkeyHash = pubkeyHash(this.#keys.signing.publicRaw);
    this.onionAddress = onionAddress(this.#keys.onion.publicRaw);
    this.#pairKeys = new PairKeys(this.#keys.sealing.privateKey, this.#keys.sealing.publicRaw);
  }

  /** An identity held only in memory (nothing written); loadOrCreateIdentity is the persistent path. */
  static fromMnemonic(mnemonic: string): Identity {
    if (!isValidMnemonic(mnemonic)) {
      throw new IdentityError('restore-invalid', 'the mnemonic is invalid: expected 24 BIP39 English words with a valid checksum');
    }
    return new Identity(mnemonic);
  }

  /** Raw 32-byte Ed25519 public key (a copy: callers cannot alter the identity through it). */
  get publicKey(): Buffer {
    return Buffer.from(this.#keys.signing.publicRaw);
  }

  /** Raw 32-byte X25519 public key that peers seal to. */
  get sealingPublicKey(): Buffer {
    return Buffer.from(this.#keys.sealing.publicRaw);
  }

  /** 20 hex chars for local login; deterministic, so a restored node keeps it. */
  get authCode(): string {
    return this.#keys.authCode;
  }

  sign(data: Uint8Array): Buffer {
    return sign(this.#keys.signing.privateKey, data);
  }

  verify(publicRaw: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
    return verify(publicRaw, data, signature);
  }

  seal(recipientSealingPublicKey: Uint8Array, plaintext: BytesLike, aad: BytesLike): Sealed {
    return seal(recipientSealingPublicKey, plaintext, aad);
  }

  /** Throws CryptoError when the body was not sealed to this node or was altered. */
  open(sealed: Sealed, aad: BytesLike): Buffer {
    return open(this.#keys.sealing.privateKey, this.#keys.sealing.publicRaw, sealed, aad);
  }

  /** Like `open`, also returning the key the reply to this message is sealed with. */
  openSession(sealed: Sealed, aad: BytesLike): { plaintext: Buffer; replyKey: Buffer } {
    return openSession(this.#keys.sealing.privateKey, this.#keys.sealing.publicRaw, sealed, aad, this.#openedSessions);
  }

  /**
   * The key this node shares with the holder of a sealing key, for requests to it (`to`) or from it (`from`).
   * Throws CryptoError('bad-key') for a key X25519 refuses.
   */
  pairKey(peerSealingPublicKey: Uint8Array, direction: PairDirection): Buffer {
    return this.#pairKeys.key(peerSealingPublicKey, direction);
  }

  /** A 32-byte at-rest key for one purpose, e.g. storageKey('api-secrets'). */
  storageKey(label: string): Buffer {
    return deriveSubkey(this.#keys.storageKey, label);
  }

  /** The seed phrase. Only for the few places the spec allows showing it to the operator. */
  revealMnemonic(): string {
    return this.#mnemonic;
  }

  torHiddenServiceFiles(): TorHiddenServiceFiles {
    return torHiddenServiceFiles(this.#keys.onion.seed);
  }

  /** Only public facts: an Identity may end up in a log object or a debug dump. */
  toJSON(): { pubkeyHash: string; onionAddress: string } {
    return { pubkeyHash: this.pubkeyHash, onionAddress: this.onionAddress };
  }

  [inspect.custom](): string {
    return `Identity { pubkeyHash: '${this.pubkeyHash}', onionAddress: '${this.onionAddress}' }`;
  }
}

/**
 * Opens the identity in dataDir, creating it on first start (from opts.restoreMnemonic, else fresh).
 * Refuses to replace an existing identity with a different restore phrase.
 */
export function loadOrCreateIdentity(dataDir: string, opts: IdentityOptions = {}): Identity {
  const restore = opts.restoreMnemonic;
  if (restore !== undefined && !isValidMnemonic(restore)) {
    throw new IdentityError(
      'restore-invalid',
      'the RESTORE mnemonic is invalid: expected 24 BIP39 English words with a valid checksum (the words are not repeated here)',
    );
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const identityPath = join(dataDir, IDENTITY_FILE);
  const masterPath = join(dataDir, MASTER_KEY_FILE);

  if (!existsSync(identityPath)) {
    const masterKey = readMasterKey(masterPath) ?? createMasterKey(masterPath);
    const mnemonic = normalizeMnemonic(restore ?? generateMnemonic());
    const created = createFileExclusive(identityPath, encryptAtRest(masterKey, mnemonic, IDENTITY_AAD) + '\n');
    // Another process initialised the directory between our check and our write: use what it wrote.
    if (!created) return loadOrCreateIdentity(dataDir, opts);
    return Identity.fromMnemonic(mnemonic);
  }

  const masterKey = readMasterKey(masterPath);
  if (masterKey === undefined) {
    throw new IdentityError(
      'master-key-unusable',
      `${IDENTITY_FILE} exists in ${dataDir} but ${MASTER_KEY_FILE} is missing or damaged, so it cannot be decrypted; ` +
        `restore ${MASTER_KEY_FILE}, or move ${IDENTITY_FILE} aside and start with the seed phrase to restore`,
    );
  }
  tightenMode(identityPath);
  const stored = readStoredMnemonic(identityPath, masterKey);
  if (restore !== undefined && !sameMnemonic(stored, restore)) {
    throw new IdentityError(
      'restore-mismatch',
      `refusing to replace the identity already in ${dataDir}: the RESTORE mnemonic belongs to a different identity; ` +
        'restore into an empty data directory instead',
    );
  }
  return Identity.fromMnemonic(stored);
}

/**
 * Opens the identity a node already created in dataDir, creating nothing (a running node may hold the directory).
 * For the operator's own look at the seed phrase (`wallet-node seed`).
 */
export function openExistingIdentity(dataDir: string): Identity {
  if (isFreshDataDir(dataDir)) {
    throw new IdentityError('identity-missing', `no node identity in ${dataDir} (${IDENTITY_FILE} is missing)`);
  }
  return loadOrCreateIdentity(dataDir);
}

function readStoredMnemonic(identityPath: string, masterKey: Buffer): string {
  let mnemonic: string;
  try {
    mnemonic = decryptAtRest(masterKey, readFileSync(identityPath, 'utf8').trim(), IDENTITY_AAD).toString('utf8');
  } catch (err) {
    if (!(err instanceof CryptoError)) throw err;
    throw new IdentityError(
      'identity-unreadable',
      `${IDENTITY_FILE} cannot be decrypted with this ${MASTER_KEY_FILE} (${err.reason}); the files do not belong together or one is damaged`,
    );
  }
  if (!isValidMnemonic(mnemonic)) {
    throw new IdentityError('identity-unreadable', `${IDENTITY_FILE} decrypted but does not hold a valid seed phrase`);
  }
  return mnemonic;
}

/** Compared through digests so the time taken says nothing about where two phrases differ. */
function sameMnemonic(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(normalizeMnemonic(s)).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function readMasterKey(path: string): Buffer | undefined {
  if (!existsSync(path)) return undefined;
  tightenMode(path);
  const key = readFileSync(path);
  return key.length === MASTER_KEY_LENGTH ? key : undefined;
}

function createMasterKey(path: string): Buffer {
  // A leftover damaged file would block the exclusive create; it protects nothing yet (no identity.enc).
  rmSync(path, { force: true });
  const key = randomBytes(MASTER_KEY_LENGTH);
  if (createFileExclusive(path, key)) return key;
  const winner = readMasterKey(path);
  if (winner === undefined) throw new IdentityError('master-key-unusable', `${MASTER_KEY_FILE} could not be created`);
  return winner;
}

/** Older or hand-made data directories may have looser modes; secrets files are owner-only. */
function tightenMode(path: string): void {
  if (process.platform === 'win32') return;
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Writes a complete file under `path` only if none exists; returns false if one does.
 *
 * Content goes to a temporary file that is fsynced first, so a crash never leaves a half-written
 * secret under the real name. It is then hard-linked into place, which (unlike rename) fails instead of
 * replacing a file another process created meanwhile: an identity must never be silently swapped.
 * File systems without hard links fall back to an existence check and rename.
 */
function createFileExclusive(path: string, data: string | Buffer): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE); // the umask could have narrowed it further; make it exact
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    try {
      linkSync(tmp, path);
    } catch (err) {
      if (errorCode(err) === 'EEXIST') return false;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(errorCode(err) ?? '')) throw err;
      if (existsSync(path)) return false;
      renameSync(tmp, path);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  fsyncDirectory(dirname(path));
  return true;
}

/** Makes the new directory entry itself durable; not possible on every platform, hence best effort. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows and some network file systems cannot fsync a directory.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}
