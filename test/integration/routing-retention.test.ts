/**
 * cleanupHeldTxRetentionDays and cleanupRp2pRetentionDays (Document 2): the routes an origin held for its choice
 * (candidates of decided payments) and the destination's route notes are deleted once older than their setting, by the
 * routing plugin's hourly job, which also runs when either setting changes. Three nodes on a line with one movable clock; the rows are counted in each node's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryCount } from '../support/db.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { legsSettled, line, ok, routedSend, waitFor } from './routing-support.js';

let offset = 0;
const clock = { now: () => Date.now() + offset };

const count = (t: TestNode, table: string): number => queryCount(t.dataDir, `SELECT COUNT(*) FROM ${table}`);

describe('retention of route candidates and notes', () => {
  let nodes: TestNode[];
  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 3 }, () => startTestNode({ clock })));
    for (const t of nodes) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await line(nodes, { credit: '1000' });
    const sent = await routedSend(nodes[0]!, nodes[2]!, '1');
    await legsSettled(nodes, sent.p2p_hash);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
  });

  it('cleanupHeldTxRetentionDays prunes the candidates, cleanupRp2pRetentionDays the notes: each at 1 day, not at 3', async () => {
    const [A, , C] = nodes as [TestNode, TestNode, TestNode];
    const rows = (): [number, number] => [count(A, 'routing_candidates'), count(C, 'routing_notes')];
    expect(rows()).toEqual([1, 1]);
    offset = 2 * 86_400_000;
    const put = async (settings: Record<string, number>): Promise<void> => {
      for (const t of [A, C]) await ok(t, 'PUT', '/api/v1/system/settings', settings);
    };
    await put({ cleanup_held_tx_retention_days: 3, cleanup_rp2p_retention_days: 3 });
    await new Promise((r) => setTimeout(r, 200));
    expect(rows()).toEqual([1, 1]);
    // The defaults (7 and 30 days) would keep them too.
    await put({ cleanup_held_tx_retention_days: 1 });
    await waitFor(async () => rows(), (r) => r[0] === 0, 'the old candidates deleted');
    expect(rows()).toEqual([0, 1]);
    await put({ cleanup_rp2p_retention_days: 1 });
    await waitFor(async () => rows(), (r) => r[1] === 0, 'the old notes deleted');
  });
});
