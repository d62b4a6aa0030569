import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../builtin-plugins/index.js';
import type { SystemService } from '../../builtin-plugins/system/api.js';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import { loadConfig } from '../../kernel/config.js';
import { startNode } from '../../kernel/node.js';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { nodeVersion } from '../../kernel/version.js';
import { definePlugin, type PluginContext } from '../../sdk/index.js';
import { clientWithKey, startTestNode, tempDataDir, type TestNode } from '../support/node.js';

interface Envelope<T = Record<string, unknown>> {
  success: boolean;
  data: T;
  error?: { code: string; message: string } & Record<string, unknown>;
  timestamp: string;
  request_id: string;
}

interface Status {
  status: string;
  version: string;
  environment: string;
  database: string;
  processors: { p2p: boolean; transaction: boolean; cleanup: boolean };
  update: Record<string, unknown>;
  analytics: Record<string, unknown>;
  timestamp: string;
}

interface JobState {
  name: string;
  processor: string | null;
  running: boolean;
}

interface Metrics {
  uptime_seconds: number;
  started_at: string;
  version: string;
  retired: boolean;
  memory: { rss: number; heap_used: number; heap_total: number; external: number };
  event_loop_lag_ms: { mean: number; p99: number; max: number };
  http: { requests_total: number; by_status: Record<string, number> };
  jobs: { running: boolean; processors: Status['processors']; states: JobState[] };
  plugins: Record<string, unknown>;
  timestamp: string;
}

const isoString = (v: unknown): boolean => typeof v === 'string' && new Date(v).toISOString() === v;

async function status(t: TestNode): Promise<Status> {
  const res = await t.admin.get<Envelope<Status>>('/api/v1/system/status');
  expect(res.status).toBe(200);
  return res.body.data;
}

async function metrics(t: TestNode): Promise<Metrics> {
  const res = await t.admin.get<Envelope<Metrics>>('/api/v1/system/metrics');
  expect(res.status).toBe(200);
  return res.body.data;
}

const ALL_STOPPED = { p2p: false, transaction: false, cleanup: false };

describe('system status and metrics', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('GET /system/status has exactly the fields of Document 1 with their types', async () => {
    const res = await t.admin.get<Envelope<Status>>('/api/v1/system/status');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'request_id', 'success', 'timestamp']);
    const s = res.body.data;
    expect(Object.keys(s).sort()).toEqual(['analytics', 'database', 'environment', 'processors', 'status', 'timestamp', 'update', 'version']);
    expect(s.status).toBe('operational');
    expect(s.version).toBe(nodeVersion());
    expect(s.environment).toBe('production');
    expect(s.database).toBe('healthy');
    expect(Object.keys(s.processors).sort()).toEqual(['cleanup', 'p2p', 'transaction']);
    expect(Object.values(s.processors).every((v) => typeof v === 'boolean')).toBe(true);
    expect(s.update).toEqual({
      available: false,
      current_version: nodeVersion(),
      latest_version: null,
      last_checked: null,
      source: null,
      error: null,
    });
    expect(s.analytics).toEqual({ enabled: false, consent_pending: true, last_submitted: null, opt_in_at: null });
    expect(isoString(s.timestamp)).toBe(true);
  });

  it('processor flags reflect the jobs that really run: cleanup runs, each flag matches the job table', async () => {
    const [s, m] = [await status(t), await metrics(t)];
    expect(s.processors.cleanup).toBe(true);
    for (const name of ['p2p', 'transaction', 'cleanup'] as const) {
      expect(s.processors[name]).toBe(m.jobs.states.some((j) => j.processor === name && j.running));
    }
  });

  it('GET /system/metrics reports uptime, memory, HTTP counters, event-loop lag and jobs', async () => {
    const m = await metrics(t);
    expect(Object.keys(m).sort()).toEqual(
      ['event_loop_lag_ms', 'http', 'jobs', 'memory', 'peer_traffic', 'plugins', 'retired', 'started_at', 'timestamp', 'uptime_seconds', 'version'].sort(),
    );
    expect(m.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(isoString(m.started_at)).toBe(true);
    expect(m.version).toBe(nodeVersion());
    expect(m.retired).toBe(false);
    expect(m.memory.rss).toBeGreaterThan(0);
    expect(m.memory.heap_used).toBeGreaterThan(0);
    expect(m.event_loop_lag_ms.mean).toBeGreaterThanOrEqual(0);
    expect(m.http.requests_total).toBeGreaterThanOrEqual(3);
    expect(m.http.by_status['2xx']).toBeGreaterThanOrEqual(3);
    expect(m.jobs.running).toBe(true);
    expect(m.jobs.states).toContainEqual(expect.objectContaining({ name: 'kernel.nonce-prune', processor: 'cleanup', running: true }));
    expect(m.jobs.states).toContainEqual(expect.objectContaining({ name: 'system.update-check', processor: null }));
    expect(typeof m.plugins).toBe('object');
  });

  it('counts error answers by status class', async () => {
    const before = (await metrics(t)).http.by_status['4xx'] ?? 0;
    const bad = await t.admin.post<Envelope>('/api/v1/system/retire', {});
    expect(bad.status).toBe(400);
    expect((await metrics(t)).http.by_status['4xx']).toBe(before + 1);
  });
});

