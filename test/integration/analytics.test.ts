/**
 * Analytics end to end (Document 2, "Analytics" and "Outbound analytics submission"): real nodes, real payments
 * between two of them, the daily job run through the jobs mechanism (RunningNode.jobs.kick stands in for 03:00 UTC
 * plus the random delay, whose computation test/unit/analytics/schedule.test.ts covers), and every submission
 * captured through the fake SOCKS5 proxy into an HTTPS collector on loopback.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector, type Collector } from '../support/collector.js';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import { startTestNode, tempDataDir, type TestNode } from '../support/node.js';
import { call, connect, hashOf, nodeCli, ok, send, settled, waitFor } from './ledger-support.js';

const HEARTBEAT = 'analytics.heartbeat';
const NODE_SETUP = 'analytics.node-setup';

function analyticsEnv(socks: FakeSocks, collector: Collector, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_TOR_SOCKS: `${socks.host}:${socks.port}`,
    NODE_ANALYTICS_URL: `https://${collector.host}`,
    NODE_ANALYTICS_CA_FILE: collector.caFile,
    ...extra,
  };
}

const jobState = (t: TestNode, id: string) => t.node.jobs.states().find((s) => s.name === id);

/** Runs a job now, as its timer would, and waits until that run is over. */
async function runJob(t: TestNode, id: string): Promise<void> {
  // A run the node started itself (enabling kicks node-setup) ends first, and the kick's run starts in a later
  // millisecond than the last one: last_run_at, which tells them apart, has millisecond resolution.
  await waitFor(async () => jobState(t, id), (s) => s !== undefined && !s.busy, `${id} idle`);
  const before = jobState(t, id)?.last_run_at ?? null;
  while (before !== null && Date.now() <= Date.parse(before)) await settle(1);
  t.node.jobs.kick(id);
  await waitFor(
    async () => jobState(t, id),
    (s) => s !== undefined && s.last_run_at !== before && !s.busy,
    `a run of ${id}`,
  );
}

const payloads = (c: Collector): any[] => c.received.map((r) => JSON.parse(r.body));
const analyticsStatus = (t: TestNode): Promise<any> => ok(t, 'GET', '/api/v1/plugins/analytics/status');
const systemAnalytics = async (t: TestNode): Promise<any> => (await ok(t, 'GET', '/api/v1/system/status')).analytics;
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

