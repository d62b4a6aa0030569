import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../../kernel/cli/rest-client.js';
import { fixturePlugin } from '../support/fixture-plugin.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string; retry_after?: number };
}

describe('scopes and per-key rate limits', () => {
  let t: TestNode;
  const keyWith = async (body: Record<string, unknown>): Promise<SignedClient> => {
    const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', body);
    expect(res.status).toBe(201);
    return clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
  };

  beforeAll(async () => {
    t = await startTestNode({ extraBuiltins: [fixturePlugin] });
    await t.admin.post('/api/v1/plugins/fixture/enable');
    await t.node.restart();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('answers 403 permission_denied for a missing scope, naming the scope', async () => {
    const reader = await keyWith({ name: 'reader', permissions: ['wallet:read'] });
    const keys = await reader.get<Envelope>('/api/v1/keys');
    expect(keys.status).toBe(403);
    expect(keys.body).toMatchObject({ success: false, error: { code: 'permission_denied' } });
    expect(keys.body.error!.message).toContain('admin');
    const send = await reader.post<Envelope>('/api/v1/plugins/fixture/send');
    expect(send.status).toBe(403);
    expect(send.body.error!.message).toContain('wallet:send');
    expect((await reader.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
  });

  it('wallet:* grants wallet:send and wallet:read routes, nothing else', async () => {
    const wallet = await keyWith({ name: 'wallet-all', permissions: ['wallet:*'] });
    expect((await wallet.post<Envelope<{ sent: boolean }>>('/api/v1/plugins/fixture/send')).body.data).toEqual({ sent: true });
    expect((await wallet.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
    expect((await wallet.get('/api/v1/keys')).status).toBe(403);
    const contacts = await keyWith({ name: 'contacts-all', permissions: ['contacts:*', 'system:*'] });
    expect((await contacts.post('/api/v1/plugins/fixture/send')).status).toBe(403);
    const sendOnly = await keyWith({ name: 'send-only', permissions: ['wallet:send'] });
    expect((await sendOnly.post('/api/v1/plugins/fixture/send')).status).toBe(200);
    expect((await sendOnly.get('/api/v1/plugins/fixture/echo')).status).toBe(403);
  });

  it('admin grants everything', async () => {
    const admin = await keyWith({ name: 'admin2', permissions: ['admin'] });
    expect((await admin.post('/api/v1/plugins/fixture/send')).status).toBe(200);
    expect((await admin.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
    expect((await admin.get('/api/v1/keys')).status).toBe(200);
    expect((await admin.get('/api/v1/plugins')).status).toBe(200);
  });

  it('refuses request 101 within a minute for a default key, with Retry-After', async () => {
    const client = await keyWith({ name: 'default-rate', permissions: ['wallet:read'] });
    for (let i = 1; i <= 100; i++) {
      const res = await client.get('/api/v1/plugins/fixture/echo');
      expect(res.status, `request ${i}`).toBe(200);
    }
    const limited = await client.get<Envelope>('/api/v1/plugins/fixture/echo');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, error: { code: 'rate_limit_exceeded' } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.error!.retry_after).toBe(retryAfter);
    // the limit is per key: others are not affected
    expect((await t.admin.get('/api/v1/keys')).status).toBe(200);
  });

  it('honours a per-key rate_limit_per_minute', async () => {
    const client = await keyWith({ name: 'five', permissions: ['admin'], rate_limit_per_minute: 5 });
    for (let i = 1; i <= 5; i++) expect((await client.get('/api/v1/keys')).status, `request ${i}`).toBe(200);
    const sixth = await client.get<Envelope>('/api/v1/keys');
    expect(sixth.status).toBe(429);
    expect(sixth.body.error!.code).toBe('rate_limit_exceeded');
    expect(sixth.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('counts only requests that proved the secret: bad signatures and replays do not spend the budget', async () => {
    const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', {
      name: 'budget', permissions: ['admin'], rate_limit_per_minute: 3,
    });
    const { key_id, secret } = res.body.data;
    const forger = clientWithKey(t.node, key_id, 'a'.repeat(64));
    for (let i = 0; i < 5; i++) expect((await forger.get<Envelope>('/api/v1/keys')).body.error!.code).toBe('auth_invalid_signature');
    const client = clientWithKey(t.node, key_id, secret);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = 'captured-nonce-0001';
    expect((await client.get('/api/v1/keys', { timestamp, nonce })).status).toBe(200);
    // an eavesdropper replays the captured request: refused as a replay, never as a rate limit
    for (let i = 0; i < 5; i++) {
      const replay = await client.get<Envelope>('/api/v1/keys', { timestamp, nonce });
      expect(replay.status).toBe(401);
      expect(replay.body.error!.code).toBe('auth_replay_detected');
    }
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    expect((await client.get('/api/v1/keys')).status).toBe(429);
  });

  it('rate_limit_enabled=false lifts the per-key limit', async () => {
    const client = await keyWith({ name: 'lifted', permissions: ['admin'], rate_limit_per_minute: 2 });
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    expect((await client.get('/api/v1/keys')).status).toBe(429);
    const off = await t.admin.put<Envelope>('/api/v1/system/settings', { rate_limit_enabled: false });
    expect(off.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await client.get('/api/v1/keys')).status).toBe(200);
    const on = await t.admin.put<Envelope>('/api/v1/system/settings', { rate_limit_enabled: true });
    expect(on.status).toBe(200);
  });
});