describe('system processors: shutdown and start', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('shutdown stops every processor; status shows all false; a second shutdown terminates nothing', async () => {
    const jobCount = (await metrics(t)).jobs.states.length;
    const res = await t.admin.post<Envelope>('/api/v1/system/shutdown');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Background processors stopped', processes_terminated: jobCount, processors: ALL_STOPPED });
    expect((await status(t)).processors).toEqual(ALL_STOPPED);
    expect((await metrics(t)).jobs.running).toBe(false);

    const again = await t.admin.post<Envelope>('/api/v1/system/shutdown');
    expect(again.body.data).toEqual({ message: 'Background processors were already stopped', processes_terminated: 0, processors: ALL_STOPPED });
  });

  it('start schedules them again: cleanup is back; a second start starts nothing', async () => {
    const res = await t.admin.post<Envelope<{ message: string; processes_started: number; processors: Status['processors'] }>>('/api/v1/system/start');
    expect(res.status).toBe(200);
    expect(res.body.data.message).toBe('Background processors started');
    expect(res.body.data.processes_started).toBe((await metrics(t)).jobs.states.length);
    expect(res.body.data.processors.cleanup).toBe(true);
    expect((await status(t)).processors.cleanup).toBe(true);

    const again = await t.admin.post<Envelope<{ message: string; processes_started: number }>>('/api/v1/system/start');
    expect(again.body.data).toMatchObject({ message: 'Background processors are already running', processes_started: 0 });
  });

  it('a node process started again after a shutdown runs its processors (shutdown is not persisted)', async () => {
    expect((await t.admin.post<Envelope>('/api/v1/system/shutdown')).status).toBe(200);
    await t.restart();
    expect((await status(t)).processors.cleanup).toBe(true);
  });
});

