/**
 * Debt-cycle clearing through real nodes: A owes B, B owes C and C owes A 10 VWL each. With one node opted out nothing
 * moves; with all three opted in, one run clears the cycle: every line's balance is 0, every node's net is unchanged,
 * every chain verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, nodeCli, nodeCliHuman, send, settled } from './ledger-support.js';
import { connect, legsOf, netOf, ok, waitFor } from './routing-support.js';

describe('debt-cycle clearing around A-B-C', () => {
  let A: TestNode, B: TestNode, C: TestNode;
  const lines = (): Promise<string[]> =>
    Promise.all([[A, B], [B, A], [B, C], [C, B], [C, A], [A, C]].map(async ([t, peer]) => (await balanceRow(t!, peer!))!.net_balance));

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, auto_cycle_clearing: true });
    await connect(A, B, { nameOfB: 'nB', nameOfA: 'nA' });
    await connect(B, C, { nameOfB: 'nC', nameOfA: 'nB' });
    await connect(C, A, { nameOfB: 'nA', nameOfA: 'nC' });
    for (const [from, to] of [[A, B], [B, C], [C, A]] as const) await settled(from, await send(from, to.node.baseUrl, '10'), to);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t.destroy()));
  });

  it('one node opted out: nothing moves', async () => {
    await ok(C, 'PUT', '/api/v1/system/settings', { auto_cycle_clearing: false });
    try {
      const r = await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
      expect(r).toEqual({ status: 'nothing_to_clear', currency: 'VWL', amount: '0', hash: null, txid: null });
      expect(await lines()).toEqual(['-10', '10', '-10', '10', '-10', '10']);
    } finally {
      await ok(C, 'PUT', '/api/v1/system/settings', { auto_cycle_clearing: true });
    }
  });

  it('all opted in: every line back to 0, every net unchanged, every chain verifies', async () => {
    const nets = await Promise.all([A, B, C].map((t) => netOf(t)));
    const r = await ok(A, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
    expect(r).toMatchObject({ status: 'sent', currency: 'VWL', amount: '10' });
    for (const t of [A, B, C]) {
      await waitFor(() => legsOf(t, r.hash), (legs) => legs.length === 2 && legs.every((l) => l.status === 'completed'), 'the clearing legs completed');
    }
    expect(await lines()).toEqual(['0', '0', '0', '0', '0', '0']);
    expect((await Promise.all([A, B, C].map((t) => netOf(t)))).map((n) => n.toFixed())).toEqual(nets.map((n) => n.toFixed()));
    for (const t of [A, B, C]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });

    const listed = await ok(A, 'GET', '/api/v1/clearing');
    expect(listed.clearings[0]).toMatchObject({ hash: r.hash, amount: '10', currency: 'VWL', status: 'completed' });
    expect((listed.clearings[0].lines as any[]).map((l) => [l.direction, l.amount, l.status]).sort()).toEqual([
      ['in', '10', 'completed'],
      ['out', '10', 'completed'],
    ]);
    // Nothing left to clear.
    expect((await ok(A, 'POST', '/api/v1/clearing/run', {})).status).toBe('nothing_to_clear');
  });

  it('node-cli clearing list and run, human and --json', async () => {
    const list = await nodeCli(A, ['clearing']);
    expect(list.body.data.count).toBe(1);
    expect((await nodeCliHuman(A, ['clearing', 'list'])).out).toContain('Clearings: 1');
    const run = await nodeCli(B, ['clearing', 'run', '--currency', 'VWL']);
    expect(run.body.data.status).toBe('nothing_to_clear');
    expect((await nodeCliHuman(B, ['clearing', 'run'])).out).toContain('No debt cycle');
  });
});
