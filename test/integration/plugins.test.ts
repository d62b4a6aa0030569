import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MAX_BODY_BYTES, FIXTURE_PUBLIC_RATE_LIMIT, fixturePlugin } from '../support/fixture-plugin.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string; [k: string]: unknown };
}

interface PluginRow {
  name: string;
  version: string;
  enabled: boolean;
  status: string;
  license: string | null;
  author: string | null;
  homepage: string | null;
  has_changelog: boolean;
  essential: boolean;
  builtin: boolean;
  public_routes: string[];
  public_routes_enabled: boolean;
  public_routes_served: boolean;
  restart_required: boolean;
}

interface Toggle {
  plugin: string;
  enabled: boolean;
  status: string;
  restart_required: boolean;
  message: string;
  public_routes_gated?: boolean;
  public_routes_message?: string;
}

interface PublicSwitch {
  plugin: string;
  public_routes_enabled: boolean;
  public_routes: string[];
  served: boolean;
  message: string;
}

const started: TestNode[] = [];
async function node(env?: Record<string, string>): Promise<TestNode> {
  const t = await startTestNode({ extraBuiltins: [fixturePlugin], ...(env ? { env } : {}) });
  started.push(t);
  return t;
}

async function row(t: TestNode, name = 'fixture'): Promise<PluginRow> {
  const res = await t.admin.get<Envelope<{ plugins: PluginRow[] }>>('/api/v1/plugins');
  return res.body.data.plugins.find((p) => p.name === name)!;
}

async function readerClient(t: TestNode) {
  const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: 'reader', permissions: ['wallet:read'] });
  return clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
}

afterAll(async () => {
  for (const t of started) await t.destroy();
});