describe('system retirement', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('retire and unretire need confirm to be boolean true', async () => {
    for (const path of ['/api/v1/system/retire', '/api/v1/system/unretire']) {
      for (const body of [undefined, {}, { confirm: 'true' }, { confirm: 1 }, { confirm: false }]) {
        const res = await t.admin.post<Envelope>(path, body);
        expect(res.status).toBe(400);
        expect(res.body.error?.code).toBe('confirmation_required');
      }
    }
    expect((await metrics(t)).retired).toBe(false);
  });

  it('retire stops the processors, persists across restarts and blocks start until unretire', async () => {
    const jobCount = (await metrics(t)).jobs.states.length;
    const res = await t.admin.post<Envelope<Record<string, unknown>>>('/api/v1/system/retire', { confirm: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['message', 'processes_terminated', 'retired', 'tor_access_warning']);
    expect(res.body.data).toMatchObject({ retired: true, processes_terminated: jobCount });
    expect(typeof res.body.data.message).toBe('string');
    expect(res.body.data.tor_access_warning).toMatch(/Tor/);
    expect((await status(t)).processors).toEqual(ALL_STOPPED);
    expect((await metrics(t)).retired).toBe(true);

    const start = await t.admin.post<Envelope>('/api/v1/system/start');
    expect(start.status).toBe(409);
    expect(start.body.error?.code).toBe('start_error');

    await t.restart();
    expect((await metrics(t)).retired).toBe(true);
    expect((await status(t)).processors).toEqual(ALL_STOPPED);

    const again = await t.admin.post<Envelope<Record<string, unknown>>>('/api/v1/system/retire', { confirm: true });
    expect(again.body.data).toMatchObject({ retired: true, processes_terminated: 0, message: 'The node was already retired' });
  });

  it('unretire resumes the processors', async () => {
    const res = await t.admin.post<Envelope>('/api/v1/system/unretire', { confirm: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Node unretired: processors resumed', retired: false });
    expect((await status(t)).processors.cleanup).toBe(true);
    expect((await metrics(t)).retired).toBe(false);
  });
});

describe('system restart', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('reloads the plugins in place, answers after the reload and keeps serving with the same settings', async () => {
    const put = await t.admin.put<Envelope>('/api/v1/system/settings', { max_output: 9 });
    expect(put.status).toBe(200);
    const res = await t.admin.post<Envelope<{ message: string; restarted: boolean; duration_ms: number; plugins: { name: string; status: string }[] }>>(
      '/api/v1/system/restart',
    );
    expect(res.status).toBe(200);
    expect(res.body.data.message).toBe('Node restarted: plugins reloaded');
    expect(res.body.data.restarted).toBe(true);
    expect(res.body.data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.data.plugins).toContainEqual(expect.objectContaining({ name: 'system', status: 'active' }));

    expect((await status(t)).status).toBe('operational');
    const settings = await t.admin.get<Envelope<{ settings: Record<string, unknown> }>>('/api/v1/system/settings');
    expect(settings.body.data.settings.max_output).toBe(9);
    expect((await status(t)).processors.cleanup).toBe(true);

    // Two at once share one reload; then again with requests in between: each generation serves.
    const together = await Promise.all([t.admin.post<Envelope>('/api/v1/system/restart'), t.admin.post<Envelope>('/api/v1/system/restart')]);
    expect(together.map((r) => r.status)).toEqual([200, 200]);
    expect((await status(t)).status).toBe('operational');
    for (let i = 0; i < 2; i++) {
      expect((await t.admin.post<Envelope>('/api/v1/system/restart')).status).toBe(200);
      expect((await t.admin.get<Envelope>('/api/v1/system/metrics')).status).toBe(200);
    }
  });
});

/**
 * Sync handlers and metrics sections come from feature plugins through the `system` service. To test the
 * mechanism whatever plugins ship, these nodes load only the system plugin, plus a fixture plugin for one of them.
 */
async function isolatedNode(extra: BuiltinPlugin[]): Promise<{ admin: SignedClient; stop: () => Promise<void> }> {
  const dataDir = tempDataDir();
  const env = { NODE_DATA_DIR: dataDir, NODE_PORT: '0', NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true' };
  const systemPlugin = builtinPlugins.find((p) => p.manifest.name === 'system')!;
  const node = await startNode(loadConfig(env), { builtins: [systemPlugin, ...extra], env });
  const c = node.cliCredentials();
  return {
    admin: new SignedClient({ baseUrl: c.base_url, keyId: c.key_id, secret: c.secret }),
    stop: async () => {
      await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('system sync and the system service', () => {
  let fixtureNode: Awaited<ReturnType<typeof isolatedNode>>;
  let bare: Awaited<ReturnType<typeof isolatedNode>>;
  const fixture: BuiltinPlugin = {
    manifest: { name: 'system-fixture', version: '0.0.1', requires: ['system'], enabled_by_default: true },
    definition: definePlugin({
      setup(ctx: PluginContext) {
        const system = ctx.services.use<SystemService>('system');
        system.registerSyncHandler('contacts', () => ({ synced: 2 }));
        system.registerSyncHandler('balances', () => {
          throw new Error('disk on fire');
        });
        system.registerMetrics('fixture', () => ({ widgets: 3 }));
        system.registerAnalyticsReporter({ lastSubmitted: () => '2026-01-02T03:04:05.000Z' });
      },
    }),
  };
  beforeAll(async () => {
    [fixtureNode, bare] = await Promise.all([isolatedNode([fixture]), isolatedNode([])]);
  });
  afterAll(async () => {
    await Promise.all([fixtureNode.stop(), bare.stop()]);
  });

  it('answers 400 sync_unavailable naming the missing plugin when no handler is registered', async () => {
    const contacts = await bare.admin.post<Envelope>('/api/v1/system/sync', { type: 'contacts' });
    expect(contacts.status).toBe(400);
    expect(contacts.body.error).toMatchObject({ code: 'sync_unavailable', types: ['contacts'], plugins: ['contacts'] });
    expect(contacts.body.error?.message).toContain('contacts plugin');

    const all = await bare.admin.post<Envelope>('/api/v1/system/sync', {});
    expect(all.status).toBe(400);
    expect(all.body.error).toMatchObject({ code: 'sync_unavailable', types: ['contacts', 'transactions', 'balances'], plugins: ['contacts', 'chain', 'ledger'] });

    const bogus = await bare.admin.post<Envelope>('/api/v1/system/sync', { type: 'everything' });
    expect(bogus.status).toBe(400);
    expect(bogus.body.error?.code).toBe('validation_error');
  });

  it('runs registered handlers: one type, all available types, a failing handler gives sync_error', async () => {
    const { admin } = fixtureNode;
    const one = await admin.post<Envelope>('/api/v1/system/sync', { type: 'contacts' });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ message: 'Sync completed', type: 'contacts', results: { contacts: { synced: 2 } }, skipped: [] });

    const missing = await admin.post<Envelope>('/api/v1/system/sync', { type: 'transactions' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'sync_unavailable', types: ['transactions'], plugins: ['chain'] });

    const failing = await admin.post<Envelope>('/api/v1/system/sync', { type: 'balances' });
    expect(failing.status).toBe(500);
    expect(failing.body.error?.code).toBe('sync_error');
    expect(failing.body.error?.message).not.toContain('disk on fire');

    const all = await admin.post<Envelope>('/api/v1/system/sync');
    expect(all.status).toBe(500);
    expect(all.body.error).toMatchObject({ code: 'sync_error', type: 'balances', completed: ['contacts'] });
  });

  it('runs the available handlers of a sync of all types and lists the skipped ones', async () => {
    const quiet: BuiltinPlugin = {
      manifest: { name: 'system-fixture-quiet', version: '0.0.1', requires: ['system'], enabled_by_default: true },
      definition: definePlugin({
        setup(ctx: PluginContext) {
          ctx.services.use<SystemService>('system').registerSyncHandler('transactions', () => ({ verified: 5 }));
        },
      }),
    };
    const n = await isolatedNode([quiet]);
    try {
      const all = await n.admin.post<Envelope>('/api/v1/system/sync', {});
      expect(all.status).toBe(200);
      expect(all.body.data).toEqual({ message: 'Sync completed', type: 'all', results: { transactions: { verified: 5 } }, skipped: ['contacts', 'balances'] });
    } finally {
      await n.stop();
    }
  });

  it('shows plugin metrics sections and the analytics last_submitted a plugin reports, also after a restart', async () => {
    const { admin } = fixtureNode;
    const m = async () => (await admin.get<Envelope<Metrics>>('/api/v1/system/metrics')).body.data.plugins;
    expect(await m()).toEqual({ fixture: { widgets: 3 } });
    expect((await bare.admin.get<Envelope<Metrics>>('/api/v1/system/metrics')).body.data.plugins).toEqual({});
    const st = await admin.get<Envelope<Status>>('/api/v1/system/status');
    expect(st.body.data.analytics.last_submitted).toBe('2026-01-02T03:04:05.000Z');
    expect((await admin.post<Envelope>('/api/v1/system/restart')).status).toBe(200);
    expect(await m()).toEqual({ fixture: { widgets: 3 } });
    expect((await admin.post<Envelope>('/api/v1/system/sync', { type: 'contacts' })).status).toBe(200);
  });
});

describe('system scopes', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  async function keyWith(permissions: string[]) {
    const res = await t.admin.post<Envelope<{ key_id: string; secret: string }>>('/api/v1/keys', { name: `k-${permissions.join('-')}`, permissions });
    expect(res.status).toBe(201);
    return clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
  }

  it('wallet:read cannot read system status', async () => {
    const client = await keyWith(['wallet:read']);
    const res = await client.get<Envelope>('/api/v1/system/status');
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('permission_denied');
  });

  it('system:read reads status, settings and debug reports but changes nothing', async () => {
    const client = await keyWith(['system:read']);
    for (const path of ['/api/v1/system/status', '/api/v1/system/metrics', '/api/v1/system/settings', '/api/v1/system/debug-report']) {
      expect((await client.get<Envelope>(path)).status).toBe(200);
    }
    for (const [method, path, body] of [
      ['PUT', '/api/v1/system/settings', { default_fee: 1 }],
      ['POST', '/api/v1/system/shutdown', undefined],
      ['POST', '/api/v1/system/retire', { confirm: true }],
      ['POST', '/api/v1/system/sync', { type: 'contacts' }],
      ['POST', '/api/v1/system/settings/reset', { confirm: true }],
    ] as const) {
      const res = await client.request<Envelope>(method, path, { body });
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 403, code: 'permission_denied' });
    }
    expect((await metrics(t)).retired).toBe(false);
  });

  it('system:write changes but does not read; system:* does both', async () => {
    const writer = await keyWith(['system:write']);
    expect((await writer.get<Envelope>('/api/v1/system/status')).status).toBe(403);
    const retire = await writer.post<Envelope>('/api/v1/system/retire', {});
    expect(retire.status).toBe(400);
    expect(retire.body.error?.code).toBe('confirmation_required');

    const both = await keyWith(['system:*']);
    expect((await both.get<Envelope>('/api/v1/system/status')).status).toBe(200);
    expect((await both.put<Envelope>('/api/v1/system/settings', { max_output: 3 })).status).toBe(200);
  });
});
