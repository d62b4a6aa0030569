import type { KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CryptoError } from '../../../kernel/crypto/errors.js';
import { newPrivateKey, rawPublicKey } from '../../../kernel/crypto/keys.js';
import { open, OpenedSessions, openReply, openSession, seal, SealingSessions, sealReply, sealSession, SESSION_LIFETIME_MS, type Sealed } from '../../../kernel/crypto/seal.js';

function recipient(): { privateKey: KeyObject; raw: Buffer } {
  const privateKey = newPrivateKey('x25519');
  return { privateKey, raw: rawPublicKey(privateKey) };
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof CryptoError) return err.reason;
    return `not a CryptoError: ${String(err)}`;
  }
  return 'did not throw';
}

/** Flips one bit of the decoded field and re-encodes it canonically. */
function flip(field: string, index: number): string {
  const bytes = Buffer.from(field, 'base64url');
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

const r = recipient();
const aad = 'v1|sender|recipient|1700000000|nonce';

describe('seal / open', () => {
  it('round-trips text and bytes, including empty plaintext', () => {
    const sealed = seal(r.raw, '{"type":"ping"}', aad);
    expect(open(r.privateKey, r.raw, sealed, aad).toString('utf8')).toBe('{"type":"ping"}');
    const bytes = Buffer.from([0, 1, 2, 255]);
    expect(open(r.privateKey, r.raw, seal(r.raw, bytes, Buffer.from(aad)), aad)).toEqual(bytes);
    expect(open(r.privateKey, r.raw, seal(r.raw, '', aad), aad)).toHaveLength(0);
  });

  it('has the documented shape: base64url fields, 32-byte epk, 12-byte iv, tag appended', () => {
    const sealed = seal(r.raw, 'hello', aad);
    expect(Object.keys(sealed).sort()).toEqual(['ct', 'epk', 'iv']);
    for (const v of Object.values(sealed)) expect(v).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(sealed.epk, 'base64url')).toHaveLength(32);
    expect(Buffer.from(sealed.iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(sealed.ct, 'base64url')).toHaveLength(5 + 16);
  });

  it('uses a fresh ephemeral key and IV every time', () => {
    const a = seal(r.raw, 'same', aad);
    const b = seal(r.raw, 'same', aad);
    expect(a.epk).not.toBe(b.epk);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ct).not.toBe(b.ct);
  });

  it('fails on any tampered epk, iv or ct byte', () => {
    const sealed = seal(r.raw, 'a body worth protecting', aad);
    for (const field of ['epk', 'iv', 'ct'] as const) {
      const length = Buffer.from(sealed[field], 'base64url').length;
      for (const i of new Set([0, Math.floor(length / 2), length - 1])) {
        const tampered: Sealed = { ...sealed, [field]: flip(sealed[field], i) };
        expect(reasonOf(() => open(r.privateKey, r.raw, tampered, aad))).toBe('auth-failed');
      }
    }
  });

  it('fails when only the bit X25519 ignores is flipped in epk (the KDF binds the exact bytes)', () => {
    const sealed = seal(r.raw, 'body', aad);
    const epk = Buffer.from(sealed.epk, 'base64url');
    epk[31] = (epk[31] ?? 0) ^ 0x80;
    const tampered = { ...sealed, epk: epk.toString('base64url') };
    expect(reasonOf(() => open(r.privateKey, r.raw, tampered, aad))).toBe('auth-failed');
  });

  it('fails on a different AAD (a body moved under another header)', () => {
    const sealed = seal(r.raw, 'body', aad);
    expect(reasonOf(() => open(r.privateKey, r.raw, sealed, `${aad}x`))).toBe('auth-failed');
    expect(reasonOf(() => open(r.privateKey, r.raw, sealed, ''))).toBe('auth-failed');
  });

  it('fails for the wrong recipient, and when the recipient key passed does not match', () => {
    const sealed = seal(r.raw, 'body', aad);
    const other = recipient();
    expect(reasonOf(() => open(other.privateKey, other.raw, sealed, aad))).toBe('auth-failed');
    // Right private key but a different public key in the KDF salt: still refused.
    expect(reasonOf(() => open(r.privateKey, other.raw, sealed, aad))).toBe('auth-failed');
  });

  it('rejects malformed sealed objects with a CryptoError', () => {
    const good = seal(r.raw, 'body', aad);
    const cases: unknown[] = [
      null,
      'string',
      {},
      { ...good, epk: undefined },
      { ...good, iv: 42 },
      { ...good, epk: good.epk.slice(0, -2) },
      { ...good, iv: `${good.iv}AA` },
      { ...good, ct: 'AAAA' }, // shorter than the tag
      { ...good, ct: `${good.ct}!` }, // not base64url
      { ...good, iv: `${good.iv}=` }, // padding is not canonical base64url
      { ...good, epk: `+${good.epk.slice(1)}` }, // standard base64 alphabet, not base64url
    ];
    for (const c of cases) {
      expect(['malformed', 'auth-failed']).toContain(reasonOf(() => open(r.privateKey, r.raw, c as Sealed, aad)));
    }
    expect(reasonOf(() => open(r.privateKey, r.raw, { ...good, iv: `${good.iv}AA` }, aad))).toBe('malformed');
  });

  it('refuses a small-order ephemeral key (all-zero point)', () => {
    const good = seal(r.raw, 'body', aad);
    const zero = Buffer.alloc(32).toString('base64url');
    expect(reasonOf(() => open(r.privateKey, r.raw, { ...good, epk: zero }, aad))).toBe('auth-failed');
  });

  it('refuses to seal to a public key of the wrong size', () => {
    expect(reasonOf(() => seal(new Uint8Array(31), 'x', aad))).toBe('bad-key');
  });
});

