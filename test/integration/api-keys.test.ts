import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string; [k: string]: unknown };
}

interface KeyRecord {
  key_id: string;
  name: string;
  permissions: string[];
  rate_limit_per_minute: number;
  enabled: boolean;
  expired: boolean;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

interface Created extends Omit<KeyRecord, 'expired' | 'last_used_at'> {
  secret: string;
  warning: string;
}

const CORE = [
  'wallet:read', 'wallet:send', 'wallet:*', 'contacts:read', 'contacts:write', 'contacts:*',
  'system:read', 'system:write', 'system:*', 'backup:read', 'backup:write', 'backup:*',
  'payback:read', 'payback:write', 'payback:*', 'admin',
];

describe('API keys REST', () => {
  let t: TestNode;
  const create = async (body: unknown) => t.admin.post<Envelope<Created>>('/api/v1/keys', body);

  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('creates a key with the defaults and shows the secret once', async () => {
    const res = await create({ name: 'reader' });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toMatchObject({
      name: 'reader',
      permissions: ['wallet:read', 'contacts:read'],
      rate_limit_per_minute: 100,
      enabled: true,
      expires_at: null,
      warning: 'Save this secret now: it will not be shown again.',
    });
    expect(d.key_id).toMatch(/^wn[0-9a-f]{8}_[0-9a-f]{24}$/);
    expect(d.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(d.created_at).toISOString()).toBe(d.created_at);

    const list = await t.admin.get<Envelope<{ keys: KeyRecord[]; count: number }>>('/api/v1/keys');
    expect(list.status).toBe(200);
    const row = list.body.data.keys.find((k) => k.key_id === d.key_id)!;
    expect(row).toEqual({
      key_id: d.key_id,
      name: 'reader',
      permissions: ['wallet:read', 'contacts:read'],
      rate_limit_per_minute: 100,
      enabled: true,
      expired: false,
      created_at: d.created_at,
      last_used_at: null,
      expires_at: null,
    });
    expect(list.body.data.count).toBe(list.body.data.keys.length);
    expect(JSON.stringify(list.body)).not.toContain(d.secret);
    expect(JSON.stringify(list.body)).not.toContain('secret');

    const one = await t.admin.get<Envelope<{ key: KeyRecord }>>(`/api/v1/keys/${d.key_id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.key).toEqual(row);
    expect(JSON.stringify(one.body)).not.toContain(d.secret);

    // the new key works with its secret
    const client = clientWithKey(t.node, d.key_id, d.secret);
    const denied = await client.get<Envelope>('/api/v1/keys');
    expect(denied.status).toBe(403);
  });

  it('never stores or logs the secret in plaintext', async () => {
    const { body } = await create({ name: 'secret-check', permissions: ['admin'] });
    const secret = body.data.secret;
    // make the new key sign something, so last_used_at and nonces are written too
    const client = clientWithKey(t.node, body.data.key_id, secret);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    for (const file of ['node.db', 'node.db-wal', 'node.log']) {
      const path = join(t.dataDir, file);
      if (!existsSync(path)) continue;
      const bytes = readFileSync(path);
      expect(bytes.includes(Buffer.from(secret)), `${file} holds the secret`).toBe(false);
      expect(bytes.includes(Buffer.from(secret, 'hex')), `${file} holds the raw secret bytes`).toBe(false);
    }
  });

  it('lists keys newest first, including disabled ones', async () => {
    const a = (await create({ name: 'first' })).body.data;
    // A later creation time without waiting: the node reads this process's clock.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(a.created_at) + 1000 });
    let b: Created;
    try {
      b = (await create({ name: 'second' })).body.data;
    } finally {
      vi.useRealTimers();
    }
    await t.admin.post(`/api/v1/keys/disable/${a.key_id}`);
    const list = (await t.admin.get<Envelope<{ keys: KeyRecord[] }>>('/api/v1/keys')).body.data.keys;
    const ids = list.map((k) => k.key_id);
    expect(ids.indexOf(b.key_id)).toBeLessThan(ids.indexOf(a.key_id));
    expect(list.find((k) => k.key_id === a.key_id)!.enabled).toBe(false);
  });

  it('accepts every known scope, a custom rate limit and a future expiry (normalised to UTC ms)', async () => {
    const expires = new Date(Date.now() + 86_400_000);
    expires.setUTCMilliseconds(0);
    const iso = expires.toISOString().replace('.000Z', 'Z');
    const res = await create({ name: '  spaced  ', permissions: [...CORE, 'wallet:read'], rate_limit_per_minute: 10_000, expires_at: iso });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('spaced');
    expect(res.body.data.permissions).toEqual(CORE);
    expect(res.body.data.rate_limit_per_minute).toBe(10_000);
    expect(res.body.data.expires_at).toBe(expires.toISOString());
    const offset = await create({ name: 'offset', expires_at: iso.replace('Z', '+00:00') });
    expect(offset.status).toBe(201);
    expect(offset.body.data.expires_at).toBe(expires.toISOString());
    const none = await create({ name: 'no-expiry', expires_at: null, rate_limit_per_minute: 1 });
    expect(none.status).toBe(201);
    expect(none.body.data.expires_at).toBeNull();
  });

  it.each([
    [{}, 'missing_field'],
    [{ permissions: ['admin'] }, 'missing_field'],
    [{ name: '' }, 'invalid_name'],
    [{ name: '   ' }, 'invalid_name'],
    [{ name: 'x'.repeat(101) }, 'invalid_name'],
    [{ name: 'bad\nname' }, 'invalid_name'],
    [{ name: 42 }, 'invalid_name'],
    [{ name: 'k', permissions: [] }, 'invalid_permission'],
    [{ name: 'k', permissions: 'admin' }, 'invalid_permission'],
    [{ name: 'k', permissions: ['all'] }, 'invalid_permission'],
    [{ name: 'k', permissions: ['plugins:*'] }, 'invalid_permission'],
    [{ name: 'k', permissions: [3] }, 'invalid_permission'],
    [{ name: 'k', rate_limit_per_minute: 0 }, 'invalid_rate_limit'],
    [{ name: 'k', rate_limit_per_minute: 10_001 }, 'invalid_rate_limit'],
    [{ name: 'k', rate_limit_per_minute: 1.5 }, 'invalid_rate_limit'],
    [{ name: 'k', rate_limit_per_minute: '100' }, 'invalid_rate_limit'],
    [{ name: 'k', rate_limit_per_minute: null }, 'invalid_rate_limit'],
    [{ name: 'k', expires_at: '2000-01-01T00:00:00Z' }, 'invalid_expires_at'],
    [{ name: 'k', expires_at: 'tomorrow' }, 'invalid_expires_at'],
    [{ name: 'k', expires_at: '2999-02-30T00:00:00Z' }, 'invalid_expires_at'],
    [{ name: 'k', expires_at: '2999-01-01T00:00:00+02:00' }, 'invalid_expires_at'],
    [{ name: 'k', expires_at: '2999-01-01T00:00:00' }, 'invalid_expires_at'],
    [{ name: 'k', expires_at: 4102444800 }, 'invalid_expires_at'],
    [{ name: 'k', permission: ['admin'] }, 'unknown_field'],
  ])('refuses %j with %s', async (body, code) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code } });
  });

  it('lists the valid scopes when a permission is unknown', async () => {
    const res = await create({ name: 'k', permissions: ['wallet:read', 'wallet:write'] });
    expect(res.status).toBe(400);
    const err = res.body.error!;
    expect(err.code).toBe('invalid_permission');
    expect(err.invalid).toEqual(['wallet:write']);
    expect(err.valid_permissions).toEqual(expect.arrayContaining(CORE));
    for (const scope of CORE) expect(err.message).toContain(scope);
  });

  it('refuses a body that is not a JSON object', async () => {
    const arr = await t.admin.post<Envelope>('/api/v1/keys', '[1,2]');
    expect(arr.status).toBe(400);
    expect(arr.body.error!.code).toBe('validation_error');
    const broken = await t.admin.post<Envelope>('/api/v1/keys', '{"name":');
    expect(broken.status).toBe(400);
    expect(broken.body.error!.code).toBe('invalid_json');
  });

  it('disables and enables a key, idempotently', async () => {
    const k = (await create({ name: 'toggle' })).body.data;
    const off = await t.admin.post<Envelope<{ message: string; key: KeyRecord }>>(`/api/v1/keys/disable/${k.key_id}`);
    expect(off.status).toBe(200);
    expect(off.body.data.key).toMatchObject({ key_id: k.key_id, enabled: false });
    expect(off.body.data.message).toContain('disabled');
    expect(JSON.stringify(off.body)).not.toContain(k.secret);
    const again = await t.admin.post<Envelope<{ message: string; key: KeyRecord }>>(`/api/v1/keys/disable/${k.key_id}`);
    expect(again.status).toBe(200);
    expect(again.body.data.message).toContain('already disabled');
    const on = await t.admin.post<Envelope<{ message: string; key: KeyRecord }>>(`/api/v1/keys/enable/${k.key_id}`);
    expect(on.status).toBe(200);
    expect(on.body.data.key.enabled).toBe(true);
  });

  it('deletes a key; the deleted key stops working', async () => {
    const k = (await create({ name: 'doomed', permissions: ['admin'] })).body.data;
    const client = clientWithKey(t.node, k.key_id, k.secret);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    const del = await t.admin.delete<Envelope<{ message: string; key_id: string }>>(`/api/v1/keys/${k.key_id}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ message: `API key ${k.key_id} deleted`, key_id: k.key_id });
    const after = await client.get<Envelope>('/api/v1/keys');
    expect(after.status).toBe(401);
    expect(after.body.error!.code).toBe('auth_invalid_key');
    const list = (await t.admin.get<Envelope<{ keys: KeyRecord[] }>>('/api/v1/keys')).body.data.keys;
    expect(list.some((r) => r.key_id === k.key_id)).toBe(false);
  });

  it('answers 404 key_not_found for an unknown key on every key route', async () => {
    const ghost = 'wn00000000_000000000000000000000000';
    for (const res of [
      await t.admin.delete<Envelope>(`/api/v1/keys/${ghost}`),
      await t.admin.post<Envelope>(`/api/v1/keys/enable/${ghost}`),
      await t.admin.post<Envelope>(`/api/v1/keys/disable/${ghost}`),
      await t.admin.get<Envelope>(`/api/v1/keys/${ghost}`),
      await t.admin.delete<Envelope>('/api/v1/keys/not%20a%20key'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error!.code).toBe('key_not_found');
    }
  });

  it('refuses to delete or disable the key that signs the request (409)', async () => {
    const own = t.admin.credentials.keyId;
    const del = await t.admin.delete<Envelope>(`/api/v1/keys/${own}`);
    expect(del.status).toBe(409);
    expect(del.body.error!.code).toBe('self_deletion_not_allowed');
    const dis = await t.admin.post<Envelope>(`/api/v1/keys/disable/${own}`);
    expect(dis.status).toBe(409);
    expect(dis.body.error!.code).toBe('self_disable_not_allowed');
    // another admin key may do it; the original key still works until then
    expect((await t.admin.get('/api/v1/keys')).status).toBe(200);
    const other = (await create({ name: 'second-admin', permissions: ['admin'] })).body.data;
    const second = clientWithKey(t.node, other.key_id, other.secret);
    const dis2 = await second.post<Envelope<{ key: KeyRecord }>>(`/api/v1/keys/disable/${own}`);
    expect(dis2.status).toBe(200);
    expect((await t.admin.get<Envelope>('/api/v1/keys')).body.error!.code).toBe('auth_key_disabled');
    expect((await second.post(`/api/v1/keys/enable/${own}`)).status).toBe(200);
    expect((await t.admin.get('/api/v1/keys')).status).toBe(200);
  });

  it('requires admin on every key route', async () => {
    const k = (await create({ name: 'almost-admin', permissions: ['wallet:*', 'contacts:*', 'system:*', 'backup:*', 'payback:*'] })).body.data;
    const client = clientWithKey(t.node, k.key_id, k.secret);
    for (const res of [
      await client.get<Envelope>('/api/v1/keys'),
      await client.get<Envelope>(`/api/v1/keys/${k.key_id}`),
      await client.post<Envelope>('/api/v1/keys', { name: 'x' }),
      await client.delete<Envelope>(`/api/v1/keys/${k.key_id}`),
      await client.post<Envelope>(`/api/v1/keys/enable/${k.key_id}`),
      await client.post<Envelope>(`/api/v1/keys/disable/${k.key_id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error!.code).toBe('permission_denied');
    }
  });

  it('records last use and keeps keys across a restart', async () => {
    const k = (await create({ name: 'persisted', permissions: ['admin'], rate_limit_per_minute: 7 })).body.data;
    await t.admin.post(`/api/v1/keys/disable/${k.key_id}`);
    await t.restart();
    const row = (await t.admin.get<Envelope<{ keys: KeyRecord[] }>>('/api/v1/keys')).body.data.keys.find((r) => r.key_id === k.key_id)!;
    expect(row).toMatchObject({ name: 'persisted', permissions: ['admin'], rate_limit_per_minute: 7, enabled: false });
    await t.admin.post(`/api/v1/keys/enable/${k.key_id}`);
    const client = clientWithKey(t.node, k.key_id, k.secret);
    expect((await client.get('/api/v1/keys')).status).toBe(200);
    const used = (await t.admin.get<Envelope<{ key: KeyRecord }>>(`/api/v1/keys/${k.key_id}`)).body.data.key;
    expect(used.last_used_at).not.toBeNull();
  });
});

describe('API keys REST: paging (Document 1, common query parameters)', () => {
  let t: TestNode;
  let all: string[];
  beforeAll(async () => {
    t = await startTestNode();
    for (let i = 0; i < 104; i++) {
      const res = await t.admin.post<Envelope<Created>>('/api/v1/keys', { name: `paged-${i}` });
      expect(res.status).toBe(201);
    }
    all = (await t.admin.get<Envelope<{ keys: KeyRecord[] }>>('/api/v1/keys', { query: { limit: 100 } })).body.data.keys.map((k) => k.key_id);
    all.push(...(await t.admin.get<Envelope<{ keys: KeyRecord[] }>>('/api/v1/keys', { query: { limit: 100, offset: 100 } })).body.data.keys.map((k) => k.key_id));
  });
  afterAll(async () => {
    await t.destroy();
  });

  type Page = { keys: KeyRecord[]; count: number; total: number; limit: number; offset: number };

  it('pages 105 keys with limit and offset, in one stable order', () => {
    expect(all).toHaveLength(105);
    expect(new Set(all).size).toBe(105);
  });

  it('returns 50 keys by default, with the total', async () => {
    const res = await t.admin.get<Envelope<Page>>('/api/v1/keys');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 50, total: 105, limit: 50, offset: 0 });
    expect(res.body.data.keys.map((k) => k.key_id)).toEqual(all.slice(0, 50));
  });

  it('caps limit at 100 and honours offset', async () => {
    const capped = (await t.admin.get<Envelope<Page>>('/api/v1/keys', { query: { limit: 500 } })).body.data;
    expect(capped).toMatchObject({ count: 100, total: 105, limit: 100, offset: 0 });
    const page = (await t.admin.get<Envelope<Page>>('/api/v1/keys', { query: { limit: 3, offset: 101 } })).body.data;
    expect(page).toMatchObject({ count: 3, total: 105, limit: 3, offset: 101 });
    expect(page.keys.map((k) => k.key_id)).toEqual(all.slice(101, 104));
    const past = (await t.admin.get<Envelope<Page>>('/api/v1/keys', { query: { offset: 200 } })).body.data;
    expect(past).toMatchObject({ keys: [], count: 0, total: 105 });
  });

  it('refuses a limit or offset that is not a non-negative integer (limit at least 1)', async () => {
    for (const query of [{ limit: 0 }, { limit: -1 }, { limit: 'ten' }, { offset: -1 }, { offset: '1.5' }]) {
      const res = await t.admin.get<Envelope>('/api/v1/keys', { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error!.code, JSON.stringify(query)).toBe('validation_error');
    }
  });
});
