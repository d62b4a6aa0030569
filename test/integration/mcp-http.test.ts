/**
 * Customer HTTP routes of mcp-passthrough (admin-keyinfo, admin-origins, legacy chat), the browser Origin rules of
 * Document 2 on the MCP endpoint and legacy chat, the per-route body and rate limits the host enforces (413, 429,
 * counted per bearer), and the reaping of unused bootstrap keys after 24 hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { definePlugin, type Clock } from '../../sdk/index.js';
import type { McpPassthroughService } from '../../builtin-plugins/mcp-passthrough/api.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { configure, createKey, expectedCharge, initializeBody, model, ok, openaiProvider, PLUGIN, rpc, startMcpNode, topUp } from './mcp-support.js';

/** A test plugin that mints bootstrap keys through the service, as the federation's request-key will. */
const minter: BuiltinPlugin = {
  manifest: { name: 'mcp-minter', version: '0.0.1', requires: ['mcp-passthrough'], enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      const mcp = ctx.services.use<McpPassthroughService>('mcp-passthrough');
      ctx.routes.plugin<{ contact_hash?: string }>({
        method: 'POST',
        path: 'mint',
        access: { scope: 'admin' },
        body: { type: 'object' },
        handler: (req) => mcp.mintBootstrapKey({ label: 'bootstrap', contactHash: req.body.contact_hash ?? null }),
      });
    },
  }),
};

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;
let token: string;
let keyId: number;
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };

const base = (t: TestNode): string => `${t.node.baseUrl}/p/mcp-passthrough`;
const bearer = (tok: string) => ({ authorization: `Bearer ${tok}` });

async function post(path: string, tok: string | null, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base(seller)}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(tok ? bearer(tok) : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode({ clock, extraBuiltins: [minter] }), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await openaiProvider(seller, fake, 'fake', [model('gpt-fake')]);
  await configure(seller, { set: { allowed_origins: 'https://app.example.com:8443' } });
  const key = await createKey(seller, { label: 'web', contact: 'customer' });
  token = key.token;
  keyId = key.key_id;
  await topUp(customer, seller, keyId, '1');
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});

describe('customer HTTP routes', () => {
  it('admin-keyinfo shows the own key, its last 25 usage rows and the origin cap', async () => {
    const res = await fetch(`${base(seller)}/admin-keyinfo`, { headers: bearer(token) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ ok: true, key: { key_id: keyId, balance: '1', currency: 'VWL', deposit_memo: `mcp-topup:${keyId}` }, usage: [], max_allowed_origins: 3 });
    expect(JSON.stringify(body)).not.toContain(token);
    const none = await fetch(`${base(seller)}/admin-keyinfo`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('unauthorized');
  });

  it('legacy chat: plain JSON returns {ok, result, _log} and bills the call', async () => {
    const res = await post('chat', token, { messages: [{ role: 'user', content: 'legacy hello' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, result: { output: 'w1 w2 w3 w4 w5 ', input_tokens: 2, output_tokens: 5, max_output_tokens: 1024 } });
    expect(res.body.result.charge).toBe(expectedCharge(2, 5, res.body.result.transfer_bytes));
    expect(res.body._log.length).toBeGreaterThan(0);
    const capped = await post('chat', token, { messages: [{ role: 'user', content: 'x' }], max_output_tokens: 5 });
    expect(capped.status).toBe(400);
    expect(capped.body.error.code).toBe('invalid_arguments');
    const keyinfo = (await (await fetch(`${base(seller)}/admin-keyinfo`, { headers: bearer(token) })).json()) as any;
    expect(keyinfo.usage[0]).toMatchObject({ tool: 'chat', charge: res.body.result.charge });
  });

  it('legacy chat: a JSON-RPC tools/call envelope for a tool named chat', async () => {
    const res = await post('chat', token, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'chat', arguments: { messages: [{ role: 'user', content: 'rpc' }] } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'w1 w2 w3 w4 w5 ' }], structuredContent: { model: 'gpt-fake' } } });
    const other = await post('chat', token, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'chat.completion', arguments: {} } });
    expect(other.body.error.code).toBe(-32602);
    const bad = await post('chat', token, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'chat', arguments: { messages: [] } } });
    expect(bad.body.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'invalid_arguments' } } });
  });

  it('admin-origins replaces the key override (at most 3); null or [] clears it to the operator default', async () => {
    const set = await post('admin-origins', token, { allowed_origins: ['https://Mine.example', 'http://localhost:3000/'] });
    expect(set.body).toMatchObject({ ok: true, allowed_origins: ['https://mine.example', 'http://localhost:3000'], uses_operator_default: false, max_allowed_origins: 3 });
    const tooMany = await post('admin-origins', token, { allowed_origins: ['https://a.example', 'https://b.example', 'https://c.example', 'https://d.example'] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('too_many_origins');
    const invalid = await post('admin-origins', token, { allowed_origins: ['https://a.example/path'] });
    expect(invalid.body.error.code).toBe('validation_error');
    const cleared = await post('admin-origins', token, { allowed_origins: [] });
    expect(cleared.body).toMatchObject({ allowed_origins: [], effective_origins: ['https://app.example.com:8443'], uses_operator_default: true });
    expect((await post('admin-origins', token, { allowed_origins: null })).body.uses_operator_default).toBe(true);
    expect((await post('admin-origins', null, { allowed_origins: null })).status).toBe(401);
  });
});