describe('analytics between two nodes: consent, node_setup, heartbeat, failures', () => {
  let socks: FakeSocks;
  let collector: Collector;
  let A: TestNode;
  let B: TestNode;
  const txids: string[] = [];
  let firstDay: string;

  beforeAll(async () => {
    socks = await startFakeSocks();
    collector = await startCollector('collector.test');
    socks.routes.set(collector.host, collector.port);
    [A, B] = await Promise.all([startTestNode({ env: analyticsEnv(socks, collector) }), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t.destroy()));
    await collector.close();
    await socks.close();
  });

  it('sends nothing before consent, installs no heartbeat, and asks in the startup banner', async () => {
    expect(A.node.banner().join('\n')).toContain('npx node-cli analytics enable');
    expect(A.node.banner().join('\n')).toContain('npx node-cli analytics decline');
    expect(B.node.banner().join('\n')).toContain('analytics');
    expect(jobState(A, HEARTBEAT)).toBeUndefined();
    expect(await analyticsStatus(A)).toMatchObject({ enabled: false, consent_pending: true, heartbeat_installed: false, next_heartbeat_at: null });

    await runJob(A, NODE_SETUP);
    A.node.jobs.kick(HEARTBEAT);
    await settle(200);
    expect(collector.received).toEqual([]);
    expect(socks.requests).toEqual([]);
    expect(await systemAnalytics(A)).toEqual({ enabled: false, consent_pending: true, last_submitted: null, opt_in_at: null });
  });

  it('sends node_setup once analytics are enabled, through the SOCKS5 proxy by host name, over https', async () => {
    firstDay = utcDay(Date.now());
    const res = await nodeCli(A, ['analytics', 'enable']);
    expect(res.code).toBe(0);
    expect(res.body.data.updated).toMatchObject({ analytics_enabled: true, analytics_consent_asked: true });
    await waitFor(async () => collector.received.length, (n) => n === 1, 'node_setup at the collector');

    const [setup] = payloads(collector);
    const { version } = await ok(A, 'GET', '/api/v1/system/status');
    expect(setup).toEqual({ event: 'node_setup', analytics_id: expect.stringMatching(/^[0-9a-f]{32}$/), version, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(collector.received[0]).toMatchObject({ method: 'POST', path: '/v1/report' });
    expect(socks.requests).toEqual([{ host: 'collector.test', port: 443, routed: true }]);

    const status = await analyticsStatus(A);
    expect(status).toMatchObject({ enabled: true, consent_pending: false, heartbeat_installed: true, last_event: 'node_setup' });
    expect(status.node_setup_sent_at).toBe(status.last_submitted);
    // 03:00 UTC plus at most an hour, within the next 25 hours.
    const next = Date.parse(status.next_heartbeat_at);
    const day = new Date(next);
    const delay = next - Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 3);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThanOrEqual(3600_000);
    expect(next - Date.now()).toBeLessThanOrEqual(25 * 3600_000);
    const system = await systemAnalytics(A);
    expect(system).toEqual({ enabled: true, consent_pending: false, last_submitted: status.last_submitted, opt_in_at: expect.any(String) });
  });

  it('keeps the period open after a failed submission and counts it all in the next accepted heartbeat', async () => {
    await connect(A, B, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'Bob', nameOfA: 'Alice' });
    txids.push(await send(A, B.node.baseUrl, '12.34567891', 'VWL', 'lunch at the secret place'));
    txids.push(await send(B, A.node.baseUrl, '3.5', 'VWL', 'rent share'));
    for (const [from, to, id] of [[A, B, txids[0]], [B, A, txids[1]]] as const) expect((await settled(from, id!, to)).status).toBe('completed');
    // Beyond the credit B extends: refused, so it is no real payment and counts nowhere.
    const refused = await send(A, B.node.baseUrl, '500', 'VWL', 'too much');
    expect((await settled(A, refused)).status).not.toBe('completed');
    txids.push(refused);

    const lastSubmitted = (await analyticsStatus(A)).last_submitted;
    collector.reply.status = 503;
    collector.reply.body = '{"error":"maintenance"}';
    await runJob(A, HEARTBEAT);
    const failed = await analyticsStatus(A);
    expect(failed.last_attempt).toMatchObject({ event: 'usage_heartbeat', ok: false, error: expect.stringContaining('HTTP 503 (maintenance)') });
    expect(failed.last_submitted).toBe(lastSubmitted);
    expect(collector.received.length).toBe(2);
    // One payment each way so far: counted, but their sums would be their amounts, so none is sent.
    expect(payloads(collector)[1].metrics.volume_by_currency).toEqual([
      { currency: 'VWL', sent_count: 1, sent_whole: 0, sent_frac: 0, received_count: 1, received_whole: 0, received_frac: 0, relay_count: 0, relay_whole: 0, relay_frac: 0 },
    ]);

    txids.push(await send(A, B.node.baseUrl, '7.00000123', 'VWL', 'second lunch'));
    txids.push(await send(B, A.node.baseUrl, '1.25', 'VWL', 'coffee'));
    expect((await settled(A, txids[3]!, B)).status).toBe('completed');
    expect((await settled(B, txids[4]!, A)).status).toBe('completed');

    collector.reply.status = 200;
    collector.reply.body = '{"ok":true}';
    await runJob(A, HEARTBEAT);
    expect(collector.received.length).toBe(3);
    const [setup, , beat] = payloads(collector);
    const days = new Set([firstDay, utcDay(Date.now())]).size;
    expect(beat).toEqual({
      event: 'usage_heartbeat',
      analytics_id: setup.analytics_id,
      version: setup.version,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      period_days: 1,
      metrics: {
        tx_sent_count: 2,
        tx_received_count: 2,
        tx_p2p_count: 0,
        tx_contact_count: 1,
        contact_count: 1,
        days_active: days === 1 ? 1 : expect.any(Number),
        volume_by_currency: [
          {
            currency: 'VWL',
            sent_count: 2,
            sent_whole: 19,
            sent_frac: 34568014,
            received_count: 2,
            received_whole: 4,
            received_frac: 75000000,
            relay_count: 0,
            relay_whole: 0,
            relay_frac: 0,
          },
        ],
      },
    });

    const ok1 = await analyticsStatus(A);
    expect(ok1).toMatchObject({ last_event: 'usage_heartbeat', last_attempt: { ok: true, error: null } });
    expect(Date.parse(ok1.last_submitted)).toBeGreaterThan(Date.parse(lastSubmitted));
    expect((await systemAnalytics(A)).last_submitted).toBe(ok1.last_submitted);
  });

  it('sends none of the never-sent items: names, addresses, keys, hostnames, descriptions, single amounts', async () => {
    const forbidden = [
      'Bob',
      'Alice',
      'lunch',
      'secret place',
      'rent share',
      'coffee',
      hashOf(A),
      hashOf(B),
      A.node.identity.publicKey.toString('base64url'),
      B.node.identity.publicKey.toString('base64url'),
      A.node.identity.publicKey.toString('hex'),
      B.node.identity.publicKey.toString('hex'),
      A.node.identity.onionAddress,
      B.node.identity.onionAddress,
      A.node.baseUrl,
      B.node.baseUrl,
      '127.0.0.1',
      'localhost',
      hostname(),
      A.node.identity.authCode,
      A.node.identity.revealMnemonic(),
      A.node.cliCredentials().key_id,
      ...txids,
      // the single payments, as decimals and as whole/fraction parts
      '12.34567891',
      '34567891',
      '7.00000123',
      '00000123',
      '3.5',
      '50000000',
      '1.25',
      '25000000',
    ];
    expect(collector.received.length).toBe(3);
    for (const { raw } of collector.received) {
      for (const item of forbidden) expect({ item, found: raw.includes(item) }).toEqual({ item, found: false });
    }
  });

  it('sends at most one heartbeat a day', async () => {
    await runJob(A, HEARTBEAT);
    await settle(100);
    expect(collector.received.length).toBe(3);
  });

  it('node-cli analytics shows the status and the next heartbeat without sending it', async () => {
    const status = await nodeCli(A, ['analytics']);
    expect(status.code).toBe(0);
    expect(status.body.data).toMatchObject({ enabled: true, collector: 'https://collector.test/v1/report', last_event: 'usage_heartbeat' });
    const preview = await nodeCli(A, ['analytics', 'preview']);
    expect(preview.code).toBe(0);
    expect(preview.body.data.payload).toMatchObject({ event: 'usage_heartbeat', analytics_id: payloads(collector)[0].analytics_id, period_days: 1 });
    // The next period starts where the accepted one ended: nothing since.
    expect(preview.body.data.payload.metrics).toMatchObject({ tx_sent_count: 0, tx_received_count: 0, tx_contact_count: 0, contact_count: 1 });
    const decline = await nodeCli(A, ['analytics', 'decline']);
    expect(decline.code).toBe(1);
    expect(decline.body.error.code).toBe('INVALID_PARAMS');
    expect(collector.received.length).toBe(3);
  });

  it('stops at once when disabled, sends node_setup only once ever, and stays silent across a restart', async () => {
    expect((await nodeCli(A, ['analytics', 'disable'])).code).toBe(0);
    expect(await systemAnalytics(A)).toMatchObject({ enabled: false, consent_pending: false });
    await runJob(A, HEARTBEAT);

    const before = (await systemAnalytics(A)).opt_in_at;
    await settle(5);
    expect((await nodeCli(A, ['analytics', 'enable'])).code).toBe(0);
    await runJob(A, NODE_SETUP);
    const after = await systemAnalytics(A);
    expect(Date.parse(after.opt_in_at)).toBeGreaterThan(Date.parse(before));

    await A.restart();
    await settle(200);
    expect(jobState(A, HEARTBEAT)).toBeDefined();
    expect(jobState(A, NODE_SETUP)?.last_run_at).toBeNull();
    expect(A.node.banner()).toEqual([]);
    expect(collector.received.length).toBe(3);
    expect(payloads(collector).filter((p) => p.event === 'node_setup').length).toBe(1);
  });
});

