/**
 * mcp-passthrough operator REST (Document 2, "Operator REST"): status, config, configure with its merge rules and
 * clear_token, keys, key-create (pilot binding, currency, ttl, registered_pubkey), key-revoke, usage; provider tokens
 * encrypted at rest and never returned.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { call, configure, createKey, hashOf, ok, PLUGIN, startMcpNode } from './mcp-support.js';

let seller: TestNode;
let customer: TestNode;

beforeAll(async () => {
  [seller, customer] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
});

describe('mcp-passthrough operator REST', () => {
  it('is off until enabled: a fresh node answers 404 on its public and operator paths', async () => {
    const fresh = await startTestNode();
    try {
      expect((await fetch(`${fresh.node.baseUrl}/p/mcp-passthrough/mcp`, { method: 'POST' })).status).toBe(404);
      expect((await call(fresh, 'GET', `${PLUGIN}/status`)).status).toBe(404);
    } finally {
      await fresh.destroy();
    }
  });

  it('starts with defaults: pilot mode, the node currency, no provider, no key', async () => {
    const status = await ok(seller, 'GET', `${PLUGIN}/status`);
    expect(status).toMatchObject({ active: { provider: null, model: null }, mode: 'pilot', currency: 'VWL', providers: [], key_count: 0 });
    expect(status.presets.map((p: any) => p.id)).toEqual(expect.arrayContaining(['openai-compatible', 'openai', 'anthropic', 'ollama']));
    const config = await ok(seller, 'GET', `${PLUGIN}/config`);
    expect(config.settings).toEqual({
      mode: 'pilot',
      currency: 'VWL',
      max_output_tokens: '1024',
      allowed_origins: '',
      failover: 'on',
      retries: '1',
      cooldown_seconds: '30',
      remote_routing: 'off',
      max_hops: '3',
      max_price_per_call: '',
      max_spend_per_day: '',
      resale_markup_pct: '0',
      requests_per_minute: '0',
      tokens_per_minute: '0',
      parallel_calls: '0',
      sessions_per_key: '1',
      budget_soft_limit_pct: '80',
      balancing: 'ordered',
    });
  });

  it('configures settings, a provider with models and the active model atomically', async () => {
    const res = await configure(seller, {
      set: { max_output_tokens: '2048', allowed_origins: 'https://App.Example.com:8443, http://tools.example' },
      provider: {
        id: 'main',
        preset: 'openai-compatible',
        endpoint: 'http://127.0.0.1:9/v1/',
        label: 'Main',
        token: 'sk-secret-123',
        models: [{ id: 'm1', enabled: true, pricing_mode: 'markup', markup_pct: '25', cost_in_per_1m: '2', cost_out_per_1m: '8.5' }, { id: 'm2' }],
      },
      active: { provider: 'main', model: 'm1' },
    });
    expect(res.changed).toEqual(['set.max_output_tokens', 'set.allowed_origins', 'provider.main', 'active']);
    expect(res.active).toEqual({ provider: 'main', model: 'm1' });
    expect(res.settings.allowed_origins).toBe('https://app.example.com:8443,http://tools.example');
    const p = res.providers[0];
    expect(p).toMatchObject({ id: 'main', preset: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', label: 'Main', has_token: true });
    expect(JSON.stringify(res)).not.toContain('sk-secret-123');
    expect(p.models).toEqual([
      {
        id: 'm1',
        label: 'm1',
        enabled: true,
        pricing_mode: 'markup',
        markup_pct: '25',
        cost_in_per_1m: '2',
        cost_out_per_1m: '8.5',
        cost_xfer_per_gb: '0',
        cost_currency: null,
        manual_in_per_1m: '0',
        manual_out_per_1m: '0',
        manual_xfer_per_gb: '0',
        max_output_tokens: null,
      },
      expect.objectContaining({ id: 'm2', enabled: false, pricing_mode: 'markup' }),
    ]);
  });

  it('keeps the token encrypted at rest', async () => {
    await seller.stop();
    const db = new Database(`${seller.dataDir}/node.db`, { readonly: true });
    const row = db.prepare("SELECT token_enc FROM mcp_providers WHERE id = 'main'").get() as { token_enc: string };
    db.close();
    expect(row.token_enc).toMatch(/^v1\./);
    expect(row.token_enc).not.toContain('sk-secret');
    await seller.restart();
    expect((await ok(seller, 'GET', `${PLUGIN}/config`)).providers[0].has_token).toBe(true);
  });

  it('merges provider fields, keeps the token when none is given, and clear_token wins over a new one', async () => {
    const merged = await configure(seller, { provider: { id: 'main', label: 'Renamed', token: '' } });
    expect(merged.providers[0]).toMatchObject({ label: 'Renamed', endpoint: 'http://127.0.0.1:9/v1', has_token: true });
    expect(merged.providers[0].models.map((m: any) => m.id)).toEqual(['m1', 'm2']);
    const cleared = await configure(seller, { provider: { id: 'main', token: 'sk-new', clear_token: true } });
    expect(cleared.providers[0].has_token).toBe(false);
    const again = await configure(seller, { provider: { id: 'main', token: 'sk-again' } });
    expect(again.providers[0].has_token).toBe(true);
  });

  it('replaces the model collection when models are given; the vanished active model is no longer active', async () => {
    const res = await configure(seller, { provider: { id: 'main', models: [{ id: 'm3', enabled: true, pricing_mode: 'manual', manual_in_per_1m: '1', manual_out_per_1m: '2' }] } });
    expect(res.providers[0].models.map((m: any) => m.id)).toEqual(['m3']);
    expect(res.active).toEqual({ provider: 'main', model: null });
    expect(res.warnings.join(' ')).toContain('no longer a row');
  });

  it('selects a model supplied in the same request, but never creates one by naming it', async () => {
    const res = await configure(seller, {
      provider: { id: 'second', preset: 'anthropic', token: 'sk-ant', models: [{ id: 'claude-x', enabled: true }] },
      active: { provider: 'second', model: 'claude-x' },
    });
    expect(res.active).toEqual({ provider: 'second', model: 'claude-x' });
    expect(res.providers.find((p: any) => p.id === 'second')).toMatchObject({ endpoint: 'https://api.anthropic.com', has_token: true });
    const missing = await call(seller, 'POST', `${PLUGIN}/configure`, { active: { provider: 'main', model: 'nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('model_not_found');
    const noProvider = await call(seller, 'POST', `${PLUGIN}/configure`, { active: { provider: 'ghost' } });
    expect(noProvider.body.error.code).toBe('provider_not_found');
  });

  it('refuses a bad request as a whole: nothing of it is applied', async () => {
    const before = await ok(seller, 'GET', `${PLUGIN}/config`);
    const cases: [Record<string, unknown>, string][] = [
      [{ set: { mode: 'closed' } }, 'invalid_setting'],
      [{ set: { colour: 'blue' } }, 'unknown_setting'],
      // Names every object answers to are no settings (toString was stored, hasOwnProperty a 500, constructor had no message).
      [{ set: { toString: 'x' } }, 'unknown_setting'],
      [{ set: { hasOwnProperty: 'x' } }, 'unknown_setting'],
      [{ set: { constructor: 'x' } }, 'unknown_setting'],
      [{ set: { max_output_tokens: '40000' } }, 'invalid_setting'],
      [{ set: { mode: 'open' }, provider: { id: 'x', preset: 'nope' } }, 'unknown_preset'],
      [{ set: { mode: 'open' }, provider: { id: 'x', preset: 'openai-compatible' } }, 'missing_field'],
      [{ provider: { id: 'main', endpoint: 'http://user:pw@host/v1' } }, 'validation_error'],
      [{ provider: { id: 'main', models: [{ id: 'a', manual_in_per_1m: '0.000000001' }] } }, 'validation_error'],
      [{ provider: { id: 'main', models: [{ id: 'a' }, { id: 'a' }] } }, 'validation_error'],
      [{ provider: { id: 'main', models: [{ id: 'a', pricing_mode: 'markup', cost_currency: 'USD' }] } }, 'currency_mismatch'],
      [{}, 'validation_error'],
    ];
    for (const [body, code] of cases) {
      const res = await call(seller, 'POST', `${PLUGIN}/configure`, body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
    }
    expect(await ok(seller, 'GET', `${PLUGIN}/config`)).toEqual(before);
  });

  it("refuses an upstream that is the node itself; the llamacpp preset's default is not the node's default port", async () => {
    const port = Number(new URL(seller.node.baseUrl).port);
    for (const endpoint of [`http://127.0.0.1:${port}/v1`, `http://localhost:${port}/v1`, `https://[::1]:${port}/v1`, `${seller.node.addresses().https}/v1`]) {
      const res = await call(seller, 'POST', `${PLUGIN}/configure`, { provider: { id: 'loop', preset: 'llamacpp', endpoint } });
      expect(res.status, endpoint).toBe(400);
      expect(res.body.error, endpoint).toMatchObject({ code: 'endpoint_is_self', field: 'provider.endpoint', message: expect.stringContaining('is this node itself') });
    }
    // A node whose public address is set: that address is the node too, whatever port it names.
    await ok(seller, 'PUT', '/api/v1/system/settings', { hostname: 'https://node.example:8443' });
    try {
      const res = await call(seller, 'POST', `${PLUGIN}/configure`, { provider: { id: 'loop', preset: 'llamacpp', endpoint: 'https://node.example:8443/v1' } });
      expect(res.body.error.code).toBe('endpoint_is_self');
    } finally {
      await ok(seller, 'PUT', '/api/v1/system/settings', { hostname: '' });
    }
    const presets = (await ok(seller, 'GET', `${PLUGIN}/status`)).presets as { id: string; default_endpoint: string | null }[];
    expect(presets.find((p) => p.id === 'llamacpp')!.default_endpoint).toBe('http://127.0.0.1:8081/v1');
    expect(presets.map((p) => p.default_endpoint)).not.toContain('http://127.0.0.1:8080/v1');
    // Another port of this machine is a model server, not the node.
    const other = await call(seller, 'POST', `${PLUGIN}/configure`, { provider: { id: 'local', preset: 'llamacpp', endpoint: `http://127.0.0.1:${port + 1}/v1` } });
    expect(other.status).toBe(200);
  });

  it('creates keys: pilot mode needs an accepted contact, the currency is the settlement currency', async () => {
    const noContact = await call(seller, 'POST', `${PLUGIN}/key-create`, { label: 'anon' });
    expect(noContact.body.error.code).toBe('contact_required');
    const wrongCurrency = await call(seller, 'POST', `${PLUGIN}/key-create`, { label: 'x', contact: 'customer', currency: 'USD' });
    expect(wrongCurrency.body.error.code).toBe('currency_mismatch');
    const unknown = await call(seller, 'POST', `${PLUGIN}/key-create`, { label: 'x', contact: 'nobody' });
    expect(unknown.body.error.code).toBe('contact_not_found');
    const missing = await call(seller, 'POST', `${PLUGIN}/key-create`, {});
    expect(missing.body.error.code).toBe('missing_field');
    const pubkey = Buffer.alloc(32, 7);
    const key = await createKey(seller, { label: 'Customer one', contact: 'customer', currency: 'vwl', ttl: 3600, registered_pubkey: pubkey.toString('hex') });
    expect(key).toMatchObject({
      key_id: 1,
      label: 'Customer one',
      contact: { pubkey_hash: hashOf(customer), name: 'customer', status: 'accepted' },
      funding: { mode: 'prepaid', currency: 'VWL', deposit_memo: 'mcp-topup:1', contact: hashOf(customer) },
      currency: 'VWL',
      registered_pubkey: pubkey.toString('base64url'),
    });
    expect(key.token).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(key.expires_at) - Date.parse(key.created_at)).toBe(3600_000);
    const badTtl = await call(seller, 'POST', `${PLUGIN}/key-create`, { label: 'x', contact: 'customer', ttl: 5 });
    expect(badTtl.body.error.code).toBe('validation_error');
  });

  it('lists keys without tokens; revokes with warnings; lists usage with its bounds', async () => {
    const { keys } = await ok(seller, 'GET', `${PLUGIN}/keys`);
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain('mcp_');
    expect(keys[0]).toMatchObject({ key_id: 1, status: 'active', balance: '0', deposit_memo: 'mcp-topup:1' });
    const revoked = await ok(seller, 'POST', `${PLUGIN}/key-revoke`, { id: 1 });
    expect(revoked).toMatchObject({ id: 1, revoked: true, warnings: [] });
    const twice = await ok(seller, 'POST', `${PLUGIN}/key-revoke`, { id: 1 });
    expect(twice.warnings).toEqual(['the key was already revoked']);
    expect((await call(seller, 'POST', `${PLUGIN}/key-revoke`, { id: 99 })).body.error.code).toBe('key_not_found');
    expect((await call(seller, 'POST', `${PLUGIN}/key-revoke`, { id: 'one' })).status).toBe(400);
    expect(await ok(seller, 'GET', `${PLUGIN}/usage`)).toEqual({ limit: 50, offset: 0, total: 0, key_id: null, usage: [], topups: [] });
    expect(await ok(seller, 'GET', `${PLUGIN}/usage-summary`)).toEqual({ days: [], pagination: { total: 0, limit: 1000, offset: 0 } });
    expect((await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { limit: 500, key_id: 1 })).limit).toBe(500);
    expect((await call(seller, 'GET', `${PLUGIN}/usage`, undefined, { limit: 501 })).status).toBe(400);
    expect((await call(seller, 'GET', `${PLUGIN}/usage`, undefined, { limit: 0 })).status).toBe(400);
    expect((await call(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: 42 })).body.error.code).toBe('key_not_found');
    expect((await ok(seller, 'GET', `${PLUGIN}/status`)).key_count).toBe(0);
  });

  it('open mode creates unbound keys with a warning', async () => {
    await configure(seller, { set: { mode: 'open' } });
    const key = await createKey(seller, { label: 'open' });
    expect(key.contact).toBeNull();
    expect(key.warnings.join(' ')).toContain('not bound');
    await configure(seller, { set: { mode: 'pilot' } });
  });
});
