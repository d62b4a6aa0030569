/**
 * New keys come from random bytes, never from Node's key generation (keys.ts, newPrivateKey): on Node 20 a finished
 * key-generation job destroyed by a garbage collection during an export of its key deadlocked a test process for good.
 */
import { diffieHellman, sign, verify } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newPrivateKey, rawPublicKey, x25519PublicFromRaw } from '../../../kernel/crypto/keys.js';

const ROOT = join(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return /\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('newPrivateKey', () => {
  it('makes working X25519 and Ed25519 keys, a new one each time', () => {
    const [a, b] = [newPrivateKey('x25519'), newPrivateKey('x25519')];
    expect(rawPublicKey(a).equals(rawPublicKey(b))).toBe(false);
    const ab = diffieHellman({ privateKey: a, publicKey: x25519PublicFromRaw(rawPublicKey(b)) });
    const ba = diffieHellman({ privateKey: b, publicKey: x25519PublicFromRaw(rawPublicKey(a)) });
    expect(ab.equals(ba)).toBe(true);
    const signer = newPrivateKey('ed25519');
    const message = Buffer.from('wallet-node');
    expect(verify(null, message, signer, sign(null, message, signer))).toBe(true);
  });

  it('is the only way the product makes a key: no generateKeyPair in its sources', () => {
    const offenders = ['kernel', 'sdk', 'builtin-plugins', 'app', 'client', 'plugins']
      .flatMap((dir) => sources(join(ROOT, dir)))
      // Code, not the comments that say why it is not used.
      .filter((file) => readFileSync(file, 'utf8').split('\n').some((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && /\bgenerateKeyPair/.test(line)));
    expect(offenders).toEqual([]);
  });
});
