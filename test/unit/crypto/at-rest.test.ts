import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptAtRest, encryptAtRest } from '../../../kernel/crypto/at-rest.js';
import { CryptoError } from '../../../kernel/crypto/errors.js';

const key = randomBytes(32);

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof CryptoError ? err.reason : `not a CryptoError: ${String(err)}`;
  }
  return 'did not throw';
}

describe('at-rest encryption', () => {
  it('round-trips text and bytes in a compact versioned blob', () => {
    const blob = encryptAtRest(key, 'secret text', 'api-key:7');
    expect(blob).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(blob).not.toContain('secret');
    expect(decryptAtRest(key, blob, 'api-key:7').toString('utf8')).toBe('secret text');
    const bytes = randomBytes(100);
    expect(decryptAtRest(key, encryptAtRest(key, bytes, 'x'), 'x')).toEqual(bytes);
    expect(decryptAtRest(key, encryptAtRest(key, '', 'x'), 'x')).toHaveLength(0);
  });

  it('never produces the same blob twice', () => {
    expect(encryptAtRest(key, 'same', 'x')).not.toBe(encryptAtRest(key, 'same', 'x'));
  });

  it('fails on wrong key or wrong AAD', () => {
    const blob = encryptAtRest(key, 'secret', 'identity');
    expect(reasonOf(() => decryptAtRest(randomBytes(32), blob, 'identity'))).toBe('auth-failed');
    expect(reasonOf(() => decryptAtRest(key, blob, 'identity2'))).toBe('auth-failed');
  });

  it('fails on any tampered IV or ciphertext byte', () => {
    const blob = encryptAtRest(key, 'secret value', 'x');
    const [v, ivText, ctText] = blob.split('.') as [string, string, string];
    for (const which of ['iv', 'ct'] as const) {
      const bytes = Buffer.from(which === 'iv' ? ivText : ctText, 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        const copy = Buffer.from(bytes);
        copy[i] = (copy[i] ?? 0) ^ 0x80;
        const tampered = which === 'iv' ? `${v}.${copy.toString('base64url')}.${ctText}` : `${v}.${ivText}.${copy.toString('base64url')}`;
        expect(reasonOf(() => decryptAtRest(key, tampered, 'x'))).toBe('auth-failed');
      }
    }
  });

  it('rejects malformed blobs', () => {
    const blob = encryptAtRest(key, 'secret', 'x');
    for (const bad of ['', 'v1', 'v2' + blob.slice(2), blob.replace('.', '..'), `${blob}.extra`, `${blob}!`, 'v1.AAAA.AAAA']) {
      expect(reasonOf(() => decryptAtRest(key, bad, 'x'))).toBe('malformed');
    }
    // Well-formed but one byte short: only authentication can notice.
    const [v, iv, ct] = blob.split('.') as [string, string, string];
    const shorter = Buffer.from(ct, 'base64url').subarray(0, -1).toString('base64url');
    expect(reasonOf(() => decryptAtRest(key, `${v}.${iv}.${shorter}`, 'x'))).toBe('auth-failed');
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(reasonOf(() => encryptAtRest(randomBytes(16), 'x', 'x'))).toBe('bad-key');
    expect(reasonOf(() => decryptAtRest(randomBytes(31), 'v1.a.b', 'x'))).toBe('bad-key');
  });
});
