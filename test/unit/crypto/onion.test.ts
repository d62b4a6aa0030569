import { describe, expect, it } from 'vitest';
import { onionAddress, torHiddenServiceFiles } from '../../../kernel/crypto/onion.js';
import { RFC8032_TEST1, TOR_EXPANDED_KEY_OF_RFC8032_TEST1, TOR_ONION_OF_RFC8032_TEST1 } from './vectors.js';

describe('onion', () => {
  it("builds Tor's own test vector address", () => {
    expect(onionAddress(Buffer.from(RFC8032_TEST1.publicKey, 'hex'))).toBe(TOR_ONION_OF_RFC8032_TEST1);
  });

  it('addresses are 56 lower-case base32 characters plus .onion', () => {
    const addr = onionAddress(Buffer.alloc(32, 0xab));
    expect(addr).toMatch(/^[a-z2-7]{56}\.onion$/);
    expect(addr.length).toBe(62);
  });

  it('writes the hidden service files Tor expects for a known seed', () => {
    const files = torHiddenServiceFiles(Buffer.from(RFC8032_TEST1.seed, 'hex'));
    expect(files.secretKey).toHaveLength(96);
    expect(files.secretKey.subarray(0, 32).toString('latin1')).toBe('== ed25519v1-secret: type0 ==\0\0\0');
    expect(files.secretKey.subarray(32).toString('base64')).toBe(TOR_EXPANDED_KEY_OF_RFC8032_TEST1);
    expect(files.publicKey).toHaveLength(64);
    expect(files.publicKey.subarray(0, 32).toString('latin1')).toBe('== ed25519v1-public: type0 ==\0\0\0');
    expect(files.publicKey.subarray(32).toString('hex')).toBe(RFC8032_TEST1.publicKey);
    expect(files.hostname).toBe(`${TOR_ONION_OF_RFC8032_TEST1}\n`);
  });

  it('refuses keys of the wrong size', () => {
    expect(() => onionAddress(new Uint8Array(31))).toThrow();
    expect(() => torHiddenServiceFiles(new Uint8Array(64))).toThrow();
  });
});
