import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { IDENTITY_FILE, MASTER_KEY_FILE } from '../../../kernel/data-files.js';
import { Identity, IdentityError, isFreshDataDir, loadOrCreateIdentity } from '../../../kernel/identity.js';
import { generateMnemonic, isValidMnemonic } from '../../../kernel/crypto/mnemonic.js';
import { CryptoError } from '../../../kernel/crypto/errors.js';
import { ABANDON_ART, ABANDON_ART_IDENTITY } from './vectors.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wn-identity-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

const posix = process.platform !== 'win32';

describe('identity', () => {
  it('creates a fresh identity once and reloads the same one', () => {
    const dir = tempDir();
    expect(isFreshDataDir(dir)).toBe(true);
    const first = loadOrCreateIdentity(dir);
    expect(isFreshDataDir(dir)).toBe(false);
    const again = loadOrCreateIdentity(dir);
    expect(again.pubkeyHash).toBe(first.pubkeyHash);
    expect(again.revealMnemonic()).toBe(first.revealMnemonic());
    expect(first.revealMnemonic().split(' ')).toHaveLength(24);
    expect(first.pubkeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.onionAddress).toMatch(/^[a-z2-7]{56}\.onion$/);
  });

  it('the same phrase in two data directories is the same node', () => {
    const m = generateMnemonic();
    const a = loadOrCreateIdentity(tempDir(), { restoreMnemonic: m });
    const b = loadOrCreateIdentity(tempDir(), { restoreMnemonic: `  ${m.toUpperCase()} ` });
    expect(b.pubkeyHash).toBe(a.pubkeyHash);
    expect(b.onionAddress).toBe(a.onionAddress);
    expect(b.authCode).toBe(a.authCode);
    expect(b.publicKey).toEqual(a.publicKey);
    expect(b.sealingPublicKey).toEqual(a.sealingPublicKey);
    expect(b.storageKey('api-secrets')).toEqual(a.storageKey('api-secrets'));
    const data = Buffer.from('signed by a, checked by b');
    expect(b.verify(a.publicKey, data, a.sign(data))).toBe(true);
    expect(a.verify(b.publicKey, data, b.sign(data))).toBe(true);
    // b can open what was sealed to a: they hold the same keys.
    expect(b.open(a.seal(a.sealingPublicKey, 'x', 'h'), 'h').toString()).toBe('x');
  });

  it('restores the golden identity of the all-zero-entropy phrase', () => {
    const id = loadOrCreateIdentity(tempDir(), { restoreMnemonic: ABANDON_ART });
    expect(id.pubkeyHash).toBe(ABANDON_ART_IDENTITY.pubkeyHash);
    expect(id.onionAddress).toBe(ABANDON_ART_IDENTITY.onionAddress);
    expect(id.authCode).toBe(ABANDON_ART_IDENTITY.authCode);
    expect(id.torHiddenServiceFiles().hostname).toBe(`${ABANDON_ART_IDENTITY.onionAddress}\n`);
  });

  it('different phrases are different nodes', () => {
    const a = loadOrCreateIdentity(tempDir());
    const b = loadOrCreateIdentity(tempDir());
    expect(a.pubkeyHash).not.toBe(b.pubkeyHash);
    expect(a.onionAddress).not.toBe(b.onionAddress);
    expect(a.authCode).not.toBe(b.authCode);
    expect(a.storageKey('x')).not.toEqual(b.storageKey('x'));
    const data = Buffer.from('d');
    expect(b.verify(b.publicKey, data, a.sign(data))).toBe(false);
  });

  it('seals between two nodes; a third cannot open', () => {
    const a = loadOrCreateIdentity(tempDir());
    const b = loadOrCreateIdentity(tempDir());
    const c = loadOrCreateIdentity(tempDir());
    const sealed = a.seal(b.sealingPublicKey, 'for b only', 'header');
    expect(b.open(sealed, 'header').toString()).toBe('for b only');
    expect(thrown(() => c.open(sealed, 'header'))).toBeInstanceOf(CryptoError);
  });

  it('accepts the same restore phrase again, refuses a different one without echoing it', () => {
    const dir = tempDir();
    const m = generateMnemonic();
    const id = loadOrCreateIdentity(dir, { restoreMnemonic: m });
    expect(loadOrCreateIdentity(dir, { restoreMnemonic: m }).pubkeyHash).toBe(id.pubkeyHash);

    // Words that cannot occur in an English sentence by accident (BIP39 has words like "replace").
    const other = `${'zoo '.repeat(23)}vote`;
    expect(isValidMnemonic(other)).toBe(true);
    const err = thrown(() => loadOrCreateIdentity(dir, { restoreMnemonic: other }));
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).code).toBe('restore-mismatch');
    const text = `${(err as Error).message} ${(err as Error).stack ?? ''} ${inspect(err)}`;
    expect(text).not.toMatch(/\bzoo\b|\bvote\b/);
    // Nor the stored phrase: no two of its consecutive words appear.
    const stored = m.split(' ');
    for (let i = 0; i + 1 < stored.length; i++) expect(text).not.toContain(`${stored[i]} ${stored[i + 1]}`);
    // The stored identity is untouched.
    expect(loadOrCreateIdentity(dir).pubkeyHash).toBe(id.pubkeyHash);
  });

  it('refuses an invalid restore phrase, says so, and does not echo it', () => {
    const dir = tempDir();
    const bad = `${'abandon '.repeat(23)}zebra`; // valid words, wrong checksum
    const err = thrown(() => loadOrCreateIdentity(dir, { restoreMnemonic: bad }));
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).code).toBe('restore-invalid');
    expect((err as Error).message).toMatch(/RESTORE mnemonic is invalid/);
    expect((err as Error).message).not.toMatch(/abandon|zebra/);
    expect(isFreshDataDir(dir)).toBe(true);
    expect(thrown(() => loadOrCreateIdentity(dir, { restoreMnemonic: 'abandon '.repeat(12) }))).toBeInstanceOf(
      IdentityError,
    );
  });

  it.runIf(posix)('writes both files with mode 600', () => {
    const dir = tempDir();
    loadOrCreateIdentity(dir);
    expect(statSync(join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, IDENTITY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, MASTER_KEY_FILE)).size).toBe(32);
  });

  it.runIf(posix)('tightens loose modes on existing files', () => {
    const dir = tempDir();
    loadOrCreateIdentity(dir);
    chmodSync(join(dir, IDENTITY_FILE), 0o644);
    chmodSync(join(dir, MASTER_KEY_FILE), 0o644);
    loadOrCreateIdentity(dir);
    expect(statSync(join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, IDENTITY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('identity.enc holds no readable phrase and leaves no temp files behind', () => {
    const dir = tempDir();
    const id = loadOrCreateIdentity(dir, { restoreMnemonic: ABANDON_ART });
    const enc = readFileSync(join(dir, IDENTITY_FILE), 'utf8');
    expect(enc).toMatch(/^v1\./);
    expect(enc).not.toContain('abandon');
    expect(enc).not.toContain(id.revealMnemonic());
    const raw = readFileSync(join(dir, IDENTITY_FILE));
    expect(raw.includes(Buffer.from('abandon'))).toBe(false);
    expect(readFileSync(join(dir, MASTER_KEY_FILE)).includes(Buffer.from('abandon'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([IDENTITY_FILE, MASTER_KEY_FILE].sort());
  });

  it('does not leak the phrase through JSON, inspect, spread or String()', () => {
    const id = loadOrCreateIdentity(tempDir(), { restoreMnemonic: ABANDON_ART });
    const views = [
      JSON.stringify(id),
      JSON.stringify({ nested: { id } }),
      inspect(id, { depth: 10, showHidden: true }),
      inspect({ id }, { depth: 10, showHidden: true }),
      JSON.stringify({ ...id }),
      String(id),
      `${Object.keys(id).join(',')}`,
    ];
    for (const view of views) {
      expect(view).not.toContain('abandon');
      expect(view).not.toContain(ABANDON_ART_IDENTITY.authCode);
    }
    expect(JSON.parse(JSON.stringify(id))).toEqual({
      pubkeyHash: ABANDON_ART_IDENTITY.pubkeyHash,
      onionAddress: ABANDON_ART_IDENTITY.onionAddress,
    });
    expect(inspect(id)).toContain(ABANDON_ART_IDENTITY.pubkeyHash);
  });

  it('public key getters hand out copies', () => {
    const id = Identity.fromMnemonic(ABANDON_ART);
    const pk = id.publicKey;
    pk.fill(0);
    expect(id.publicKey.toString('hex')).toBe(ABANDON_ART_IDENTITY.publicKey);
  });

  it('explains a missing master.key instead of creating a new identity', () => {
    const dir = tempDir();
    loadOrCreateIdentity(dir);
    unlinkSync(join(dir, MASTER_KEY_FILE));
    const err = thrown(() => loadOrCreateIdentity(dir));
    expect((err as IdentityError).code).toBe('master-key-unusable');
    expect(existsSync(join(dir, MASTER_KEY_FILE))).toBe(false);
  });

  it('refuses an identity.enc that does not belong to this master.key', () => {
    const a = tempDir();
    const b = tempDir();
    loadOrCreateIdentity(a);
    loadOrCreateIdentity(b);
    writeFileSync(join(a, IDENTITY_FILE), readFileSync(join(b, IDENTITY_FILE)));
    const err = thrown(() => loadOrCreateIdentity(a));
    expect((err as IdentityError).code).toBe('identity-unreadable');
  });

  it('reuses a master.key left by an interrupted first start', () => {
    const dir = tempDir();
    loadOrCreateIdentity(dir);
    const key = readFileSync(join(dir, MASTER_KEY_FILE));
    unlinkSync(join(dir, IDENTITY_FILE));
    loadOrCreateIdentity(dir);
    expect(readFileSync(join(dir, MASTER_KEY_FILE))).toEqual(key);
  });
});
