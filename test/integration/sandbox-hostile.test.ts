/**
 * Hostile third-party plugins (test/fixtures/plugins/hostile-*), all installed, signed, enabled and running on one
 * node at once. Each attack is contained and refused, and meanwhile signed core requests keep succeeding: at least
 * 1,000 of them, all answered 200, spread over the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok, waitFor } from '../support/api.js';
import { clientWithKey, type TestNode } from '../support/node.js';
import { bundleOf, enable, fixture, install, row, sandboxNode } from './sandbox-support.js';

const HOSTILE = [
  'hostile-loop',
  'hostile-memory',
  'hostile-recursion',
  'hostile-output',
  'hostile-escape',
  'hostile-import',
  'hostile-pollute',
  'hostile-thief',
  'hostile-namespace',
  'hostile-core-rail',
  'hostile-rail',
  'hostile-flood',
];

let t: TestNode;
/** Signed core requests running in the background for the whole file. */
let traffic: { stop: () => Promise<{ sent: number; failures: string[] }> };

function coreTraffic(client: ReturnType<typeof clientWithKey>): typeof traffic {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const worker = async (): Promise<void> => {
    // Keeps going until stopped, and past 1,000 requests in all.
    while (running || sent < 1000) {
      sent++;
      const res = await client.get<{ success: boolean }>('/api/v1/contacts');
      if (res.status !== 200 || !res.body.success) failures.push(`${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  const workers = Array.from({ length: 4 }, () => worker());
  return {
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return { sent, failures };
    },
  };
}

async function failure(path: string, body: unknown = {}): Promise<{ status: number; code: string; reason: string | undefined; message: string }> {
  const res = await call(t, 'POST', path, body);
  return { status: res.status, code: res.body.error?.code, reason: res.body.error?.reason, message: res.body.error?.message };
}

beforeAll(async () => {
  const made = await sandboxNode();
  t = made.t;
  for (const name of ['hello', ...HOSTILE]) await install(t, bundleOf(fixture(name), made.author));
  // Enough memory to build a 100 MB answer, so that the answer's size is what is refused.
  await ok(t, 'POST', '/api/v1/plugins/hostile-output/limits', { memory_mb: 512 });
  // The per-key rate limit is not what this file tests: the core traffic runs as fast as the node answers.
  await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
  await ok(t, 'POST', '/api/v1/plugins/hostile-output/limits', { cpu_ms: 5000 });
  // The memory bombs must meet the memory limit first: with the default 200 ms of CPU, the garbage collector's work near
  // the limit on a loaded machine made the CPU limit stop them first (seen in CI).
  await ok(t, 'POST', '/api/v1/plugins/hostile-memory/limits', { cpu_ms: 10_000 });
  const key = await ok(t, 'POST', '/api/v1/keys', { name: 'core traffic', permissions: ['contacts:read'] });
  traffic = coreTraffic(clientWithKey(t.node, key.key_id, key.secret));
  await enable(t, 'hello', ...HOSTILE);
});

afterAll(async () => {
  await t.destroy();
});

describe('plugins that break the rules at start are refused with their reason', () => {
  it('a static import of anything but sdk/sandbox.js', async () => {
    const r = await row(t, 'hostile-import');
    expect(r).toMatchObject({ enabled: true, status: 'failed' });
    expect(r.error).toMatch(/imports "node:fs": a sandboxed plugin imports only sdk\/sandbox\.js/);
  });

  it('a route outside its namespace, which is never mounted', async () => {
    const r = await row(t, 'hostile-namespace');
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/route outside its namespace/);
    expect((await call(t, 'GET', '/api/v1/plugins/hostile-namespace/fine')).status).toBe(404);
    const res = await call(t, 'POST', '/api/v1/wallet/send', {});
    expect(res.body.data?.stolen).toBeUndefined();
  });

  it('a payback rail under a core id, which stays the core rail', async () => {
    const r = await row(t, 'hostile-core-rail');
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/payback_rail bank_wire was refused: "bank_wire" is a core rail id and cannot be shadowed/);
    const types = await ok(t, 'GET', '/api/v1/payback-methods/types');
    const bankWire = types.types.filter((x: { id: string }) => x.id === 'bank_wire');
    expect(bankWire).toHaveLength(1);
    expect(bankWire[0]).toMatchObject({ core: true });
    expect(bankWire[0].label).not.toBe('Not the real one');
  });

  it('while the well-behaved ones start', async () => {
    for (const name of ['hello', 'hostile-loop', 'hostile-escape', 'hostile-flood', 'hostile-rail']) expect((await row(t, name)).status, name).toBe('active');
  });
});

describe('escape attempts', () => {
  it('require, process, import(), fetch, eval, Function, timers, WebAssembly, shared memory, the host reference: all refused', async () => {
    const attempts = await ok(t, 'GET', '/api/v1/plugins/hostile-escape/attempts');
    const { polluted_here, ...rest } = attempts;
    for (const [what, outcome] of Object.entries(rest)) expect(outcome, what).toMatch(/^refused: /);
    // Another plugin polluted Object.prototype in its own isolate: nothing of it shows here.
    expect(polluted_here).toBe('undefined');
  });

  it('an uncaught eval or require fails the call with plugin_error', async () => {
    for (const path of ['eval', 'require']) {
      const f = await failure(`/api/v1/plugins/hostile-escape/${path}`);
      expect(f, path).toMatchObject({ status: 500, code: 'plugin_error', reason: 'threw' });
      expect(f.message).toMatch(/ReferenceError/);
    }
  });
});

describe('runaway code', () => {
  it('an infinite loop, one after an await, and an await that never ends are each stopped; the third failure stops the plugin', async () => {
    expect(await failure('/api/v1/plugins/hostile-loop/spin')).toMatchObject({ status: 500, code: 'plugin_error', reason: 'cpu_limit' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-loop/ok')).toEqual({ ok: true });
    expect(await failure('/api/v1/plugins/hostile-loop/spin-later')).toMatchObject({ status: 500, code: 'plugin_error', reason: 'cpu_limit' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-loop/ok')).toEqual({ ok: true });
    expect((await row(t, 'hostile-loop')).sandbox.failures).toBe(2);
    expect(await failure('/api/v1/plugins/hostile-loop/hang')).toMatchObject({ status: 500, code: 'plugin_error', reason: 'wall_limit' });
    const after = await call(t, 'GET', '/api/v1/plugins/hostile-loop/ok');
    expect(after.status).toBe(503);
    expect(after.body.error.code).toBe('plugin_unavailable');
    const r = await row(t, 'hostile-loop');
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/3 failures within 10 minutes/);
  });

  it('a memory bomb is stopped at the isolate memory limit', async () => {
    expect(await failure('/api/v1/plugins/hostile-memory/bomb')).toMatchObject({ status: 500, code: 'plugin_error', reason: 'memory_limit' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-memory/ok')).toEqual({ ok: true });
    expect(await failure('/api/v1/plugins/hostile-memory/strings')).toMatchObject({ status: 500, code: 'plugin_error', reason: 'memory_limit' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-memory/ok')).toEqual({ ok: true });
  });

  it('a deep recursion overflows the isolate stack only', async () => {
    const f = await failure('/api/v1/plugins/hostile-recursion/deep');
    expect(f).toMatchObject({ status: 500, code: 'plugin_error', reason: 'threw' });
    expect(f.message).toMatch(/RangeError: Maximum call stack size exceeded/);
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-recursion/ok')).toEqual({ ok: true });
    expect(await failure('/api/v1/plugins/hostile-recursion/deep-async')).toMatchObject({ status: 500, code: 'plugin_error' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-recursion/ok')).toEqual({ ok: true });
  });

  it('a 100 MB answer is refused before it leaves the isolate, and so is one that is not JSON', async () => {
    const f = await failure('/api/v1/plugins/hostile-output/huge');
    expect(f).toMatchObject({ status: 500, code: 'plugin_error', reason: 'output_limit' });
    expect(f.message).toMatch(/larger than 1048576/);
    expect(await failure('/api/v1/plugins/hostile-output/huge-reply')).toMatchObject({ reason: 'output_limit' });
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-output/ok')).toEqual({ ok: true });
    expect(await failure('/api/v1/plugins/hostile-output/not-json')).toMatchObject({ status: 500, reason: 'bad_output' });
    expect((await call(t, 'GET', '/api/v1/plugins/hostile-output/ok')).status).toBe(503);
  });
});

describe('what crosses the boundary', () => {
  it('prototype pollution of anything the host passes in, or of what the plugin answers, stays in the isolate', async () => {
    const answer = await ok(t, 'POST', '/api/v1/plugins/hostile-pollute/answer');
    expect(Object.keys(answer)).toEqual(['constructor', 'plain']);
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
    expect(await ok(t, 'POST', '/api/v1/plugins/hostile-pollute/request', { a: 1 })).toEqual({ ctxFrozen: true, seen: 'through the body' });
    expect(await ok(t, 'POST', '/api/v1/plugins/hostile-pollute/store')).toEqual({});
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/status')).toMatchObject({ name: 'hello' });
  });

  it("another plugin's store cannot be named", async () => {
    await ok(t, 'PUT', '/api/v1/plugins/hello/notes/first', { text: 'private' });
    const loot = await ok(t, 'GET', '/api/v1/plugins/hostile-thief/loot');
    for (const [key, value] of Object.entries(loot.tries)) expect(value, key).toBeNull();
    expect(loot.keys).toEqual([]);
    expect(loot.gateway).toBe('permission_denied');
    expect(await ok(t, 'GET', '/api/v1/plugins/hello/notes/first')).toEqual({ text: 'private' });
  });

  it('a public route flood beyond its rate is answered 429 by the node, before the plugin runs', async () => {
    // The rate counts before the size is checked: this refused request is one of the five.
    const tooBig = await fetch(`${t.node.baseUrl}/p/hostile-flood/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(100) }) });
    expect(tooBig.status).toBe(413);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${t.node.baseUrl}/p/hostile-flood/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      await res.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-flood/hits')).toEqual({ hits: 4 });
  });
});