describe('analytics switched by NODE_ANALYTICS_ENABLED and by a stored opt-in', () => {
  let socks: FakeSocks;
  const collectors: Collector[] = [];
  const nodes: TestNode[] = [];

  async function collectorFor(host: string): Promise<Collector> {
    const c = await startCollector(host);
    socks.routes.set(host, c.port);
    collectors.push(c);
    return c;
  }

  async function nodeWithSettings(settings: Record<string, unknown>, env: Record<string, string>): Promise<TestNode> {
    const dataDir = tempDataDir();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(settings));
    const t = await startTestNode({ dataDir, env });
    nodes.push(t);
    return t;
  }

  beforeAll(async () => {
    socks = await startFakeSocks();
  });
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
    for (const c of collectors) await c.close();
    await socks.close();
  });

  it('NODE_ANALYTICS_ENABLED=true: node_setup at start, heartbeat installed, legacy opt-in stamped on the first daily run', async () => {
    const c = await collectorFor('env.collector.test');
    const t = await startTestNode({ env: analyticsEnv(socks, c, { NODE_ANALYTICS_ENABLED: 'true' }) });
    nodes.push(t);
    await waitFor(async () => c.received.length, (n) => n === 1, 'node_setup sent at start');
    expect(payloads(c)[0].event).toBe('node_setup');
    expect(jobState(t, HEARTBEAT)).toBeDefined();
    expect(t.node.banner()).toEqual([]);
    expect((await ok(t, 'GET', '/api/v1/system/settings')).settings.analytics_opt_in_at).toBeNull();

    const before = Date.now();
    await runJob(t, HEARTBEAT);
    const stamped = (await ok(t, 'GET', '/api/v1/system/settings')).settings.analytics_opt_in_at;
    expect(Date.parse(stamped)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(stamped)).toBeLessThanOrEqual(Date.now());
    const beat = payloads(c)[1];
    expect(beat).toMatchObject({ event: 'usage_heartbeat', period_days: 1 });
    expect(beat.metrics).toEqual({
      tx_sent_count: 0,
      tx_received_count: 0,
      tx_p2p_count: 0,
      tx_contact_count: 0,
      contact_count: 0,
      days_active: 0,
      volume_by_currency: [],
    });
  });

  it('a stored opt-in 10 days ago reports period_days 10', async () => {
    const c = await collectorFor('stored.collector.test');
    const optIn = new Date(Date.now() - 10 * 86_400_000 - 3_600_000).toISOString();
    const t = await nodeWithSettings({ analyticsEnabled: true, analyticsConsentAsked: true, analyticsOptInAt: optIn }, analyticsEnv(socks, c));
    await waitFor(async () => c.received.length, (n) => n === 1, 'node_setup sent at start');
    await runJob(t, HEARTBEAT);
    expect(payloads(c)[1]).toMatchObject({ event: 'usage_heartbeat', period_days: 10 });
    const preview = await ok(t, 'GET', '/api/v1/plugins/analytics/preview');
    // After the accepted report the next period starts where it ended.
    expect(preview.payload.period_days).toBe(1);
    expect(Date.parse(preview.window.from)).toBeGreaterThan(Date.parse(optIn));
  });

  it('the daily job that finds node_setup still in flight joins it: node_setup goes once, then the heartbeat', async () => {
    const c = await collectorFor('joined.collector.test');
    let release!: () => void;
    c.reply.hold = new Promise<void>((r) => (release = r));
    const optIn = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const t = await nodeWithSettings({ analyticsEnabled: true, analyticsConsentAsked: true, analyticsOptInAt: optIn }, analyticsEnv(socks, c));
    await waitFor(async () => c.received.length, (n) => n === 1, 'node_setup sent at start, its answer held');
    const run = runJob(t, HEARTBEAT);
    await waitFor(async () => jobState(t, HEARTBEAT)?.busy, (busy) => busy === true, 'the daily job running');
    // The job may not send a second node_setup while the first waits for its answer.
    await settle(100);
    expect(c.received).toHaveLength(1);
    c.reply.hold = null;
    release();
    await run;
    expect(payloads(c).map((p) => p.event)).toEqual(['node_setup', 'usage_heartbeat']);
  });

  it('NODE_ANALYTICS_ENABLED=false overrides a stored opt-in: no job, nothing sent, no banner', async () => {
    const c = await collectorFor('off.collector.test');
    const t = await nodeWithSettings({ analyticsEnabled: true, analyticsConsentAsked: true }, analyticsEnv(socks, c, { NODE_ANALYTICS_ENABLED: 'false' }));
    expect(jobState(t, HEARTBEAT)).toBeUndefined();
    await runJob(t, NODE_SETUP);
    expect(c.received).toEqual([]);
    expect(t.node.banner()).toEqual([]);
    expect(await analyticsStatus(t)).toMatchObject({ enabled: false, decided_by_environment: true, heartbeat_installed: false });
    const refused = await call(t, 'PUT', '/api/v1/system/settings', { analytics_enabled: true });
    expect(refused.status).toBe(400);
  });

  it('disabling abandons a submission in flight at once', async () => {
    const c = await collectorFor('hang.collector.test');
    c.reply.silent = true;
    const t = await startTestNode({ env: analyticsEnv(socks, c) });
    nodes.push(t);
    await ok(t, 'PUT', '/api/v1/system/settings', { analytics_enabled: true });
    await waitFor(async () => c.received.length, (n) => n === 1, 'node_setup reaching the silent collector');
    const started = Date.now();
    await ok(t, 'PUT', '/api/v1/system/settings', { analytics_enabled: false });
    const status = await waitFor(() => analyticsStatus(t), (s) => s.last_attempt !== null, 'the abandoned attempt');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(status).toMatchObject({ enabled: false, node_setup_sent_at: null, last_submitted: null });
    expect(status.last_attempt).toMatchObject({ event: 'node_setup', ok: false, error: expect.stringContaining('cancelled') });
  });

  it('decline answers the question without enabling anything, and the banner stops asking', async () => {
    const t = await startTestNode();
    nodes.push(t);
    expect(t.node.banner().length).toBeGreaterThan(0);
    const res = await nodeCli(t, ['analytics', 'decline']);
    expect(res.code).toBe(0);
    expect(await systemAnalytics(t)).toEqual({ enabled: false, consent_pending: false, last_submitted: null, opt_in_at: null });
    await t.restart();
    expect(t.node.banner()).toEqual([]);
    expect(jobState(t, HEARTBEAT)).toBeUndefined();
  });
});