describe('plugins admin REST', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await node();
  });

  it('lists every plugin with its manifest fields, sorted by name', async () => {
    const res = await t.admin.get<Envelope<{ plugins: PluginRow[]; count: number; public_routes_ceiling: string }>>('/api/v1/plugins');
    expect(res.status).toBe(200);
    const { plugins, count } = res.body.data;
    expect(count).toBe(plugins.length);
    expect(res.body.data.public_routes_ceiling).toBe('allow');
    const names = plugins.map((p) => p.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['api-keys', 'plugins-admin', 'system', 'fixture']));
    expect(plugins.find((p) => p.name === 'fixture')).toMatchObject({
      name: 'fixture',
      version: '1.2.3',
      enabled: false,
      status: 'disabled',
      license: 'MIT',
      author: 'tests',
      homepage: 'https://example.invalid/fixture',
      has_changelog: true,
      builtin: true,
      essential: false,
      public_routes: ['ping'],
      public_routes_enabled: true,
      public_routes_served: false,
      restart_required: false,
    });
    expect(plugins.find((p) => p.name === 'api-keys')).toMatchObject({ enabled: true, status: 'active', essential: true, restart_required: false });
    const one = await t.admin.get<Envelope<{ plugin: PluginRow }>>('/api/v1/plugins/fixture');
    expect(one.status).toBe(200);
    expect(one.body.data.plugin.name).toBe('fixture');
  });

  it('pages the list with limit and offset (default 50, cap 100)', async () => {
    type Page = { plugins: PluginRow[]; count: number; total: number; limit: number; offset: number };
    const whole = (await t.admin.get<Envelope<Page>>('/api/v1/plugins')).body.data;
    expect(whole).toMatchObject({ limit: 50, offset: 0, total: whole.plugins.length, count: whole.plugins.length });
    const names = whole.plugins.map((p) => p.name);
    const page = (await t.admin.get<Envelope<Page>>('/api/v1/plugins', { query: { limit: 2, offset: 1 } })).body.data;
    expect(page).toMatchObject({ count: 2, total: names.length, limit: 2, offset: 1 });
    expect(page.plugins.map((p) => p.name)).toEqual(names.slice(1, 3));
    expect((await t.admin.get<Envelope<Page>>('/api/v1/plugins', { query: { limit: 1000 } })).body.data).toMatchObject({ limit: 100, count: names.length });
    for (const query of [{ limit: 0 }, { offset: -3 }, { limit: 'x' }]) {
      const bad = await t.admin.get<Envelope>('/api/v1/plugins', { query });
      expect(bad.status, JSON.stringify(query)).toBe(400);
      expect(bad.body.error!.code).toBe('validation_error');
    }
  });

  it('serves none of a disabled plugin\'s routes', async () => {
    const reader = await readerClient(t);
    const echo = await reader.get<Envelope>('/api/v1/plugins/fixture/echo');
    expect(echo.status).toBe(404);
    const ping = await fetch(`${t.node.baseUrl}/p/fixture/ping`);
    expect(ping.status).toBe(404);
  });

  it('enables with restart_required, serves after restart, disables the same way', async () => {
    const on = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ plugin: 'fixture', enabled: true, restart_required: true, status: 'restart_pending' });
    expect(on.body.data.message).toContain('/api/v1/system/restart');
    expect(on.body.data.public_routes_gated).toBeUndefined();
    expect(await row(t)).toMatchObject({ enabled: true, status: 'restart_pending', restart_required: true });

    // enabling twice: still pending, same shape
    const twice = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(twice.body.data).toMatchObject({ enabled: true, restart_required: true });

    // still not served before the restart
    expect((await fetch(`${t.node.baseUrl}/p/fixture/ping`)).status).toBe(404);

    await t.node.restart();
    expect(await row(t)).toMatchObject({ enabled: true, status: 'active', restart_required: false, public_routes_served: true });
    const reader = await readerClient(t);
    const echo = await reader.get<Envelope<{ ip: string; key_id: string }>>('/api/v1/plugins/fixture/echo');
    expect(echo.status).toBe(200);
    expect(echo.body.data.key_id).toBe(reader.credentials.keyId);
    const ping = await fetch(`${t.node.baseUrl}/p/fixture/ping`);
    expect(ping.status).toBe(200);
    expect(((await ping.json()) as Envelope<{ pong: boolean }>).data.pong).toBe(true);

    const again = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(again.body.data).toMatchObject({ enabled: true, restart_required: false });
    expect(again.body.data.message).toContain('already enabled');

    const off = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/disable');
    expect(off.body.data).toMatchObject({ plugin: 'fixture', enabled: false, restart_required: true });
    // the running generation keeps serving until the restart
    expect((await reader.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
    // toggling back before a restart clears the pending change
    const back = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(back.body.data).toMatchObject({ enabled: true, restart_required: false, status: 'active' });
    await t.admin.post('/api/v1/plugins/fixture/disable');
    await t.node.restart();
    expect(await row(t)).toMatchObject({ enabled: false, status: 'disabled', restart_required: false });
    expect((await reader.get('/api/v1/plugins/fixture/echo')).status).toBe(404);
  });

  it('keeps the flag across a full stop and start', async () => {
    await t.admin.post('/api/v1/plugins/fixture/enable');
    await t.restart();
    expect(await row(t)).toMatchObject({ enabled: true, status: 'active' });
    await t.admin.post('/api/v1/plugins/fixture/disable');
    await t.restart();
    expect(await row(t)).toMatchObject({ enabled: false, status: 'disabled' });
  });

  it('refuses to disable an essential plugin; enabling one is a no-op', async () => {
    for (const name of ['api-keys', 'plugins-admin', 'system']) {
      const res = await t.admin.post<Envelope>(`/api/v1/plugins/${name}/disable`);
      expect(res.status).toBe(400);
      expect(res.body.error!.code).toBe('plugin_essential');
      const on = await t.admin.post<Envelope<Toggle>>(`/api/v1/plugins/${name}/enable`);
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ enabled: true, restart_required: false });
    }
  });

  it('answers invalid_name and unknown_plugin on every plugin route', async () => {
    const bad = ['Fixture', '-fixture', 'a'.repeat(65), 'fix.ture', 'fix%20ture'];
    for (const name of bad) {
      for (const res of [
        await t.admin.post<Envelope>(`/api/v1/plugins/${name}/enable`),
        await t.admin.post<Envelope>(`/api/v1/plugins/${name}/disable`),
        await t.admin.post<Envelope>(`/api/v1/plugins/${name}/public-routes`, { enabled: true }),
        await t.admin.delete<Envelope>(`/api/v1/plugins/${name}`),
        await t.admin.get<Envelope>(`/api/v1/plugins/${name}`),
      ]) {
        expect(res.status, name).toBe(400);
        expect(res.body.error!.code).toBe('invalid_name');
      }
    }
    for (const res of [
      await t.admin.post<Envelope>('/api/v1/plugins/nope/enable'),
      await t.admin.post<Envelope>('/api/v1/plugins/nope/disable'),
      await t.admin.post<Envelope>('/api/v1/plugins/nope/public-routes', { enabled: false }),
      await t.admin.delete<Envelope>('/api/v1/plugins/nope'),
      await t.admin.get<Envelope>('/api/v1/plugins/nope'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error!.code).toBe('unknown_plugin');
    }
  });

  it('deletes nothing: enabled plugins must be disabled first, builtin ones stay', async () => {
    const essential = await t.admin.delete<Envelope>('/api/v1/plugins/system');
    expect(essential.status).toBe(400);
    expect(essential.body.error!.code).toBe('plugin_enabled');
    await t.admin.post('/api/v1/plugins/fixture/enable');
    const enabled = await t.admin.delete<Envelope>('/api/v1/plugins/fixture');
    expect(enabled.status).toBe(400);
    expect(enabled.body.error!.code).toBe('plugin_enabled');
    await t.admin.post('/api/v1/plugins/fixture/disable');
    const builtin = await t.admin.delete<Envelope>('/api/v1/plugins/fixture');
    expect(builtin.status).toBe(400);
    expect(builtin.body.error!.code).toBe('plugin_builtin');
    expect(await row(t)).toBeDefined();
  });

  it('validates the public-routes body', async () => {
    const missing = await t.admin.post<Envelope>('/api/v1/plugins/fixture/public-routes', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error!.code).toBe('missing_field');
    for (const body of [{ enabled: 'yes' }, { enabled: 1 }, { enabled: true, extra: 1 }]) {
      const res = await t.admin.post<Envelope>('/api/v1/plugins/fixture/public-routes', body);
      expect(res.status).toBe(400);
      expect(res.body.error!.code).toBe('validation_error');
    }
    const broken = await t.admin.post<Envelope>('/api/v1/plugins/fixture/public-routes', '{enabled');
    expect(broken.body.error!.code).toBe('invalid_json');
  });

  it('requires admin on every plugin route', async () => {
    const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', {
      name: 'system-admin', permissions: ['system:*', 'wallet:*'],
    });
    const client = clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
    for (const r of [
      await client.get<Envelope>('/api/v1/plugins'),
      await client.get<Envelope>('/api/v1/plugins/fixture'),
      await client.post<Envelope>('/api/v1/plugins/fixture/enable'),
      await client.post<Envelope>('/api/v1/plugins/fixture/disable'),
      await client.post<Envelope>('/api/v1/plugins/fixture/public-routes', { enabled: true }),
      await client.delete<Envelope>('/api/v1/plugins/fixture'),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.error!.code).toBe('permission_denied');
    }
  });
});

