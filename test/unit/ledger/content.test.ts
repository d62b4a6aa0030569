import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildContent,
  canonicalJson,
  ContentError,
  deriveTxid,
  newSalt,
  nowMicros,
  parseContent,
  signedBytes,
} from '../../../builtin-plugins/ledger/content.js';
import { newPrivateKey } from '../../../kernel/crypto/keys.js';
import { MAX_AMOUNT } from '../../../kernel/money.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function content(overrides: Record<string, unknown> = {}) {
  const time = 1_700_000_000_000_123;
  const salt = '0123456789abcdef0123456789abcdef';
  const txid = deriveTxid({ from: A, to: B, amount: 150000000n, currency: 'USD', time, salt });
  return buildContent({ txid, prev: null, from: A, to: B, amount: '150000000', currency: 'USD', time, salt, memo: 'standard', ...overrides });
}

describe('ledger content', () => {
  it('canonical JSON sorts keys at every level and leaves undefined out', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: undefined }, e: 'x' })).toBe('{"a":{"d":[2,{"y":null,"z":1}]},"b":1,"e":"x"}');
  });

  it('txid depends on every identity field, and not on prev or description', () => {
    const base = { from: A, to: B, amount: 1n, currency: 'USD', time: 1, salt: '00'.repeat(16) };
    const id = deriveTxid(base);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    for (const change of [{ from: B }, { to: A }, { amount: 2n }, { currency: 'usd' }, { time: 2 }, { salt: '11'.repeat(16) }]) {
      expect(deriveTxid({ ...base, ...change })).not.toBe(id);
    }
    const c1 = parseContent(content({ prev: null }));
    const c2 = parseContent(content({ prev: 'c'.repeat(64), description: 'lunch' }));
    expect(c1.txid).toBe(c2.txid);
  });

  it('builds canonical content that parses back, with optional fields only when set', () => {
    const text = content({ description: 'lunch', expires: 1_700_000_100_000 });
    expect(text.startsWith('{"amount":"150000000","currency":"USD","description":"lunch","expires":1700000100000,"from":')).toBe(true);
    const parsed = parseContent(text);
    expect(parsed.amountMinor).toBe(150000000n);
    expect(parsed.description).toBe('lunch');
    expect(content({ description: '' })).not.toContain('description');
    expect(content()).not.toContain('expires');
  });

  it('a clearing leg says so in its signed content; no other transaction may, and no other kind exists', () => {
    const preimage = 'c'.repeat(64);
    const condition = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
    const routed = { memo: 'd'.repeat(64), condition, fulfillment: preimage };
    expect(parseContent(content({ ...routed, kind: 'clearing' })).kind).toBe('clearing');
    expect(parseContent(content(routed)).kind).toBeUndefined();
    expect(() => parseContent(content({ kind: 'clearing' }))).toThrow(ContentError);
    expect(() => parseContent(content({ ...routed, kind: 'gift' }))).toThrow(ContentError);
  });

  it.each([
    ['not JSON', 'nope'],
    ['not canonical (spaces)', () => content().replace(',', ', ')],
    ['a changed amount (txid no longer matches)', () => content().replace('"150000000"', '"150000001"')],
    ['zero amount', () => content({ amount: '0' })],
    ['leading zero', () => content({ amount: '0150000000' })],
    ['above the maximum', () => content({ amount: (MAX_AMOUNT + 1n).toString() })],
    ['an unknown field', () => content({ extra: 1 })],
    ['a wrong memo', () => content({ memo: 'p2p' })],
    ['a long description', () => content({ description: 'x'.repeat(256) })],
    ['a malformed prev', () => content({ prev: 'abc' })],
    ['a malformed currency', () => content({ currency: 'U$' })],
  ])('refuses %s', (_label, make) => {
    const text = typeof make === 'function' ? make() : make;
    expect(() => parseContent(text)).toThrow(ContentError);
  });

  it('signed bytes carry the domain; a signature over them verifies with the raw key only for those bytes', () => {
    const privateKey = newPrivateKey('ed25519');
    const publicKey = createPublicKey(privateKey);
    const text = content();
    const bytes = signedBytes(text);
    expect(bytes.toString('utf8')).toBe(`wn-tx-v1\n${text}`);
    const sig = sign(null, bytes, privateKey);
    expect(verify(null, bytes, publicKey, sig)).toBe(true);
    expect(verify(null, signedBytes(content({ prev: 'c'.repeat(64) })), publicKey, sig)).toBe(false);
  });

  it('salts are 32 hex characters and times strictly increase', () => {
    expect(newSalt()).toMatch(/^[0-9a-f]{32}$/);
    const now = Date.now();
    const a = nowMicros(now);
    const b = nowMicros(now);
    expect(b).toBeGreaterThan(a);
    expect(Number.isSafeInteger(b)).toBe(true);
  });
});
