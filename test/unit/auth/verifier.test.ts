import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../../kernel/auth/key-store.js';
import { NonceStore } from '../../../kernel/auth/nonces.js';
import { SlidingWindowLimiter } from '../../../kernel/auth/rate-limiter.js';
import { RequestVerifier, SIGNATURE_WINDOW_SECONDS, signRequest, stringToSign } from '../../../kernel/auth/verifier.js';
import { migrate } from '../../../kernel/db/migrations.js';
import { kernelMigrations } from '../../../kernel/migrations.js';
import { ApiError } from '../../../kernel/errors.js';

const T0 = 1_800_000_000_000; // ms

interface Req {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string | undefined>;
}

describe('RequestVerifier', () => {
  let db: Database.Database;
  let keys: ApiKeyStore;
  let nonces: NonceStore;
  let limiterOn: boolean;
  let verifier: RequestVerifier;
  let keyId: string;
  let secret: string;

  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db, 'kernel', kernelMigrations);
    keys = new ApiKeyStore(db, randomBytes(32), 'wntest');
    nonces = new NonceStore(db, SIGNATURE_WINDOW_SECONDS);
    limiterOn = true;
    verifier = new RequestVerifier(keys, nonces, new SlidingWindowLimiter(), () => limiterOn);
    ({ record: { key_id: keyId }, secret } = keys.create({ name: 'k', permissions: ['wallet:read'], rate_limit_per_minute: 3 }));
  });
  afterEach(() => db.close());

  /** Builds and verifies a request signed at `signedAtMs`, checked at `nowMs`. */
  function check(nowMs: number, r: Req = {}, signedAtMs = nowMs, sign: { key?: string; secret?: string; nonce?: string } = {}) {
    const method = r.method ?? 'GET';
    const path = r.path ?? '/api/v1/x';
    const body = r.body ?? '';
    const timestamp = String(Math.floor(signedAtMs / 1000));
    const nonce = sign.nonce ?? randomBytes(8).toString('hex');
    const headers: Record<string, string | undefined> = {
      'x-api-key': sign.key ?? keyId,
      'x-api-timestamp': timestamp,
      'x-api-nonce': nonce,
      'x-api-signature': signRequest(sign.secret ?? secret, method, path, timestamp, nonce, body),
      ...r.headers,
    };
    return verifier.verify({ method, path, rawBody: Buffer.from(body), header: (n) => headers[n] }, nowMs);
  }

  function code(fn: () => unknown): string {
    try {
      fn();
    } catch (err) {
      if (err instanceof ApiError) return `${err.status} ${err.code}`;
      throw err;
    }
    return 'ok';
  }

  it('builds the string to sign of Document 1', () => {
    expect(stringToSign('post', '/api/v1/keys', '1700000000', 'abcdefgh', '{"a":1}').toString()).toBe(
      'POST\n/api/v1/keys\n1700000000\nabcdefgh\n{"a":1}',
    );
    expect(stringToSign('GET', '/p', '1', 'n', '').toString()).toBe('GET\n/p\n1\nn\n');
  });

  it('returns the key id and its permissions', () => {
    expect(check(T0)).toEqual({ keyId, permissions: ['wallet:read'] });
  });

  it('checks the headers in the documented order', () => {
    const all = { 'x-api-key': undefined, 'x-api-timestamp': undefined, 'x-api-nonce': undefined, 'x-api-signature': undefined };
    expect(code(() => check(T0, { headers: all }))).toBe('401 auth_missing_key');
    expect(code(() => check(T0, { headers: { ...all, 'x-api-key': keyId } }))).toBe('401 auth_missing_timestamp');
    expect(code(() => check(T0, { headers: { 'x-api-signature': undefined, 'x-api-nonce': undefined } }))).toBe('401 auth_missing_signature');
    expect(code(() => check(T0, { headers: { 'x-api-nonce': undefined } }))).toBe('401 auth_missing_nonce');
    // a short nonce is reported before a bad timestamp, a bad timestamp before an unknown key
    expect(code(() => check(T0, { headers: { 'x-api-nonce': 'short', 'x-api-timestamp': 'x' } }))).toBe('401 auth_invalid_nonce');
    expect(code(() => check(T0, { headers: { 'x-api-timestamp': 'x', 'x-api-key': 'nope' } }))).toBe('401 auth_invalid_timestamp');
    expect(code(() => check(T0, { headers: { 'x-api-key': 'nope' } }, T0 - 400_000))).toBe('401 auth_expired_timestamp');
  });

  it('accepts exactly 300 s of skew either way', () => {
    expect(code(() => check(T0, {}, T0 - 300_000))).toBe('ok');
    expect(code(() => check(T0, {}, T0 + 300_000))).toBe('ok');
    expect(code(() => check(T0 + 1, {}, T0 - 300_000))).toBe('401 auth_expired_timestamp');
    expect(code(() => check(T0, {}, T0 + 301_000))).toBe('401 auth_expired_timestamp');
  });

  it('refuses unknown, disabled and expired keys before looking at the signature', () => {
    expect(code(() => check(T0, {}, T0, { key: 'wntest_unknown' }))).toBe('401 auth_invalid_key');
    keys.setEnabled(keyId, false);
    expect(code(() => check(T0, {}, T0, { secret: 'wrong' }))).toBe('401 auth_key_disabled');
    keys.setEnabled(keyId, true);
    const { record, secret: s2 } = keys.create({ name: 'e', permissions: ['admin'], expires_at: new Date(T0 + 1000).toISOString() });
    expect(code(() => check(T0 + 999, {}, T0 + 999, { key: record.key_id, secret: s2 }))).toBe('ok');
    expect(code(() => check(T0 + 1000, {}, T0 + 1000, { key: record.key_id, secret: s2 }))).toBe('401 auth_key_expired');
  });

  it('binds the signature to method, path, timestamp, nonce and body bytes', () => {
    const timestamp = String(T0 / 1000);
    const nonce = 'nonce-123';
    const sig = signRequest(secret, 'POST', '/api/v1/a', timestamp, nonce, '{"x":1}');
    const base = { 'x-api-key': keyId, 'x-api-timestamp': timestamp, 'x-api-nonce': nonce, 'x-api-signature': sig };
    const run = (method: string, path: string, body: string, h: Record<string, string> = {}) => {
      const headers: Record<string, string> = { ...base, ...h };
      return code(() => verifier.verify({ method, path, rawBody: Buffer.from(body), header: (n) => headers[n] }, T0));
    };
    expect(run('PUT', '/api/v1/a', '{"x":1}')).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/b', '{"x":1}')).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/a', '{"x": 1}')).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/a', '{"x":1}', { 'x-api-timestamp': String(T0 / 1000 - 1) })).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/a', '{"x":1}', { 'x-api-nonce': 'nonce-124' })).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/a', '{"x":1}', { 'x-api-signature': sig.toUpperCase() })).toBe('401 auth_invalid_signature');
    expect(run('POST', '/api/v1/a', '{"x":1}')).toBe('ok');
  });

  it('spends a nonce once per key, and only for a valid signature', () => {
    expect(code(() => check(T0, {}, T0, { nonce: 'same-nonce', secret: 'bad' }))).toBe('401 auth_invalid_signature');
    expect(code(() => check(T0, {}, T0, { nonce: 'same-nonce' }))).toBe('ok');
    expect(code(() => check(T0 + 1000, {}, T0 + 1000, { nonce: 'same-nonce' }))).toBe('401 auth_replay_detected');
  });

  it('refuses a replay before counting the rate limit', () => {
    expect(code(() => check(T0, {}, T0, { nonce: 'captured-1' }))).toBe('ok');
    for (let i = 0; i < 10; i++) expect(code(() => check(T0 + i, {}, T0, { nonce: 'captured-1' }))).toBe('401 auth_replay_detected');
    expect(code(() => check(T0 + 20))).toBe('ok');
    expect(code(() => check(T0 + 21))).toBe('ok');
    expect(code(() => check(T0 + 22))).toBe('429 rate_limit_exceeded');
  });

  it('reports Retry-After with the 429 and lets the switch lift the limit', () => {
    for (let i = 0; i < 3; i++) check(T0 + i);
    try {
      check(T0 + 10_000);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).context).toEqual({ retry_after: 50 });
    }
    limiterOn = false;
    for (let i = 0; i < 10; i++) expect(code(() => check(T0 + 10_001 + i))).toBe('ok');
    limiterOn = true;
    expect(code(() => check(T0 + 60_000))).toBe('ok');
  });

  it('prunes nonces only once their timestamp can no longer pass the window', () => {
    check(T0, {}, T0, { nonce: 'old-nonce-1' });
    expect(nonces.prune(T0 / 1000 + SIGNATURE_WINDOW_SECONDS)).toBe(0);
    expect(code(() => check(T0 + 300_000, {}, T0, { nonce: 'old-nonce-1' }))).toBe('401 auth_replay_detected');
    expect(nonces.prune(T0 / 1000 + SIGNATURE_WINDOW_SECONDS + 2)).toBe(1);
    // by then the window refuses the old timestamp itself
    expect(code(() => check(T0 + 302_000, {}, T0, { nonce: 'old-nonce-1' }))).toBe('401 auth_expired_timestamp');
  });
});
