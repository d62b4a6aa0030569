/**
 * The most a node can send, through real nodes: a diamond A-B-D, A-C-D whose routes carry 60 each (one limited by
 * A's own line, the other by the line into D) answers 60 on one route and 120 split; a send above it names the line
 * that limits it instead of a bare no_route; no line, an unknown destination and routes above maxFee each say so.
 * The same diamond with a narrower line on to E: both routes meet on that line, so the split counts it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { nodeCli, nodeCliHuman } from './ledger-support.js';
import { call, connect, diamond, hashOf, legsOf, ok, routedSend, setFee, waitFor } from './routing-support.js';

const maxSendable = (from: TestNode, to: TestNode | string, currency = 'VWL'): Promise<any> =>
  ok(from, 'GET', '/api/v1/wallet/max-sendable', undefined, { address: typeof to === 'string' ? to : to.node.baseUrl, currency });

describe('max-sendable over a diamond A-B-D, A-C-D', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode;

  beforeAll(async () => {
    [A, B, C, D, E] = await Promise.all(Array.from({ length: 5 }, () => startTestNode()));
    for (const t of [A, B, C, D, E]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 5 });
    await diamond(A, B, C, D);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E].map((t) => t.destroy()));
  });

  /** Waits until A's leg of a routed payment completed. */
  const paid = async (sent: any): Promise<void> => {
    expect(sent.status).toBe('sent');
    await waitFor(() => legsOf(A, sent.p2p_hash), (legs) => legs.length === 1 && legs[0].status === 'completed', 'the payment completed');
  };

  it('says 60 on a single route and 120 split, each route with the hop that limits it', async () => {
    const m = await maxSendable(A, D);
    expect(m).toMatchObject({ address: D.node.baseUrl, currency: 'VWL', max_sendable: '60', direct: null, routes_found: 2, no_route: null });
    expect(m.single_route).toMatchObject({ amount: '60', fee: '0', hops: 2 });
    expect(m.split.amount).toBe('120');
    const byVia = Object.fromEntries((m.split.parts as any[]).map((p) => [p.via, p]));
    expect(byVia[hashOf(B)]).toMatchObject({ amount: '60', hops: 2, limited_at_hop: 1 });
    expect(byVia[hashOf(C)]).toMatchObject({ amount: '60', hops: 2, limited_at_hop: 2 });
    // B's own line to D: direct, and wider than its route through A.
    const fromB = await maxSendable(B, D);
    expect(fromB.direct).toEqual({ amount: '100' });
    expect(fromB.max_sendable).toBe('100');
  });

  it('a route above maxFee: 0, over_max_fee, and a send says so', async () => {
    await setFee(B, A, 2);
    await setFee(C, A, 2);
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 1 });
    try {
      const m = await maxSendable(A, D);
      expect(m.max_sendable).toBe('0');
      expect(m.no_route).toMatchObject({ reason: 'over_max_fee' });
      expect(m.no_route.message).toMatch(/2% in fees, above max_fee 1%/);
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '1', currency: 'VWL' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'no_route', reason: 'over_max_fee' });
    } finally {
      await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 5 });
      await setFee(B, A, 0);
      await setFee(C, A, 0);
    }
  });

  it('a send above the widest route fails naming the limiting line; one within it completes', async () => {
    const res = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'no_route', reason: 'line_exhausted', max_sendable: '60' });
    expect([1, 2]).toContain(res.body.error.hop);
    expect(res.body.error.message).toMatch(/at most 60 VWL can reach/);

    await paid(await routedSend(A, D, '60'));
    const after = await maxSendable(A, D);
    expect(after).toMatchObject({ max_sendable: '60', routes_found: 2 });
    expect(after.split.amount).toBe('60');

    await paid(await routedSend(A, D, '60'));
    const spent = await maxSendable(A, D);
    expect(spent).toMatchObject({ max_sendable: '0', single_route: null, routes_found: 2 });
    expect(spent.no_route).toMatchObject({ reason: 'line_exhausted' });
    expect([1, 2]).toContain(spent.no_route.hop);
    const refused = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '1', currency: 'VWL' });
    expect(refused.body.error).toMatchObject({ code: 'no_route', reason: 'line_exhausted', max_sendable: '0' });
  });

  it('no line, and a destination no route reaches', async () => {
    const none = await maxSendable(E, D);
    expect(none).toMatchObject({ max_sendable: '0', routes_found: 0, no_route: { reason: 'no_line' } });
    const res = await call(E, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '1', currency: 'VWL' });
    expect(res.body.error).toMatchObject({ code: 'no_route', reason: 'no_line' });

    const nowhere = 'http://127.0.0.1:9';
    const lost = await maxSendable(A, nowhere);
    expect(lost).toMatchObject({ max_sendable: '0', routes_found: 0, no_route: { reason: 'destination_unreachable' } });
    const unknown = await call(A, 'POST', '/api/v1/wallet/send', { address: nowhere, amount: '1', currency: 'VWL' });
    expect(unknown.body.error).toMatchObject({ code: 'no_route', reason: 'destination_unreachable' });
  });

  it('node-cli max-sendable, human and --json', async () => {
    const json = await nodeCli(B, ['max-sendable', 'nD', '--currency', 'VWL']);
    expect(json.code).toBe(0);
    // D by the name B knows it by; B's line to D carried 60 of its 100 for A's payments.
    expect(json.body.data).toMatchObject({ max_sendable: '40', direct: { amount: '40' } });
    const human = await nodeCliHuman(E, ['max-sendable', D.node.baseUrl]);
    expect(human.code).toBe(0);
    expect(human.out).toContain('max sendable');
    expect(human.out).toContain('no_line');
  });
});

describe('max-sendable when the routes meet on one line (A-B-D, A-C-D, then D-E)', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode;

  beforeAll(async () => {
    [A, B, C, D, E] = await Promise.all(Array.from({ length: 5 }, () => startTestNode()));
    for (const t of [A, B, C, D, E]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 5 });
    await diamond(A, B, C, D);
    // E extends 50 to D: every route from A to E ends on that line.
    await connect(D, E, { creditAtoB: '1000', creditBtoA: '50', nameOfB: 'nE', nameOfA: 'nD' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E].map((t) => t.destroy()));
  });

  it('two routes that one line limits split to that line once, and a split send above it fails before anything moves', async () => {
    const m = await maxSendable(A, E);
    expect(m).toMatchObject({ max_sendable: '50', routes_found: 2, no_route: null });
    expect(m.single_route).toMatchObject({ amount: '50', hops: 3, limited_at_hop: 3 });
    // Both routes reach E over D's line, which carries 50 in all: not 100.
    expect(m.split.amount).toBe('50');
    expect(m.split.parts).toHaveLength(1);

    const res = await call(A, 'POST', '/api/v1/wallet/send', { address: E.node.baseUrl, amount: '80', currency: 'VWL', allow_split: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'no_route', max_sendable: '50', max_split: '50' });
    expect(res.body.error.message).toMatch(/No split of 80 VWL reaches .*: at most 50 over 1 route\(s\)/);
    const txs = await ok(A, 'GET', '/api/v1/wallet/transactions');
    expect(txs.pagination.total).toBe(0);
  });
});
