import { mnemonicToSeedSync } from '@scure/bip39';
import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateMnemonic,
  isValidMnemonic,
  mnemonicToSeed,
  normalizeMnemonic,
} from '../../../kernel/crypto/mnemonic.js';
import { CryptoError } from '../../../kernel/crypto/errors.js';
import { ABANDON_ART, ABANDON_ART_SEED_EMPTY_PASSPHRASE, ABANDON_ART_SEED_TREZOR } from './vectors.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('mnemonic', () => {
  it('derives the known BIP39 seed of the all-zero-entropy 24-word phrase (empty passphrase)', () => {
    expect(hex(mnemonicToSeed(ABANDON_ART))).toBe(ABANDON_ART_SEED_EMPTY_PASSPHRASE);
  });

  it('uses the construction of the official BIP39 vector file (same PBKDF2 with passphrase "TREZOR")', () => {
    // mnemonicToSeed has no passphrase by design; this pins that its formula is the standard one.
    const seed = pbkdf2Sync(ABANDON_ART.normalize('NFKD'), 'mnemonicTREZOR', 2048, 64, 'sha512');
    expect(hex(seed)).toBe(ABANDON_ART_SEED_TREZOR);
  });

  it('agrees with @scure/bip39 seeds on random phrases', () => {
    for (let i = 0; i < 5; i++) {
      const m = generateMnemonic();
      expect(hex(mnemonicToSeed(m))).toBe(hex(mnemonicToSeedSync(m, '')));
    }
  });

  it('generates 24 valid, distinct English words', () => {
    const a = generateMnemonic();
    const b = generateMnemonic();
    expect(a.split(' ')).toHaveLength(24);
    expect(isValidMnemonic(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('normalises case and whitespace, and the normalised phrase gives the same seed', () => {
    const messy = `  ${ABANDON_ART.toUpperCase().split(' ').join(' \n\t ')}  `;
    expect(normalizeMnemonic(messy)).toBe(ABANDON_ART);
    expect(isValidMnemonic(messy)).toBe(true);
    expect(hex(mnemonicToSeed(messy))).toBe(ABANDON_ART_SEED_EMPTY_PASSPHRASE);
  });

  it('rejects wrong word counts, bad checksums and unknown words', () => {
    expect(isValidMnemonic(`${'abandon '.repeat(11)}about`)).toBe(false); // valid 12-word phrase
    expect(isValidMnemonic('abandon '.repeat(24).trim())).toBe(false); // checksum
    expect(isValidMnemonic(`${'abandon '.repeat(23)}notaword`)).toBe(false);
    expect(isValidMnemonic(`${ABANDON_ART} art`)).toBe(false);
    expect(isValidMnemonic('')).toBe(false);
  });

  it('refuses to derive a seed from an invalid phrase without repeating it', () => {
    const bad = `${'zoo '.repeat(23)}secretword`;
    let caught: unknown;
    try {
      mnemonicToSeed(bad);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CryptoError);
    expect((caught as CryptoError).reason).toBe('malformed');
    expect((caught as CryptoError).message).not.toContain('zoo');
    expect((caught as CryptoError).message).not.toContain('secretword');
  });
});