describe('replies sealed under the key derived from the request', () => {
  it('both sides derive the same reply key, and only they can open the reply', () => {
    const r = recipient();
    const { sealed, replyKey: senderKey } = sealSession(r.raw, 'request', 'hdr');
    const { plaintext, replyKey: recipientKey } = openSession(r.privateKey, r.raw, sealed, 'hdr');
    expect(plaintext.toString()).toBe('request');
    expect(recipientKey.equals(senderKey)).toBe(true);
    const reply = sealReply(recipientKey, 'answer', 'reply-hdr');
    expect(openReply(senderKey, reply, 'reply-hdr').toString()).toBe('answer');
    const other = sealSession(r.raw, 'request', 'hdr');
    expect(reasonOf(() => openReply(other.replyKey, reply, 'reply-hdr'))).toBe('auth-failed');
  });

  it('fails on a tampered reply or another header', () => {
    const r = recipient();
    const { replyKey } = sealSession(r.raw, 'request', 'hdr');
    const reply = sealReply(replyKey, 'answer', 'reply-hdr');
    const flipped = reply.ct.startsWith('A') ? 'B' + reply.ct.slice(1) : 'A' + reply.ct.slice(1);
    expect(reasonOf(() => openReply(replyKey, { ...reply, ct: flipped }, 'reply-hdr'))).toBe('auth-failed');
    expect(reasonOf(() => openReply(replyKey, reply, 'another-hdr'))).toBe('auth-failed');
    expect(reasonOf(() => openReply(replyKey, { iv: 'short', ct: reply.ct }, 'reply-hdr'))).toBe('malformed');
  });
});

describe('sealing sessions (the peer hot path)', () => {
  it('reuses one ephemeral key per recipient within the window, with a fresh IV every message', () => {
    const r = recipient();
    const other = recipient();
    const sessions = new SealingSessions();
    const t0 = 1_700_000_000_000;
    const a = sessions.seal(r.raw, 'one', 'h1', t0);
    const b = sessions.seal(r.raw, 'two', 'h2', t0 + SESSION_LIFETIME_MS - 1);
    const c = sessions.seal(other.raw, 'three', 'h3', t0);
    expect(b.sealed.epk).toBe(a.sealed.epk);
    expect(b.sealed.iv).not.toBe(a.sealed.iv);
    expect(b.replyKey.equals(a.replyKey)).toBe(true);
    expect(c.sealed.epk).not.toBe(a.sealed.epk);
    const later = sessions.seal(r.raw, 'four', 'h4', t0 + SESSION_LIFETIME_MS);
    expect(later.sealed.epk).not.toBe(a.sealed.epk);
    expect(later.replyKey.equals(a.replyKey)).toBe(false);
    // Each opens on its own, under its own header only.
    expect(open(r.privateKey, r.raw, b.sealed, 'h2').toString()).toBe('two');
    expect(reasonOf(() => open(r.privateKey, r.raw, b.sealed, 'h1'))).toBe('auth-failed');
    expect(open(other.privateKey, other.raw, c.sealed, 'h3').toString()).toBe('three');
  });

  it('the recipient memo gives the same keys as a fresh derivation and still refuses tampering', () => {
    const r = recipient();
    const sessions = new SealingSessions();
    const memo = new OpenedSessions();
    const first = sessions.seal(r.raw, 'first', 'h1');
    const second = sessions.seal(r.raw, 'second', 'h2');
    const opened1 = openSession(r.privateKey, r.raw, first.sealed, 'h1', memo);
    const opened2 = openSession(r.privateKey, r.raw, second.sealed, 'h2', memo);
    expect(opened1.plaintext.toString()).toBe('first');
    expect(opened2.plaintext.toString()).toBe('second');
    expect(opened2.replyKey.equals(first.replyKey)).toBe(true);
    expect(opened2.replyKey.equals(openSession(r.privateKey, r.raw, second.sealed, 'h2').replyKey)).toBe(true);
    // A flipped epk is another memo entry with another key: it does not open.
    const epk = Buffer.from(second.sealed.epk, 'base64url');
    epk[31] = (epk[31] ?? 0) ^ 0x80;
    const moved = { ...second.sealed, epk: epk.toString('base64url') };
    expect(reasonOf(() => openSession(r.privateKey, r.raw, moved, 'h2', memo))).toBe('auth-failed');
    expect(reasonOf(() => openSession(r.privateKey, r.raw, { ...second.sealed, ct: flip(second.sealed.ct, 0) }, 'h2', memo))).toBe('auth-failed');
  });
});
