import { describe, expect, it } from 'vitest';
import { privateKeyFromSeed } from '../../../kernel/crypto/keys.js';
import { ed25519, nodeEd25519, sign, sodiumEd25519, verify } from '../../../kernel/crypto/sign.js';
import { RFC8032_TEST1 } from './vectors.js';

const key = privateKeyFromSeed('ed25519', Buffer.from(RFC8032_TEST1.seed, 'hex'));
const pub = Buffer.from(RFC8032_TEST1.publicKey, 'hex');

describe('sign / verify', () => {
  it('uses libsodium where sodium-native ships a binary (a failed install would quietly halve the speed)', () => {
    if (['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'].includes(`${process.platform}-${process.arch}`)) {
      expect(ed25519().name).toBe('libsodium');
    }
  });

  it('produces the RFC 8032 TEST 1 signature', () => {
    expect(sign(key, new Uint8Array(0)).toString('hex')).toBe(RFC8032_TEST1.signature);
    expect(verify(pub, new Uint8Array(0), Buffer.from(RFC8032_TEST1.signature, 'hex'))).toBe(true);
  });

  it('round-trips and rejects any altered byte', () => {
    const data = Buffer.from('header and body digest');
    const sig = sign(key, data);
    expect(verify(pub, data, sig)).toBe(true);
    for (const i of [0, 31, 63]) {
      const bad = Buffer.from(sig);
      bad[i] = (bad[i] ?? 0) ^ 1;
      expect(verify(pub, data, bad)).toBe(false);
    }
    expect(verify(pub, Buffer.from('header and body digesT'), sig)).toBe(false);
    const otherPub = Buffer.from(pub);
    otherPub[0] = (otherPub[0] ?? 0) ^ 1;
    expect(verify(otherPub, data, sig)).toBe(false);
  });

  it('returns false, never throws, on garbage', () => {
    const data = Buffer.from('x');
    const sig = sign(key, data);
    const garbage: Array<[unknown, unknown, unknown]> = [
      [new Uint8Array(0), data, sig],
      [new Uint8Array(31), data, sig],
      [new Uint8Array(32), data, sig],
      [Buffer.alloc(32, 0xff), data, sig],
      [pub, data, new Uint8Array(0)],
      [pub, data, new Uint8Array(65)],
      [pub, data, Buffer.alloc(64, 0xff)],
      ['not bytes', data, sig],
      [pub, 'not bytes', sig],
      [pub, data, 'not bytes'],
      [null, null, null],
      [undefined, undefined, undefined],
      [{ length: 32 }, data, sig],
    ];
    for (const [p, d, s] of garbage) {
      expect(verify(p as Uint8Array, d as Uint8Array, s as Uint8Array)).toBe(false);
    }
  });
});

describe('the two implementations', () => {
  const sodium = sodiumEd25519();
  const both = [nodeEd25519, ...(sodium ? [sodium] : [])];

  it('sign the RFC 8032 TEST 1 vector alike and verify each other', () => {
    expect(both.map((impl) => impl.name)).toContain('node:crypto');
    const data = Buffer.from('a chain entry');
    for (const signer of both) {
      expect(signer.sign(key, new Uint8Array(0)).toString('hex')).toBe(RFC8032_TEST1.signature);
      const sig = signer.sign(key, data);
      for (const checker of both) {
        expect(checker.verify(pub, data, sig)).toBe(true);
        expect(checker.verify(pub, Buffer.from('a chain entrY'), sig)).toBe(false);
      }
    }
  });

  it('both refuse to sign with a key that is not an Ed25519 private key', () => {
    const x25519 = privateKeyFromSeed('x25519', Buffer.from(RFC8032_TEST1.seed, 'hex'));
    for (const impl of both) expect(() => impl.sign(x25519, Buffer.from('x'))).toThrow();
  });

  it('libsodium refuses a key of small order that OpenSSL takes (any message "verifies" under it there)', () => {
    if (!sodium) return;
    // The neutral point as the key, and as R with S = 0: [S]B = R + [k]A holds for every message.
    const neutral = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]);
    const forged = Buffer.concat([neutral, Buffer.alloc(32)]);
    expect(nodeEd25519.verify(neutral, Buffer.from('anything'), forged)).toBe(true);
    expect(sodium.verify(neutral, Buffer.from('anything'), forged)).toBe(false);
  });
});
