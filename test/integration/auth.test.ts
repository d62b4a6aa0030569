import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signRequest } from '../../kernel/auth/verifier.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
}

interface RawOptions {
  method?: string;
  path?: string;
  body?: string;
  /** What is signed, when it differs from what is sent (tampering). */
  signMethod?: string;
  signPath?: string;
  signBody?: string;
  keyId?: string;
  secret?: string;
  timestamp?: string;
  nonce?: string;
  signature?: string;
  /** Headers left out of the request. */
  omit?: ('key' | 'timestamp' | 'nonce' | 'signature')[];
}

const now = (): number => Math.floor(Date.now() / 1000);
const freshNonce = (): string => randomBytes(16).toString('hex');

/** A request signed by hand, so every header and every signed input can be bent on its own. */
async function raw(t: TestNode, o: RawOptions = {}): Promise<{ status: number; body: Envelope }> {
  const creds = t.admin.credentials;
  const method = o.method ?? 'GET';
  const path = o.path ?? '/api/v1/keys';
  const body = o.body ?? '';
  const timestamp = o.timestamp ?? String(now());
  const nonce = o.nonce ?? freshNonce();
  const signature =
    o.signature ??
    signRequest(o.secret ?? creds.secret, o.signMethod ?? method, o.signPath ?? path.split('?')[0]!, timestamp, nonce, o.signBody ?? body);
  const omit = new Set(o.omit ?? []);
  const headers: Record<string, string> = {};
  if (!omit.has('key')) headers['X-API-Key'] = o.keyId ?? creds.keyId;
  if (!omit.has('timestamp')) headers['X-API-Timestamp'] = timestamp;
  if (!omit.has('nonce')) headers['X-API-Nonce'] = nonce;
  if (!omit.has('signature')) headers['X-API-Signature'] = signature;
  if (body) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${t.node.baseUrl}${path}`, { method, headers, ...(body ? { body } : {}) });
  return { status: res.status, body: (await res.json()) as Envelope };
}

const expect401 = (res: { status: number; body: Envelope }, code: string): void => {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ success: false, error: { code } });
};

describe('HMAC authentication', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('accepts a correctly signed request', async () => {
    const res = await raw(t);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('names each missing header', async () => {
    expect401(await raw(t, { omit: ['key', 'timestamp', 'nonce', 'signature'] }), 'auth_missing_key');
    expect401(await raw(t, { omit: ['key'] }), 'auth_missing_key');
    expect401(await raw(t, { omit: ['timestamp'] }), 'auth_missing_timestamp');
    expect401(await raw(t, { omit: ['signature'] }), 'auth_missing_signature');
    expect401(await raw(t, { omit: ['nonce'] }), 'auth_missing_nonce');
    const bare = await fetch(`${t.node.baseUrl}/api/v1/keys`);
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as Envelope).error!.code).toBe('auth_missing_key');
  });

  it('refuses an unknown key', async () => {
    expect401(await raw(t, { keyId: 'wn00000000_000000000000000000000000' }), 'auth_invalid_key');
    expect401(await raw(t, { keyId: 'not-a-key' }), 'auth_invalid_key');
  });

  it('refuses a wrong signature: wrong secret, tampered body, path or method, malformed hex', async () => {
    expect401(await raw(t, { secret: 'f'.repeat(64) }), 'auth_invalid_signature');
    const signedBody = JSON.stringify({ name: 'harmless', permissions: ['wallet:read'] });
    const tamperedBody = JSON.stringify({ name: 'harmless', permissions: ['admin'] });
    expect401(
      await raw(t, { method: 'POST', body: tamperedBody, signBody: signedBody }),
      'auth_invalid_signature',
    );
    // one extra byte is enough
    expect401(await raw(t, { method: 'POST', body: `${signedBody} `, signBody: signedBody }), 'auth_invalid_signature');
    expect401(await raw(t, { path: '/api/v1/keys', signPath: '/api/v1/plugins' }), 'auth_invalid_signature');
    expect401(await raw(t, { path: '/api/v1/plugins', signPath: '/api/v1/keys' }), 'auth_invalid_signature');
    expect401(await raw(t, { method: 'POST', signMethod: 'GET', body: signedBody }), 'auth_invalid_signature');
    const good = signRequest(t.admin.credentials.secret, 'GET', '/api/v1/keys', String(now()), 'n'.repeat(16), '');
    expect401(await raw(t, { signature: good.toUpperCase(), nonce: 'n'.repeat(16) }), 'auth_invalid_signature');
    expect401(await raw(t, { signature: 'zz' }), 'auth_invalid_signature');
    expect401(await raw(t, { signature: good.slice(0, 62) }), 'auth_invalid_signature');
    // nothing was created by the tampered requests
    const list = await t.admin.get<Envelope<{ keys: { name: string }[] }>>('/api/v1/keys');
    expect(list.body.data.keys.some((k) => k.name === 'harmless')).toBe(false);
  });

  it('signs the path without the query string, and the lowercase method is uppercased', async () => {
    const res = await raw(t, { path: '/api/v1/keys?page=2&x=y' });
    expect(res.status).toBe(200);
    const lower = await raw(t, { signMethod: 'get' });
    expect(lower.status).toBe(200);
  });

  it('refuses a timestamp that is not Unix seconds', async () => {
    for (const timestamp of ['abc', '12.5', '-5', '1e9', `${now()}000000`, '0x10', '+1']) {
      expect401(await raw(t, { timestamp }), 'auth_invalid_timestamp');
    }
  });

  it('accepts timestamps within 300 s either way and refuses 301 s', async () => {
    const ceilNow = (): number => Math.ceil(Date.now() / 1000);
    expect((await raw(t, { timestamp: String(ceilNow() - 299) })).status).toBe(200);
    expect((await raw(t, { timestamp: String(now() + 299) })).status).toBe(200);
    expect401(await raw(t, { timestamp: String(now() - 301) }), 'auth_expired_timestamp');
    expect401(await raw(t, { timestamp: String(ceilNow() + 301) }), 'auth_expired_timestamp');
    expect401(await raw(t, { timestamp: '0' }), 'auth_expired_timestamp');
  });

  it('requires a nonce of 8-64 characters', async () => {
    expect401(await raw(t, { nonce: 'a'.repeat(7) }), 'auth_invalid_nonce');
    expect401(await raw(t, { nonce: 'a'.repeat(65) }), 'auth_invalid_nonce');
    expect((await raw(t, { nonce: randomBytes(4).toString('hex') })).status).toBe(200);
    expect((await raw(t, { nonce: randomBytes(32).toString('hex') })).status).toBe(200);
  });

  it('refuses a replayed nonce, also after a restart', async () => {
    const nonce = freshNonce();
    const timestamp = String(now());
    expect((await raw(t, { nonce, timestamp })).status).toBe(200);
    expect401(await raw(t, { nonce, timestamp }), 'auth_replay_detected');
    // a new signature over a new body does not make the nonce usable again
    expect401(await raw(t, { nonce, method: 'POST', body: JSON.stringify({ name: 'replay' }) }), 'auth_replay_detected');
    await t.restart();
    expect401(await raw(t, { nonce, timestamp }), 'auth_replay_detected');
    expect((await raw(t)).status).toBe(200);
  });

  it('does not spend a nonce on a request that failed its signature', async () => {
    const nonce = freshNonce();
    expect401(await raw(t, { nonce, secret: 'e'.repeat(64) }), 'auth_invalid_signature');
    expect((await raw(t, { nonce })).status).toBe(200);
  });

  it('scopes nonces per key', async () => {
    const created = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: 'other', permissions: ['admin'] });
    const nonce = freshNonce();
    expect((await raw(t, { nonce })).status).toBe(200);
    const other = await raw(t, { nonce, keyId: created.body.data.key_id, secret: created.body.data.secret });
    expect(other.status).toBe(200);
  });

  it('refuses a disabled key, and accepts it again once enabled', async () => {
    const k = (await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: 'switch', permissions: ['admin'] })).body.data;
    const client = clientWithKey(t.node, k.key_id, k.secret);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    await t.admin.post(`/api/v1/keys/disable/${k.key_id}`);
    const off = await client.get<Envelope>('/api/v1/keys');
    expect401(off as { status: number; body: Envelope }, 'auth_key_disabled');
    await t.admin.post(`/api/v1/keys/enable/${k.key_id}`);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
  });

  it('refuses an expired key', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const res = await t.admin.post<Envelope<{ key_id: string; secret: string; expires_at: string }>>('/api/v1/keys', {
      name: 'short-lived', permissions: ['admin'], expires_at: expiresAt,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.expires_at).toBe(expiresAt);
    const client = clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    // The node and the clients share this process's clock: move it past the expiry instead of waiting for it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(expiresAt) + 1000 });
    try {
      const expired = await client.get<Envelope>('/api/v1/keys');
      expect401(expired as { status: number; body: Envelope }, 'auth_key_expired');
      const row = (await t.admin.get<Envelope<{ key: { expired: boolean; enabled: boolean } }>>(`/api/v1/keys/${res.body.data.key_id}`)).body.data.key;
      expect(row).toMatchObject({ expired: true, enabled: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it('uses the same message for unknown, disabled and expired keys', async () => {
    const unknown = await raw(t, { keyId: 'wn00000000_000000000000000000000001' });
    const k = (await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: 'quiet' })).body.data;
    await t.admin.post(`/api/v1/keys/disable/${k.key_id}`);
    const disabled = await raw(t, { keyId: k.key_id, secret: k.secret });
    expect(disabled.body.error!.message).toBe(unknown.body.error!.message);
  });
});