describe('a hostile payback rail', () => {
  const create = (mode: string) =>
    call(t, 'POST', '/api/v1/payback-methods', { type: 'slow_rail', label: 'slow', currency: 'USD', fields: { mode } });

  it('a validate that loops, throws or reaches for the host fails its input with rail_failed; core rails keep working', async () => {
    for (const mode of ['loop', 'throw', 'store']) {
      const res = await create(mode);
      expect(res.status, mode).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'validation_error', data: { errors: [{ field: 'fields', code: 'rail_failed' }] } });
      // Its isolate is made again after each failure; the next input waits for that, so that every failure counts.
      await waitFor(() => row(t, 'hostile-rail'), (r) => r.sandbox.isolate !== 'restarting', 'the rail isolate');
    }
    const r = await row(t, 'hostile-rail');
    expect(r.status).toBe('failed');
    expect((await create('none')).body.data.errors).toEqual([{ field: 'fields', code: 'rail_failed', message: expect.any(String) }]);
    const core = await call(t, 'POST', '/api/v1/payback-methods', {
      type: 'bank_wire',
      label: 'EUR account',
      currency: 'EUR',
      fields: { rail: 'sepa', recipient_name: 'Jane Doe', iban: 'DE89370400440532013000' },
    });
    expect(core.status).toBe(201);
  });
});

describe('the node throughout', () => {
  it('answered every signed core request, at least 1,000 of them, while the hostile plugins ran', async () => {
    const { sent, failures } = await traffic.stop();
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(1000);
  });

  it('comes back with every well-behaved plugin after a restart, the failed ones running again', async () => {
    await ok(t, 'POST', '/api/v1/system/restart');
    for (const name of ['hello', 'hostile-loop', 'hostile-output', 'hostile-rail']) expect((await row(t, name)).status, name).toBe('active');
    expect(await ok(t, 'GET', '/api/v1/plugins/hostile-loop/ok')).toEqual({ ok: true });
    expect((await row(t, 'hostile-import')).status).toBe('failed');
  });
});
