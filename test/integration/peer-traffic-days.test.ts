/**
 * cleanupMetricsRetentionDays (Document 2): GET /system/metrics shows the peer traffic of each UTC day (messages in and
 * out by type and result), stored so that it outlives a restart, and the kernel's hourly retention job (run at once
 * when the setting changes) drops the days older than the setting. Two nodes on loopback; Alice's clock is moved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok, send, settled, waitFor } from './ledger-support.js';

let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
const today = (): string => new Date(clock.now()).toISOString().slice(0, 10);

interface TrafficDay {
  day: string;
  direction: 'in' | 'out';
  type: string;
  result: string;
  count: number;
}

describe('peer traffic per day', () => {
  let A: TestNode;
  let B: TestNode;
  let first: string;
  const days = async (): Promise<TrafficDay[]> => (await ok(A, 'GET', '/api/v1/system/metrics')).peer_traffic.days;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode({ clock }), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    first = today();
    await connect(A, B);
  }, 60_000);
  afterAll(async () => {
    offset = 0;
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('counts the messages of a contact request each way, kept over a restart', async () => {
    const sent = (await days()).filter((d) => d.day === first && d.direction === 'out' && d.result === 'ok');
    expect(sent.reduce((n, d) => n + d.count, 0)).toBeGreaterThan(0);
    const received = (await days()).filter((d) => d.day === first && d.direction === 'in' && d.result === 'ok');
    expect(received.reduce((n, d) => n + d.count, 0)).toBeGreaterThan(0);
    const before = await days();
    await A.restart({ NODE_PORT: String(A.node.port) });
    expect(await days()).toEqual(before);
  });

  it('cleanupMetricsRetentionDays: a day two days old stays at 3 days and the default, goes at 1', async () => {
    offset = 2 * 86_400_000;
    // Traffic on the new day: a payment to Bob.
    await settled(A, await send(A, 'Bob', '1'), B);
    const now = today();
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_metrics_retention_days: 3 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await days()).some((d) => d.day === first)).toBe(true);
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_metrics_retention_days: 1 });
    const kept = await waitFor(days, (list) => !list.some((d) => d.day === first), 'the old day dropped');
    expect(kept.some((d) => d.day === now && d.direction === 'out')).toBe(true);
  });
});
