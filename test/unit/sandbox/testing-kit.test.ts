/**
 * The plugin test kit (wallet-node/sdk/testing, issue 32): a plugin folder runs in a real isolate with a context the
 * test controls, and is refused where the node would refuse it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaffold } from '../../../builtin-plugins/plugins-admin/scaffold.js';
import { loadPlugin, railProblems, type PluginUnderTest } from '../../../sdk/testing.js';

const loaded: PluginUnderTest[] = [];
afterEach(() => loaded.splice(0).forEach((p) => p.stop()));

async function load(...args: Parameters<typeof loadPlugin>): Promise<PluginUnderTest> {
  const plugin = await loadPlugin(...args);
  loaded.push(plugin);
  return plugin;
}

function folder(name: string, kind: 'service' | 'rail' = 'service'): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'wallet-node-kit-')), name);
  scaffold(name, kind, dir);
  return dir;
}

/** A plugin folder whose manifest and entry are given. */
function plugin(manifest: Record<string, unknown>, entry: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-node-kit-'));
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ version: '1.0.0', ...manifest }));
  writeFileSync(join(dir, 'index.ts'), entry);
  return dir;
}

describe('the plugin test kit', () => {
  it('serves public and signed routes over the store and settings, checking the key scope as the node does', async () => {
    const p = await load(folder('visits'), { settings: { greeting: 'hi' } });
    expect(await p.public('GET', 'hello')).toEqual({ status: 200, data: { text: 'hi', visits: 1 }, headers: {} });
    expect((await p.public('GET', 'hello')).data).toEqual({ text: 'hi', visits: 2 });
    expect((await p.signed('GET', 'visits')).data).toEqual({ visits: 2 });
    expect((await p.signed('GET', 'visits', { permissions: ['admin'] })).status).toBe(200);
    expect(await p.signed('GET', 'visits', { permissions: ['wallet:read'] })).toMatchObject({ status: 403, error: { code: 'permission_denied' } });
    expect((await p.public('GET', 'nowhere')).status).toBe(404);
    expect(p.store.get('visits')).toBe(2);
    p.store.set('visits', 40);
    p.setSettings({ greeting: 'welcome' });
    expect((await p.public('GET', 'hello')).data).toEqual({ text: 'welcome', visits: 41 });
    expect(() => p.setSettings({ nope: 1 })).toThrow(/declares no setting nope/);
  });

  it('records gateway calls, published events and logs; moves the clock; passes params, query and body', async () => {
    const dir = plugin(
      { name: 'probe', scopes: ['probe:write'], permissions: ['contacts.lookup'] },
      `import { ApiError, Reply, definePlugin } from 'wallet-node/sdk/sandbox';
export default definePlugin({
  setup(ctx) {
    ctx.events.subscribe('payment.received', async (p) => { await ctx.store.set('last', p); });
    ctx.routes.plugin({ method: 'POST', path: 'greet/:who', scope: 'probe:write', handler: async (req) => {
      const contact = await ctx.gateway.call('contacts.lookup', { contact: req.params.who });
      if (!contact) throw new ApiError('unknown_contact', 404, 'no such contact');
      await ctx.events.publish('greeted', { who: req.params.who });
      ctx.log.info('greeted', { who: req.params.who });
      return new Reply({ at: ctx.clock.now(), contact: contact.name, loud: req.query.loud ?? null, body: req.body }, 201, 'greeted');
    } });
  },
});
`,
    );
    const p = await load(dir, { now: 1_000, gateway: { 'contacts.lookup': (args) => ((args as { contact: string }).contact === 'ann' ? { name: 'Ann' } : null) } });
    p.clock.advance(500);
    const res = await p.signed('POST', 'greet/ann', { query: { loud: 'yes' }, body: { note: 'hi' } });
    expect(res).toEqual({ status: 201, message: 'greeted', headers: {}, data: { at: 1_500, contact: 'Ann', loud: 'yes', body: { note: 'hi' } } });
    expect(await p.signed('POST', 'greet/bob')).toMatchObject({ status: 404, error: { code: 'unknown_contact', message: 'no such contact' } });
    expect(p.gatewayCalls).toEqual([
      { op: 'contacts.lookup', args: { contact: 'ann' } },
      { op: 'contacts.lookup', args: { contact: 'bob' } },
    ]);
    expect(p.published).toEqual([{ event: 'probe.greeted', payload: { who: 'ann' } }]);
    expect(p.logs).toContainEqual({ level: 'info', message: 'greeted', fields: { who: 'ann' } });
    await p.emit('payment.received', { txid: 't1', amount: '5' });
    expect(p.store.get('last')).toEqual({ txid: 't1', amount: '5' });
  });

  it('answers 500 plugin_error when a handler throws, as the node does', async () => {
    const dir = plugin(
      { name: 'oops', public_routes: [{ path: 'boom', method: 'GET', rate_per_minute: 10, max_body_bytes: 0 }] },
      `import { definePlugin } from 'wallet-node/sdk/sandbox';
export default definePlugin({ setup(ctx) { ctx.routes.public({ method: 'GET', path: 'boom', handler: () => { throw new Error('kaput'); } }); } });
`,
    );
    const p = await load(dir);
    // Placed in the source through the bundle's source map: line 2 of index.ts, where the handler throws.
    expect(await p.public('GET', 'boom')).toMatchObject({ status: 500, error: { code: 'plugin_error', message: expect.stringMatching(/threw Error: kaput \(at index\.ts:2:\d+\)/) } });
  });

  it('refuses a plugin the node would not start: a public route plugin.json does not declare', async () => {
    const dir = plugin(
      { name: 'sneaky' },
      `import { definePlugin } from 'wallet-node/sdk/sandbox';
export default definePlugin({ setup(ctx) { ctx.routes.public({ method: 'GET', path: 'hidden', handler: () => 1 }); } });
`,
    );
    await expect(loadPlugin(dir)).rejects.toThrow(/the node would not start sneaky: public route GET hidden is not declared in plugin.json/);
  });

  it('runs a contributed rail through the shared rail vectors, which catch a rail that breaks the contract', async () => {
    const good = await load(folder('eu-rail', 'rail'));
    expect(railProblems(good.rail('eu_rail'))).toEqual([]);
    expect(good.rail('eu_rail').catalog().fields.map((f) => f.name)).toEqual(['account_name', 'account_number']);

    const dir = folder('lax-rail', 'rail');
    const entry = join(dir, 'index.ts');
    writeFileSync(entry, readFileSync(entry, 'utf8').replace(/validate: \(fields, currency\) => \{/, 'validate: (fields, currency) => {\n    if (currency !== "") return [];'));
    const lax = await load(dir);
    expect(railProblems(lax.rail('lax_rail'))).toEqual(expect.arrayContaining([expect.stringMatching(/accepted junk/), 'an unknown field is not refused with unknown_field']));
  });
});