describe('public plugin routes', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await node();
    await t.admin.post('/api/v1/plugins/fixture/enable');
    await t.node.restart();
  });
  afterEach(async () => {
    await t.admin.post('/api/v1/plugins/fixture/public-routes', { enabled: true });
  });

  it('the per-plugin switch gates /p/ at once, no restart needed', async () => {
    const off = await t.admin.post<Envelope<PublicSwitch>>('/api/v1/plugins/fixture/public-routes', { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ plugin: 'fixture', public_routes_enabled: false, public_routes: ['ping'], served: false });
    expect(off.body.data.message).toContain('switch off');
    const gone = await fetch(`${t.node.baseUrl}/p/fixture/ping`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as Envelope).error!.code).toBe('unknown_action');
    // plugin routes behind HMAC are not affected
    const reader = await readerClient(t);
    expect((await reader.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
    expect(await row(t)).toMatchObject({ public_routes_enabled: false, public_routes_served: false });

    const on = await t.admin.post<Envelope<PublicSwitch>>('/api/v1/plugins/fixture/public-routes', { enabled: true });
    expect(on.body.data).toMatchObject({ public_routes_enabled: true, served: true });
    expect((await fetch(`${t.node.baseUrl}/p/fixture/ping`)).status).toBe(200);
  });

  it('enabling a plugin whose public switch is off reports public_routes_gated', async () => {
    await t.admin.post('/api/v1/plugins/fixture/public-routes', { enabled: false });
    const res = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(res.body.data).toMatchObject({ enabled: true, public_routes_gated: true });
    expect(res.body.data.public_routes_message).toContain('/p/fixture/ping');
    expect(res.body.data.public_routes_message).toContain('switch');
  });

  it('the switch persists across restarts', async () => {
    await t.admin.post('/api/v1/plugins/fixture/public-routes', { enabled: false });
    await t.restart();
    expect(await row(t)).toMatchObject({ enabled: true, status: 'active', public_routes_enabled: false });
    expect((await fetch(`${t.node.baseUrl}/p/fixture/ping`)).status).toBe(404);
  });

  it('switching a plugin that declares no public routes is accepted and says so', async () => {
    const res = await t.admin.post<Envelope<PublicSwitch>>('/api/v1/plugins/system/public-routes', { enabled: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ plugin: 'system', public_routes_enabled: false, public_routes: [], served: false });
    expect(res.body.data.message).toContain('no public routes');
    await t.admin.post('/api/v1/plugins/system/public-routes', { enabled: true });
  });

  it('enforces the per-route rate limit with 429 and Retry-After', async () => {
    // the limiter outlives an in-process reload and earlier tests spent this node's budget: use a fresh node
    const fresh = await node();
    await fresh.admin.post('/api/v1/plugins/fixture/enable');
    await fresh.node.restart();
    for (let i = 0; i < FIXTURE_PUBLIC_RATE_LIMIT; i++) {
      expect((await fetch(`${fresh.node.baseUrl}/p/fixture/ping`)).status).toBe(200);
    }
    const limited = await fetch(`${fresh.node.baseUrl}/p/fixture/ping`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await limited.json()) as Envelope & { request_id: string };
    expect(body).toMatchObject({ success: false, error: { code: 'rate_limit_exceeded' } });
    expect(body.request_id).toMatch(/^req_/);
    // another route is counted on its own
    expect((await fetch(`${fresh.node.baseUrl}/p/fixture/ping`, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  it('enforces the per-route body limit with a 413 envelope', async () => {
    const ok = await fetch(`${t.node.baseUrl}/p/fixture/ping`, { method: 'POST', body: JSON.stringify({ a: 'x'.repeat(100) }) });
    expect(ok.status).toBe(200);
    const big = await fetch(`${t.node.baseUrl}/p/fixture/ping`, { method: 'POST', body: JSON.stringify({ a: 'x'.repeat(FIXTURE_MAX_BODY_BYTES) }) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    // also when streamed without a Content-Length
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"a":"' + 'y'.repeat(FIXTURE_MAX_BODY_BYTES) + '"}'));
        c.close();
      },
    });
    const chunked = await fetch(`${t.node.baseUrl}/p/fixture/ping`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    // and on an HMAC plugin route
    const reader = await readerClient(t);
    const signed = await reader.post<Envelope>('/api/v1/plugins/fixture/echo', { a: 'z'.repeat(FIXTURE_MAX_BODY_BYTES) });
    expect(signed.status).toBe(413);
    expect(signed.body.error!.code).toBe('payload_too_large');
    const small = await reader.post<Envelope<{ received: unknown }>>('/api/v1/plugins/fixture/echo', { a: 1 });
    expect(small.status).toBe(200);
    expect(small.body.data.received).toEqual({ a: 1 });
  });

  it('unknown public actions and plugins answer unknown_action', async () => {
    expect((await fetch(`${t.node.baseUrl}/p/fixture/nothing`)).status).toBe(404);
    expect((await fetch(`${t.node.baseUrl}/p/nobody/ping`)).status).toBe(404);
  });
});

describe('NODE_PUBLIC_PLUGIN_ROUTES=deny', () => {
  it('refuses every public route whatever the switch, and says so on enable', async () => {
    const t = await node({ NODE_PUBLIC_PLUGIN_ROUTES: 'deny' });
    const list = await t.admin.get<Envelope<{ public_routes_ceiling: string }>>('/api/v1/plugins');
    expect(list.body.data.public_routes_ceiling).toBe('deny');
    const on = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/fixture/enable');
    expect(on.body.data).toMatchObject({ enabled: true, restart_required: true, public_routes_gated: true });
    expect(on.body.data.public_routes_message).toContain('NODE_PUBLIC_PLUGIN_ROUTES=deny');
    await t.node.restart();
    expect(await row(t)).toMatchObject({ status: 'active', public_routes_enabled: true, public_routes_served: false });
    expect((await fetch(`${t.node.baseUrl}/p/fixture/ping`)).status).toBe(404);
    const sw = await t.admin.post<Envelope<PublicSwitch>>('/api/v1/plugins/fixture/public-routes', { enabled: true });
    expect(sw.body.data).toMatchObject({ public_routes_enabled: true, served: false });
    expect(sw.body.data.message).toContain('NODE_PUBLIC_PLUGIN_ROUTES=deny');
    // HMAC plugin routes are not gated by the ceiling
    const reader = await readerClient(t);
    expect((await reader.get('/api/v1/plugins/fixture/echo')).status).toBe(200);
  });
});

describe('reserved plugin actions', () => {
  it('a plugin cannot shadow the admin routes of its own namespace', async () => {
    const shadow = {
      manifest: { name: 'shadow', version: '0.0.1', enabled_by_default: true },
      definition: {
        setup(ctx: import('../../sdk/index.js').PluginContext) {
          ctx.routes.plugin({ method: 'GET', path: 'fine', access: { scope: 'wallet:read' }, handler: () => ({ ok: true }) });
          ctx.routes.plugin({ method: 'POST', path: 'disable', access: { scope: 'wallet:read' }, handler: () => ({ fake: true }) });
        },
      },
    };
    const t = await startTestNode({ extraBuiltins: [shadow] });
    started.push(t);
    const r = await row(t, 'shadow');
    expect(r).toMatchObject({ enabled: true, status: 'failed', restart_required: true });
    expect((r as unknown as { error: string }).error).toContain('reserved');
    const off = await t.admin.post<Envelope<Toggle>>('/api/v1/plugins/shadow/disable');
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ plugin: 'shadow', enabled: false, restart_required: false });
    // nothing of the failed plugin is served
    const reader = await readerClient(t);
    expect((await reader.get('/api/v1/plugins/shadow/fine')).status).toBe(404);
  });
});