describe('browser Origin rules', () => {
  const init = (origin?: string, headers: Record<string, string> = {}) => rpc(seller, token, initializeBody(), { ...(origin ? { origin } : {}), ...headers });

  it('allows no Origin, loopback, and the operator default by scheme and host name (any port)', async () => {
    expect((await init()).status).toBe(200);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'https://app.example.com:8443', 'https://app.example.com', 'https://app.example.com:9999']) {
      const res = await init(origin);
      expect(res.status, origin).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
      expect(res.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    }
  });

  it('refuses other origins, another scheme, and the request Host itself', async () => {
    for (const origin of ['https://evil.example', 'http://app.example.com', 'https://app.example.com.evil.example', 'null']) {
      const res = await init(origin);
      expect(res.status, origin).toBe(403);
      expect(res.json.error.code).toBe(-32011);
    }
    const sameHost = await init('http://node.example', { host: 'node.example' });
    expect(sameHost.status).toBe(403);
    const chat = await post('chat', token, { messages: [{ role: 'user', content: 'x' }] }, { origin: 'https://evil.example' });
    expect(chat.status).toBe(403);
    expect(chat.body.error.code).toBe('origin_not_allowed');
  });

  it('answers the CORS preflight of the MCP endpoint and legacy chat', async () => {
    const res = await fetch(`${base(seller)}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, mcp-session-id' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toContain('Mcp-Session-Id');
    const chat = await fetch(`${base(seller)}/chat`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect(chat.headers.get('access-control-allow-methods')).toBe('POST');
  });

  it('a key override replaces the operator default for that key; the Origin never replaces the bearer', async () => {
    await post('admin-origins', token, { allowed_origins: ['https://evil.example'] });
    try {
      expect((await init('https://evil.example')).status).toBe(200);
      expect((await init('https://app.example.com')).status).toBe(403);
      expect((await rpc(seller, null, initializeBody(), { origin: 'https://evil.example' })).status).toBe(401);
    } finally {
      await post('admin-origins', token, { allowed_origins: null });
    }
  });
});

describe('host limits', () => {
  it('413 before the plugin runs for a body over the route limit', async () => {
    const big = 'x'.repeat(1_048_577);
    const mcp = await fetch(`${base(seller)}/mcp`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: big });
    expect(mcp.status).toBe(413);
    expect(((await mcp.json()) as any).error.code).toBe('payload_too_large');
    const origins = await post('admin-origins', token, { allowed_origins: ['x'.repeat(16_400)] });
    expect(origins.status).toBe(413);
  });

  it('429 over the per-minute limit, counted per bearer', async () => {
    const [one, two] = await Promise.all([createKey(seller, { label: 'one', contact: 'customer' }), createKey(seller, { label: 'two', contact: 'customer' })]);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await post('admin-origins', one.token, { allowed_origins: null })).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    const limited = await post('admin-origins', one.token, { allowed_origins: null });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await post('admin-origins', two.token, { allowed_origins: null })).status).toBe(200);
  });
});

describe('bootstrap keys', () => {
  it('reaps a bootstrap key unused, unbound and unfunded after 24 hours; keeps bound, funded and used ones', async () => {
    const unused = await ok(seller, 'POST', '/api/v1/plugins/mcp-minter/mint', {});
    const bound = await ok(seller, 'POST', '/api/v1/plugins/mcp-minter/mint', { contact_hash: customer.node.identity.pubkeyHash });
    const funded = await ok(seller, 'POST', '/api/v1/plugins/mcp-minter/mint', {});
    const used = await ok(seller, 'POST', '/api/v1/plugins/mcp-minter/mint', {});
    expect(unused.depositMemo).toBe(`mcp-topup:${unused.keyId}`);
    await topUp(customer, seller, funded.keyId, '0.5');
    expect((await fetch(`${base(seller)}/admin-keyinfo`, { headers: bearer(used.token) })).status).toBe(200);
    const ids = async () => (await ok(seller, 'GET', `${PLUGIN}/keys`)).keys.map((k: any) => k.key_id);
    seller.node.jobs.kick('mcp-passthrough.reap-bootstrap-keys');
    expect(await ids()).toContain(unused.keyId);
    offset += 24 * 60 * 60 * 1000 + 1000;
    seller.node.jobs.kick('mcp-passthrough.reap-bootstrap-keys');
    const left = await (async () => {
      for (let i = 0; i < 100; i++) {
        const now = await ids();
        if (!now.includes(unused.keyId)) return now;
        await new Promise((r) => setTimeout(r, 20));
      }
      return ids();
    })();
    expect(left).not.toContain(unused.keyId);
    expect(left).toEqual(expect.arrayContaining([keyId, bound.keyId, funded.keyId, used.keyId]));
    // A reaped key's id is never reused: its memo can fund no later key.
    const next = await createKey(seller, { label: 'after', contact: 'customer' });
    expect(next.key_id).toBeGreaterThan(used.keyId);
  });
});
