import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../kernel/config.js';
import { fixturePlugin } from '../support/fixture-plugin.js';
import { clientWithKey, startTestNode, tempDataDir, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
  request_id?: string;
}

const started: TestNode[] = [];
afterAll(async () => {
  for (const t of started) await t.destroy();
});

/** Starts a node with the fixture plugin enabled, optional settings.json values and environment. */
async function node(options: { settings?: Record<string, unknown>; env?: Record<string, string>; fixture?: boolean } = {}): Promise<TestNode> {
  const dataDir = tempDataDir();
  if (options.fixture !== false) {
    writeFileSync(join(dataDir, 'plugins-state.json'), JSON.stringify({ fixture: { enabled: true, public_routes: true } }));
  }
  if (options.settings) writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(options.settings));
  const t = await startTestNode({ dataDir, extraBuiltins: [fixturePlugin], ...(options.env ? { env: options.env } : {}) });
  started.push(t);
  return t;
}

async function reader(t: TestNode) {
  const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: 'reader', permissions: ['wallet:read'] });
  return clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
}

describe('client address and trusted proxies', () => {
  const forwarded = { 'X-Forwarded-For': '198.51.100.9, 203.0.113.7', 'CF-Connecting-IP': '192.0.2.44' };

  it('ignores forwarding headers from an untrusted peer', async () => {
    const t = await node();
    const c = await reader(t);
    const res = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: forwarded });
    expect(res.status).toBe(200);
    expect(res.body.data.ip).toBe('127.0.0.1');
    const pub = await fetch(`${t.node.baseUrl}/p/fixture/ping`, { headers: forwarded });
    expect(((await pub.json()) as Envelope<{ ip: string }>).data.ip).toBe('127.0.0.1');
  });

  it('honours X-Forwarded-For from TRUSTED_PROXIES, right to left, and CF-Connecting-IP first', async () => {
    const t = await node({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    const c = await reader(t);
    const xff = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: { 'X-Forwarded-For': '198.51.100.9, 203.0.113.7' } });
    expect(xff.body.data.ip).toBe('203.0.113.7');
    // hops that are themselves trusted proxies are skipped
    const chain = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: { 'X-Forwarded-For': '203.0.113.8, 127.0.0.1' } });
    expect(chain.body.data.ip).toBe('203.0.113.8');
    const cf = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: forwarded });
    expect(cf.body.data.ip).toBe('192.0.2.44');
    const junk = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: { 'X-Forwarded-For': 'not-an-ip' } });
    expect(junk.body.data.ip).toBe('127.0.0.1');
    const none = await c.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo');
    expect(none.body.data.ip).toBe('127.0.0.1');
  });

  it('uses the trustedProxies setting, and TRUSTED_PROXIES overrides it', async () => {
    const fromSetting = await node({ settings: { trustedProxies: ['127.0.0.1'] } });
    const c1 = await reader(fromSetting);
    const r1 = await c1.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    expect(r1.body.data.ip).toBe('203.0.113.7');
    const overridden = await node({ settings: { trustedProxies: ['127.0.0.1'] }, env: { TRUSTED_PROXIES: '192.0.2.1' } });
    const c2 = await reader(overridden);
    const r2 = await c2.get<Envelope<{ ip: string }>>('/api/v1/plugins/fixture/echo', { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    expect(r2.body.data.ip).toBe('127.0.0.1');
  });

  it('refuses a whole network in TRUSTED_PROXIES at startup', async () => {
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8' })).toThrow(ConfigError);
    try {
      loadConfig({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('TRUSTED_PROXIES');
      expect((err as ConfigError).message).toContain('TRUSTED_PROXIES');
      expect((err as ConfigError).message).toContain('10.0.0.0/8');
    }
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.example' })).toThrow(/TRUSTED_PROXIES/);
    expect(loadConfig({ TRUSTED_PROXIES: '10.1.2.0/24,::1' }).trustedProxies!.includes('10.1.2.3')).toBe(true);
    const dataDir = tempDataDir();
    try {
      await expect(startTestNode({ dataDir, env: { TRUSTED_PROXIES: '10.0.0.0/8' } })).rejects.toThrow(/TRUSTED_PROXIES/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('request bodies', () => {
  it('answers 413 with an envelope over the default 64 KiB, signed or not', async () => {
    const t = await node({ fixture: false });
    const big = JSON.stringify({ name: 'x'.repeat(70 * 1024) });
    const signed = await t.admin.post<Envelope>('/api/v1/keys', big);
    expect(signed.status).toBe(413);
    expect(signed.body).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    expect(signed.body.request_id).toMatch(/^req_/);
    const unsigned = await fetch(`${t.node.baseUrl}/api/v1/keys`, { method: 'POST', body: big });
    expect(unsigned.status).toBe(413);
    // the connection stays usable afterwards
    expect((await t.admin.get('/api/v1/keys')).status).toBe(200);
    // just under the limit goes through to validation
    const under = JSON.stringify({ name: 'y'.repeat(60 * 1024) });
    const res = await t.admin.post<Envelope>('/api/v1/keys', under);
    expect(res.status).toBe(400);
    expect(res.body.error!.code).toBe('invalid_name');
  });

  it('answers 400 invalid_json for a body that is not JSON, after authentication', async () => {
    const t = await node({ fixture: false });
    for (const body of ['{not json', '{"name":"a",}', 'name=a']) {
      const res = await t.admin.post<Envelope>('/api/v1/keys', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_json' } });
    }
    const unsigned = await fetch(`${t.node.baseUrl}/api/v1/keys`, { method: 'POST', body: '{not json' });
    expect(unsigned.status).toBe(401);
  });
});

describe('CORS', () => {
  it('allows the configured origin, answers preflights with 204 and exposes Retry-After', async () => {
    const t = await node({ fixture: false, settings: { apiCorsAllowedOrigins: 'https://app.example, https://other.example' } });
    const pre = await fetch(`${t.node.baseUrl}/api/v1/keys`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = pre.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['x-api-key', 'x-api-timestamp', 'x-api-nonce', 'x-api-signature', 'content-type']) expect(allowed).toContain(h);

    const res = await t.admin.get('/api/v1/keys', { headers: { Origin: 'https://other.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://other.example');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');

    // errors carry the CORS headers too, so a browser client can read them
    const denied = await fetch(`${t.node.baseUrl}/api/v1/keys`, { headers: { Origin: 'https://app.example' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('grants nothing to other origins, and nothing by default', async () => {
    const t = await node({ fixture: false, settings: { apiCorsAllowedOrigins: 'https://app.example' } });
    const pre = await fetch(`${t.node.baseUrl}/api/v1/keys`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
    const res = await t.admin.get('/api/v1/keys', { headers: { Origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();

    const plain = await node({ fixture: false });
    const r2 = await plain.admin.get('/api/v1/keys', { headers: { Origin: 'https://app.example' } });
    expect(r2.status).toBe(200);
    expect(r2.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers * when every origin is allowed', async () => {
    const t = await node({ fixture: false, settings: { apiCorsAllowedOrigins: '*' } });
    const res = await t.admin.get('/api/v1/keys', { headers: { Origin: 'https://anything.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('apiEnabled=false', () => {
  it('refuses the REST API while /healthz stays up', async () => {
    const t = await node({ fixture: false, settings: { apiEnabled: false } });
    const res = await t.admin.get<Envelope>('/api/v1/keys');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, error: { code: 'api_disabled' } });
    const unsigned = await fetch(`${t.node.baseUrl}/api/v1/plugins`);
    expect(unsigned.status).toBe(503);
    const health = await fetch(`${t.node.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as Envelope<{ status: string }>).data.status).toBe('ok');
  });

  it('cannot be bypassed by spelling the path in another case', async () => {
    const t = await node({ fixture: false, settings: { apiEnabled: false } });
    for (const path of ['/API/v1/keys', '/Api/v1/system/status', '/api/V1/keys']) {
      const res = await t.admin.get<Envelope>(path);
      expect(res.status, path).not.toBe(200);
      expect(res.body.success, path).toBe(false);
    }
  });
});

describe('paths are case-sensitive', () => {
  it('answers a path in another case as not found, never as the route', async () => {
    const t = await node({ fixture: false });
    const upper = await t.admin.get<Envelope & { status_code?: number }>('/API/V1/KEYS');
    expect(upper.status).toBe(404);
    expect(upper.body).toMatchObject({ success: false, error: { code: 'invalid_path' }, data: null, status_code: 404 });
    const resource = await t.admin.get<Envelope>('/api/v1/Keys');
    expect(resource.status).toBe(404);
    expect(resource.body.error!.code).toBe('unknown_resource');
    const action = await t.admin.get<Envelope>('/api/v1/system/STATUS');
    expect(action.status).toBe(404);
    expect(action.body.error!.code).toBe('unknown_action');
    expect((await t.admin.get('/api/v1/keys')).status).toBe(200);
  });
});
