/**
 * Third-party plugins in isolated-vm, through the REST API of real nodes: install, trust, enable, restart, the
 * sandboxed context (routes and scopes, public routes and their limits, store and quota, settings, events, the
 * gateway), disable, uninstall.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../support/api.js';
import { clientWithKey, type TestNode } from '../support/node.js';
import { bundleOf, enable, fixture, install, newAuthor, resigned, row, run, sandboxNode, type AuthorKey } from './sandbox-support.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const t of nodes) await t.destroy();
});

async function keyWith(t: TestNode, permissions: string[]) {
  const res = await ok(t, 'POST', '/api/v1/keys', { name: `key ${permissions.join(' ')}`, permissions });
  return clientWithKey(t.node, res.key_id, res.secret);
}

describe('a sandboxed plugin, installed, enabled and restarted', () => {
  let t: TestNode;
  let author: AuthorKey;
  let pluginsDir: string;
  beforeAll(async () => {
    ({ t, author, pluginsDir } = await sandboxNode());
    nodes.push(t);
    await run(t, author, 'hello');
  });

  it('shows in GET /api/v1/plugins as an active third-party plugin with its signature and limits', async () => {
    const data = await ok(t, 'GET', '/api/v1/plugins');
    const hello = data.plugins.find((p: { name: string }) => p.name === 'hello');
    expect(hello).toMatchObject({
      name: 'hello',
      version: '1.0.0',
      enabled: true,
      status: 'active',
      builtin: false,
      essential: false,
      author: 'tests',
      license: 'MIT',
      homepage: 'https://example.invalid/hello',
      public_routes: ['greet'],
      public_routes_served: true,
      restart_required: false,
      error: null,
      sandbox: {
        entry: 'index.js',
        permissions: ['contacts.lookup'],
        scopes: ['hello:read', 'hello:write'],
        public_route_limits: [{ path: 'greet', method: 'GET', rate_per_minute: 600, max_body_bytes: 0 }],
        signature: { status: 'trusted', signer: 'test author', public_key: author.publicHex, reason: null },
        development_mode: false,
        limits: { memory_mb: 32, cpu_ms: 200, store_kb: 1024, store_keys: 10000 },
        settings: { greeting: 'hello', times: 1 },
        failures: 0,
      },
    });
    expect(existsSync(join(pluginsDir, 'hello', 'plugin.sig'))).toBe(true);
    expect(data.plugins.find((p: { name: string }) => p.name === 'plugin-gateway')).toMatchObject({ builtin: true, status: 'active' });
  });

  it('serves its routes under /api/v1/plugins/<name>/ with the scopes it declares', async () => {
    const status = await ok(t, 'GET', '/api/v1/plugins/hello/status');
    expect(status).toMatchObject({ name: 'hello', version: '1.0.0', greeting: 'hello', settings: { greeting: 'hello', times: 1 } });
    expect(status.auth.permissions).toEqual(['admin']);
    expect(Math.abs(status.now - Date.now())).toBeLessThan(60_000);

    const reader = await keyWith(t, ['hello:read']);
    expect((await reader.get('/api/v1/plugins/hello/status')).status).toBe(200);
    const denied = await reader.request('PUT', '/api/v1/plugins/hello/notes/a', { body: { text: 'x' } });
    expect(denied.status).toBe(403);
    expect((denied.body as { error: { code: string } }).error.code).toBe('permission_denied');
    const walletReader = await keyWith(t, ['wallet:read']);
    expect((await walletReader.get('/api/v1/plugins/hello/notes/zz')).status).toBe(404);
    expect((await walletReader.get('/api/v1/plugins/hello/status')).status).toBe(403);
  });

  it('keeps a key-value store of its own, and its errors reach the client as ApiError envelopes', async () => {
    const put = await call(t, 'PUT', '/api/v1/plugins/hello/notes/first', { text: 'one' });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ success: true, data: { key: 'first' }, message: 'stored' });
    await ok(t, 'PUT', '/api/v1/plugins/hello/notes/second', { text: 'two' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/notes/first')).toEqual({ text: 'one' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/notes')).toEqual({ keys: ['note:first', 'note:second'] });
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/notes', undefined, { limit: 1 })).toEqual({ keys: ['note:first'] });
    expect(await ok(t, 'DELETE', '/api/v1/plugins/hello/notes/second')).toEqual({ deleted: true });
    const missing = await call(t, 'GET', '/api/v1/plugins/hello/notes/second');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({ code: 'note_not_found', message: 'no note second' });
    const bad = await call(t, 'PUT', '/api/v1/plugins/hello/notes/x', { text: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ code: 'invalid_note', message: 'text must be a string', details: { field: 'text' } });
    const notJson = await t.admin.request('PUT', '/api/v1/plugins/hello/notes/x', { body: '{nope' });
    expect(notJson.status).toBe(400);
    expect((await row(t, 'hello')).sandbox.store).toEqual({ bytes: expect.any(Number), keys: 1 });
  });

  it('refuses writes over its store quota with quota_exceeded, which the plugin can catch', async () => {
    await ok(t, 'POST', '/api/v1/plugins/hello/limits', { store_kb: 4 });
    expect((await row(t, 'hello')).sandbox.limits.store_kb).toBe(4);
    await ok(t, 'POST', '/api/v1/system/restart');
    expect(await ok(t, 'POST', '/api/v1/plugins/hello/fill', { count: 10, size: 1000 })).toEqual({ refused: 'quota_exceeded', status: 507 });
    const usage = (await row(t, 'hello')).sandbox.store;
    expect(usage.bytes).toBeLessThanOrEqual(4096);
    await ok(t, 'POST', '/api/v1/plugins/hello/limits', { store_kb: null });
    expect((await row(t, 'hello')).sandbox.limits.store_kb).toBe(1024);
  });

  it('reads its settings, which the operator changes at once without a restart', async () => {
    const bad = await call(t, 'POST', '/api/v1/plugins/hello/settings', { times: 9 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const unknown = await call(t, 'POST', '/api/v1/plugins/hello/settings', { colour: 'red' });
    expect(unknown.body.error.code).toBe('unknown_setting');
    const res = await ok(t, 'POST', '/api/v1/plugins/hello/settings', { greeting: 'hi', times: 2 });
    expect(res.settings).toEqual({ greeting: 'hi', times: 2 });
    const greet = await fetch(`${t.node.baseUrl}/p/hello/greet?who=ann`);
    expect(greet.status).toBe(200);
    expect(greet.headers.get('cache-control')).toBe('no-store');
    expect(greet.headers.get('set-cookie')).toBeNull();
    const body = (await greet.json()) as { data: Record<string, unknown> };
    expect(body.data).toEqual({ text: 'hi hi', who: 'ann', ip: '127.0.0.1', auth: null });
    await ok(t, 'POST', '/api/v1/plugins/hello/settings', { greeting: null, times: null });
    expect((await row(t, 'hello')).sandbox.settings).toEqual({ greeting: 'hello', times: 1 });
  });

  it('serves its public routes only while its public-routes switch is on', async () => {
    const off = await ok(t, 'POST', '/api/v1/plugins/hello/public-routes', { enabled: false });
    expect(off).toMatchObject({ plugin: 'hello', public_routes_enabled: false, public_routes: ['greet'], served: false });
    const closed = await fetch(`${t.node.baseUrl}/p/hello/greet`);
    expect(closed.status).toBe(404);
    expect(((await closed.json()) as { error: { code: string } }).error.code).toBe('unknown_action');
    await ok(t, 'POST', '/api/v1/plugins/hello/public-routes', { enabled: true });
    expect((await fetch(`${t.node.baseUrl}/p/hello/greet`)).status).toBe(200);
    expect((await fetch(`${t.node.baseUrl}/p/hello/nothing`)).status).toBe(404);
  });

  it('calls the gateway operations its manifest lists, and no other', async () => {
    expect(await ok(t, 'POST', '/api/v1/plugins/hello/contact', { contact: 'nobody' })).toBeNull();
    expect(await ok(t, 'POST', '/api/v1/plugins/hello/request', { contact: 'nobody' })).toEqual({ refused: 'permission_denied' });
  });

  it('publishes events that plugins subscribed to receive as <plugin>.<event>', async () => {
    await ok(t, 'POST', '/api/v1/plugins/hello/ping');
    const seen = await ok(t, 'GET', '/api/v1/plugins/hello/seen');
    expect(seen.seen).toEqual([{ at: expect.any(Number) }]);
  });

  it('logs into the node log under plugin:<name>', async () => {
    const log = readFileSync(join(t.dataDir, 'node.log'), 'utf8');
    expect(log).toMatch(/\[plugin:hello\] note stored \{"key":"first"\}/);
  });
});

describe('trust: signatures over the manifest and the entry', () => {
  let t: TestNode;
  let author: AuthorKey;
  let pluginsDir: string;
  beforeAll(async () => {
    ({ t, author, pluginsDir } = await sandboxNode());
    nodes.push(t);
  });

  it('refuses to install an unsigned plugin, or one signed by a key the node does not trust, before writing anything', async () => {
    const unsigned = await call(t, 'POST', '/api/v1/plugins', bundleOf(fixture('hello'), null));
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.error).toMatchObject({ code: 'plugin_untrusted', signature: 'unsigned' });
    expect(unsigned.body.error.message).toMatch(/not signed.*trusted-plugin-keys.*NODE_PLUGINS_DEV_MODE/);
    const stranger = await call(t, 'POST', '/api/v1/plugins', bundleOf(fixture('hello'), newAuthor()));
    expect(stranger.status).toBe(400);
    expect(stranger.body.error).toMatchObject({ code: 'plugin_untrusted', signature: 'untrusted' });
    const tampered = await call(t, 'POST', '/api/v1/plugins', bundleOf(fixture('hello'), author, { entry: (e) => `${e}\n// one more line\n` }));
    expect(tampered.status).toBe(400);
    expect(tampered.body.error).toMatchObject({ code: 'plugin_signature_invalid', signature: 'invalid' });
    expect(tampered.body.error.message).toMatch(/index\.js changed after it was signed/);
    expect(existsSync(join(pluginsDir, 'hello'))).toBe(false);
  });

  it('refuses an entry that does not compile, even when signed', async () => {
    const broken = resigned({ ...bundleOf(fixture('hello'), null), entry: 'export default {' }, author);
    const res = await call(t, 'POST', '/api/v1/plugins', broken);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_entry', field: 'entry' });
    expect(res.body.error.message).toMatch(/index\.js does not compile: Unexpected end of input/);
  });

  it('refuses a malformed manifest', async () => {
    const bad = await call(t, 'POST', '/api/v1/plugins', { ...bundleOf(fixture('hello'), author), manifest: '{"name":"Bad Name","version":"1"}' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_manifest', field: 'manifest' });
    const builtinOnly = await call(t, 'POST', '/api/v1/plugins', bundleOf(fixture('hello'), author, { manifest: (m) => m.replace('"version"', '"requires": ["ledger"], "version"') }));
    expect(builtinOnly.body.error.message).toMatch(/requires is for builtin plugins only/);
    const named = await call(t, 'POST', '/api/v1/plugins', bundleOf(fixture('hello'), author, { manifest: (m) => m.replaceAll('hello', 'wallet') }));
    expect(named.status).toBe(409);
    expect(named.body.error.code).toBe('plugin_exists');
  });

  it('refuses to enable a plugin whose entry or manifest changed after signing, and shows why in its row', async () => {
    await install(t, bundleOf(fixture('hello'), author));
    expect((await row(t, 'hello')).status).toBe('disabled');
    const entry = join(pluginsDir, 'hello', 'index.js');
    const original = readFileSync(entry, 'utf8');
    writeFileSync(entry, original.replace('note stored', 'note kept'));
    const refused = await call(t, 'POST', '/api/v1/plugins/hello/enable');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'plugin_signature_invalid', signature: 'invalid' });
    expect(refused.body.error.message).toMatch(/index\.js changed after it was signed/);
    expect(await row(t, 'hello')).toMatchObject({ enabled: false, status: 'failed', sandbox: { signature: { status: 'invalid' } } });
    expect((await row(t, 'hello')).error).toMatch(/index\.js changed after it was signed/);

    writeFileSync(entry, original);
    const manifest = join(pluginsDir, 'hello', 'plugin.json');
    const manifestText = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, manifestText.replace('"contacts.lookup"', '"contacts.lookup", "payment_requests.create"'));
    const refused2 = await call(t, 'POST', '/api/v1/plugins/hello/enable');
    expect(refused2.status).toBe(400);
    expect(refused2.body.error.message).toMatch(/plugin\.json changed after it was signed/);
    writeFileSync(manifest, manifestText);
    expect((await row(t, 'hello')).status).toBe('disabled');
  });

  it('does not start an enabled plugin that was tampered with before a restart', async () => {
    await enable(t, 'hello');
    expect((await row(t, 'hello')).status).toBe('active');
    const entry = join(pluginsDir, 'hello', 'index.js');
    const original = readFileSync(entry, 'utf8');
    writeFileSync(entry, `${original}\n// changed\n`);
    await ok(t, 'POST', '/api/v1/system/restart');
    const r = await row(t, 'hello');
    expect(r).toMatchObject({ enabled: true, status: 'failed' });
    expect(r.error).toMatch(/index\.js changed after it was signed/);
    expect((await call(t, 'GET', '/api/v1/plugins/hello/status')).status).toBe(404);
    writeFileSync(entry, original);
    await ok(t, 'POST', '/api/v1/system/restart');
    expect((await row(t, 'hello')).status).toBe('active');
  });

  it('never runs a folder copied in by hand under the name of a builtin plugin', async () => {
    cpSync(fixture('hello'), join(pluginsDir, 'wallet'), { recursive: true });
    writeFileSync(join(pluginsDir, 'wallet', 'plugin.json'), readFileSync(join(fixture('hello'), 'plugin.json'), 'utf8').replaceAll('hello', 'wallet'));
    await ok(t, 'POST', '/api/v1/system/restart');
    const wallet = (await ok(t, 'GET', '/api/v1/plugins')).plugins.filter((p: { name: string }) => p.name === 'wallet');
    expect(wallet).toEqual([expect.objectContaining({ builtin: true, status: 'active' })]);
    expect((await call(t, 'GET', '/api/v1/plugins/wallet/status')).status).toBe(404);
    rmSync(join(pluginsDir, 'wallet'), { recursive: true });
  });

  it('runs an unsigned plugin only on a node in development mode, and says so', async () => {
    const { t: dev } = await sandboxNode({ env: { NODE_PLUGINS_DEV_MODE: 'true' } });
    nodes.push(dev);
    const installed = await install(dev, bundleOf(fixture('hello'), null));
    expect(installed.plugin.sandbox).toMatchObject({ signature: { status: 'unsigned' }, development_mode: true });
    const res = await ok(dev, 'POST', '/api/v1/plugins/hello/enable');
    expect(res.permissions).toEqual(['contacts.lookup']);
    expect(res.permissions_message).toMatch(/may call: contacts\.lookup.*NOT signed by a trusted key \(unsigned\)/);
    await ok(dev, 'POST', '/api/v1/system/restart');
    expect((await row(dev, 'hello')).status).toBe('active');
  });
});

describe('upgrades', () => {
  it('replaces an installed plugin only when asked, disabled and stopped, keeping its data', async () => {
    const { t, author } = await sandboxNode();
    nodes.push(t);
    await run(t, author, 'hello');
    await ok(t, 'PUT', '/api/v1/plugins/hello/notes/kept', { text: 'v1 data' });
    const next = resigned(bundleOf(fixture('hello'), null, { manifest: (m) => m.replace('"1.0.0"', '"1.1.0"') }), author);
    expect((await call(t, 'POST', '/api/v1/plugins', next)).body.error.code).toBe('plugin_exists');
    expect((await call(t, 'POST', '/api/v1/plugins', { ...next, replace: true })).body.error.code).toBe('plugin_enabled');
    await ok(t, 'POST', '/api/v1/plugins/hello/disable');
    expect((await call(t, 'POST', '/api/v1/plugins', { ...next, replace: true })).body.error.code).toBe('plugin_running');
    await ok(t, 'POST', '/api/v1/system/restart');
    const replaced = await call(t, 'POST', '/api/v1/plugins', { ...next, replace: true });
    expect(replaced.status).toBe(201);
    expect(replaced.body.data.plugin).toMatchObject({ name: 'hello', version: '1.1.0', enabled: false, status: 'disabled' });
    await enable(t, 'hello');
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/notes/kept')).toEqual({ text: 'v1 data' });
    expect((await ok(t, 'GET', '/api/v1/plugins/hello/status')).version).toBe('1.1.0');
  });
});

describe('disable and uninstall', () => {
  it('disabling takes the routes away at the restart; uninstall removes the files and the stored data', async () => {
    const { t, author, pluginsDir } = await sandboxNode();
    nodes.push(t);
    await run(t, author, 'hello');
    await ok(t, 'PUT', '/api/v1/plugins/hello/notes/kept', { text: 'data' });
    await ok(t, 'POST', '/api/v1/plugins/hello/settings', { greeting: 'hey' });

    const enabledDelete = await call(t, 'DELETE', '/api/v1/plugins/hello');
    expect(enabledDelete.status).toBe(400);
    expect(enabledDelete.body.error.code).toBe('plugin_enabled');
    await ok(t, 'POST', '/api/v1/plugins/hello/disable');
    expect(await row(t, 'hello')).toMatchObject({ enabled: false, status: 'restart_pending', restart_required: true });
    const running = await call(t, 'DELETE', '/api/v1/plugins/hello');
    expect(running.status).toBe(400);
    expect(running.body.error.code).toBe('plugin_running');
    expect((await call(t, 'GET', '/api/v1/plugins/hello/status')).status).toBe(200);

    await ok(t, 'POST', '/api/v1/system/restart');
    expect(await row(t, 'hello')).toMatchObject({ enabled: false, status: 'disabled' });
    expect((await call(t, 'GET', '/api/v1/plugins/hello/status')).status).toBe(404);
    expect((await fetch(`${t.node.baseUrl}/p/hello/greet`)).status).toBe(404);

    const deleted = await ok(t, 'DELETE', '/api/v1/plugins/hello');
    expect(deleted).toMatchObject({ plugin: 'hello', deleted: true });
    expect(existsSync(join(pluginsDir, 'hello'))).toBe(false);
    expect((await call(t, 'GET', '/api/v1/plugins/hello')).status).toBe(404);
    const state = JSON.parse(readFileSync(join(t.dataDir, 'plugins-state.json'), 'utf8')) as Record<string, unknown>;
    expect(state.hello).toBeUndefined();

    // Installed again, it starts from nothing: no notes, default settings.
    await run(t, author, 'hello');
    expect((await call(t, 'GET', '/api/v1/plugins/hello/notes/kept')).status).toBe(404);
    expect((await row(t, 'hello')).sandbox).toMatchObject({ settings: { greeting: 'hello', times: 1 }, store: { bytes: 0, keys: 0 } });
  });
});
