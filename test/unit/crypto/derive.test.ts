import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deriveNodeKeys,
  deriveSubkey,
  ed25519PublicFromRaw,
  pubkeyHash,
  rawPublicKey,
  x25519PublicFromRaw,
} from '../../../kernel/crypto/derive.js';
import { mnemonicToSeed, generateMnemonic } from '../../../kernel/crypto/mnemonic.js';
import { onionAddress } from '../../../kernel/crypto/onion.js';
import { privateKeyFromSeed } from '../../../kernel/crypto/keys.js';
import { diffieHellman } from 'node:crypto';
import { ABANDON_ART, ABANDON_ART_IDENTITY, RFC7748, RFC8032_TEST1 } from './vectors.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('key derivation', () => {
  it('matches the independently computed golden identity of the all-zero-entropy phrase', () => {
    const keys = deriveNodeKeys(mnemonicToSeed(ABANDON_ART));
    expect(hex(keys.signing.publicRaw)).toBe(ABANDON_ART_IDENTITY.publicKey);
    expect(pubkeyHash(keys.signing.publicRaw)).toBe(ABANDON_ART_IDENTITY.pubkeyHash);
    expect(hex(keys.sealing.publicRaw)).toBe(ABANDON_ART_IDENTITY.sealingPublicKey);
    expect(onionAddress(keys.onion.publicRaw)).toBe(ABANDON_ART_IDENTITY.onionAddress);
    expect(keys.authCode).toBe(ABANDON_ART_IDENTITY.authCode);
    expect(hex(keys.storageKey)).toBe(ABANDON_ART_IDENTITY.storageKey);
    expect(hex(deriveSubkey(keys.storageKey, 'api-secrets'))).toBe(ABANDON_ART_IDENTITY.subkeyApiSecrets);
  });

  it('is deterministic and gives every purpose its own key', () => {
    const seed = mnemonicToSeed(generateMnemonic());
    const a = deriveNodeKeys(seed);
    const b = deriveNodeKeys(seed);
    expect(hex(a.signing.publicRaw)).toBe(hex(b.signing.publicRaw));
    expect(a.authCode).toBe(b.authCode);
    const outputs = [a.signing.publicRaw, a.sealing.publicRaw, a.onion.seed, a.onion.publicRaw, a.storageKey].map(hex);
    expect(new Set(outputs).size).toBe(outputs.length);
    expect(a.authCode).toMatch(/^[0-9a-f]{20}$/);
    expect(a.storageKey).toHaveLength(32);
    expect(a.signing.privateKey.asymmetricKeyType).toBe('ed25519');
    expect(a.sealing.privateKey.asymmetricKeyType).toBe('x25519');
    expect(a.signing.privateKey.type).toBe('private');
  });

  it('refuses seeds that are obviously not seeds', () => {
    expect(() => deriveNodeKeys(new Uint8Array(16))).toThrow(/at least 32 bytes/);
  });

  it('pubkeyHash is the hex SHA-256 of the raw key', () => {
    const raw = Buffer.from(RFC8032_TEST1.publicKey, 'hex');
    expect(pubkeyHash(raw)).toBe(createHash('sha256').update(raw).digest('hex'));
    expect(() => pubkeyHash(new Uint8Array(31))).toThrow();
  });

  it('subkeys differ per label and refuse bad input', () => {
    const key = Buffer.alloc(32, 7);
    expect(hex(deriveSubkey(key, 'a'))).not.toBe(hex(deriveSubkey(key, 'b')));
    expect(hex(deriveSubkey(key, 'a'))).toBe(hex(deriveSubkey(key, 'a')));
    expect(() => deriveSubkey(key, '')).toThrow();
    expect(() => deriveSubkey(Buffer.alloc(16), 'a')).toThrow();
  });

  it('raw key helpers reproduce RFC 8032 and RFC 7748 keys', () => {
    const ed = privateKeyFromSeed('ed25519', Buffer.from(RFC8032_TEST1.seed, 'hex'));
    expect(hex(rawPublicKey(ed))).toBe(RFC8032_TEST1.publicKey);
    const edPub = ed25519PublicFromRaw(Buffer.from(RFC8032_TEST1.publicKey, 'hex'));
    expect(hex(rawPublicKey(edPub))).toBe(RFC8032_TEST1.publicKey);

    const alice = privateKeyFromSeed('x25519', Buffer.from(RFC7748.alicePrivate, 'hex'));
    expect(hex(rawPublicKey(alice))).toBe(RFC7748.alicePublic);
    const bob = x25519PublicFromRaw(Buffer.from(RFC7748.bobPublic, 'hex'));
    expect(hex(diffieHellman({ privateKey: alice, publicKey: bob }))).toBe(RFC7748.shared);
  });

  it('raw key helpers refuse wrong sizes', () => {
    expect(() => ed25519PublicFromRaw(new Uint8Array(31))).toThrow();
    expect(() => x25519PublicFromRaw(new Uint8Array(33))).toThrow();
  });
});
