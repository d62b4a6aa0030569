/**
 * Split payments through real nodes: a diamond A-B-D, A-C-D whose routes carry 60 each. max-sendable says 60 on one
 * route and 120 split; a send of 100 with allow_split completes on every leg of both parts under one condition, with
 * exact balances and fees, and its parts show in the answer and in each end's transaction detail; an amount above
 * what a split carries fails naming why, and moves nothing; node-cli send --split pays one too. Then routes that
 * share a line limiting neither of them: the split is planned a part at a time, each probe seeing what the parts
 * before it reserved, so it fits three parts where the routes' sum overstates what reaches the destination.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { nodeCli, send, settled } from './ledger-support.js';
import { call, connect, diamond, hashOf, legsOf, netOf, ok, setFee, waitFor } from './routing-support.js';

const FINAL = new Set(['completed', 'cancelled', 'rejected', 'failed']);

describe('split payments over a diamond A-B-D, A-C-D', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode;

  beforeAll(async () => {
    [A, B, C, D] = await Promise.all(Array.from({ length: 4 }, () => startTestNode()));
    for (const t of [A, B, C, D]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 5 });
    await diamond(A, B, C, D);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D].map((t) => t.destroy()));
  });

  /** Every leg of a part on every node, once final: one at A and D, two at its relay. */
  const partLegs = async (hash: string): Promise<any[]> => {
    const all = await Promise.all([A, B, C, D].map((t) => waitFor(() => legsOf(t, hash), (l) => l.every((x) => FINAL.has(x.status)), `legs of ${hash.slice(0, 8)} final`)));
    return all.flat();
  };

  it('max-sendable: 60 on one route, 120 split', async () => {
    const m = await ok(A, 'GET', '/api/v1/wallet/max-sendable', undefined, { address: D.node.baseUrl, currency: 'VWL' });
    expect(m).toMatchObject({ max_sendable: '60', routes_found: 2 });
    expect(m.split.amount).toBe('120');
  });

  it('without allow_split, 100 finds no route; above the split, allow_split fails naming why, and nothing moves', async () => {
    const single = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL' });
    expect(single.body.error).toMatchObject({ code: 'no_route', reason: 'line_exhausted', max_sendable: '60' });
    const over = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '121', currency: 'VWL', allow_split: true });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'no_route', reason: 'line_exhausted', max_sendable: '60', max_split: '120' });
    expect(over.body.error.message).toMatch(/at most 120 over 2 route/);
    for (const t of [A, B, C, D]) expect((await netOf(t)).toFixed()).toBe('0');
  });

  it('100 split: both parts complete on every leg under one condition; exact balances and fees; parts in the answer and the detail', async () => {
    // B charges A 1% for what it relays: the part through B costs its amount plus 1%.
    await setFee(B, A, 1);
    try {
      const sent = await ok(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL', allow_split: true, description: 'split' });
      expect(sent).toMatchObject({ status: 'sent', type: 'p2p', amount: '100' });
      const parts = sent.split.parts as any[];
      expect(parts).toHaveLength(2);
      expect(sent.split.group).toBe(sent.p2p_hash);
      // Widest first: C's route carries 60 at no fee; B's carries 60/1.01, and takes the 40 left at a 1% fee.
      const viaC = parts.find((p) => p.via === hashOf(C));
      const viaB = parts.find((p) => p.via === hashOf(B));
      expect(viaC).toMatchObject({ amount: '60', total: '60', fee: '0' });
      expect(viaB).toMatchObject({ amount: '40', total: '40.4', fee: '0.4' });
      expect(sent).toMatchObject({ total: '100.4', fee: '0.4' });

      const legs = [...(await partLegs(viaB.p2p_hash)), ...(await partLegs(viaC.p2p_hash))];
      expect(legs).toHaveLength(8);
      for (const l of legs) expect(l.status).toBe('completed');

      expect((await netOf(A)).toFixed()).toBe('-100.4');
      expect((await netOf(B)).toFixed()).toBe('0.4');
      expect((await netOf(C)).toFixed()).toBe('0');
      expect((await netOf(D)).toFixed()).toBe('100');
      for (const t of [A, B, C, D]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });

      const detail = await ok(A, 'GET', `/api/v1/wallet/transactions/${viaB.txid}`);
      expect(detail.split).toMatchObject({ group: sent.split.group, role: 'origin', amount: '100' });
      expect((detail.split.parts as any[]).map((p) => [p.amount, p.fee, p.status]).sort()).toEqual([
        ['40', '0.4', 'completed'],
        ['60', '0', 'completed'],
      ]);
      const received = (await legsOf(D, viaC.p2p_hash))[0];
      const atDest = await ok(D, 'GET', `/api/v1/wallet/transactions/${received.txid}`);
      expect(atDest.split).toMatchObject({ group: sent.split.group, role: 'destination', amount: '100' });
      expect((atDest.split.parts as any[]).map((p) => [p.amount, p.status]).sort()).toEqual([
        ['40', 'fulfilled'],
        ['60', 'fulfilled'],
      ]);
      expect(received.description).toBe('split');
    } finally {
      await setFee(B, A, 0);
    }
  });

  it('node-cli send --split pays over both routes', async () => {
    // What is left: 19.6 through B (60 - 40.4) and nothing through C (D's 60 to C is used), until D pays C back; then
    // C's route carries the 40 left of A's line with C.
    await settled(D, await send(D, C.node.baseUrl, '60'), C);
    expect((await ok(A, 'GET', '/api/v1/wallet/max-sendable', undefined, { address: D.node.baseUrl, currency: 'VWL' })).split.amount).toBe('59.6');
    const before = await netOf(D);
    const cli = await nodeCli(A, ['send', D.node.baseUrl, '50', 'VWL', '--split']);
    expect(cli.code).toBe(0);
    expect(cli.body.data.split.parts).toHaveLength(2);
    expect(cli.body.data.payment_status).toBe('completed');
    for (const p of cli.body.data.split.parts as any[]) await partLegs(p.p2p_hash);
    expect((await netOf(D)).minus(before).toFixed()).toBe(new Decimal(50).toFixed());
  });
});

describe('a split over routes that share a line limiting neither (A-B-D-E, A-C-D-E, A-F-E)', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode, F: TestNode;

  beforeAll(async () => {
    [A, B, C, D, E, F] = await Promise.all(Array.from({ length: 6 }, () => startTestNode()));
    for (const t of [A, B, C, D, E, F]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 5 });
    // Through B and through C: 60 each (A's line with B, C's line with D), both over D's line into E, which carries 70.
    await diamond(A, B, C, D);
    await connect(D, E, { creditAtoB: '1000', creditBtoA: '70', nameOfB: 'nE', nameOfA: 'nD' });
    // Through F: 30 (F's line into E).
    await connect(A, F, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'nF', nameOfA: 'nA' });
    await connect(F, E, { creditAtoB: '1000', creditBtoA: '30', nameOfB: 'nE', nameOfA: 'nF' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E, F].map((t) => t.destroy()));
  });

  it('100 reaches E in three parts: 60 over D, 30 over F, the 10 D has left', async () => {
    // The sum counts D's line twice (an upper bound): 60 + 60 + 30, where 100 reaches E.
    const m = await ok(A, 'GET', '/api/v1/wallet/max-sendable', undefined, { address: E.node.baseUrl, currency: 'VWL' });
    expect(m).toMatchObject({ max_sendable: '60', routes_found: 3 });
    expect(m.split.amount).toBe('150');

    const sent = await ok(A, 'POST', '/api/v1/wallet/send', { address: E.node.baseUrl, amount: '100', currency: 'VWL', allow_split: true });
    expect(sent).toMatchObject({ status: 'sent', amount: '100', total: '100', fee: '0' });
    const parts = sent.split.parts as any[];
    expect(parts.map((p) => p.amount).sort()).toEqual(['10', '30', '60']);
    expect(parts.find((p) => p.amount === '30').via).toBe(hashOf(F));
    const viaD = parts.filter((p) => p.amount !== '30').map((p) => p.via);
    expect(new Set(viaD)).toEqual(new Set([hashOf(B), hashOf(C)]));

    const everyNode = [A, B, C, D, E, F];
    for (const part of parts) {
      const legs = (await Promise.all(everyNode.map((t) => waitFor(() => legsOf(t, part.p2p_hash), (l) => l.every((x) => FINAL.has(x.status)), 'legs final')))).flat();
      expect(legs.length).toBeGreaterThan(0);
      for (const l of legs) expect(l.status).toBe('completed');
    }
    expect((await netOf(A)).toFixed()).toBe('-100');
    expect((await netOf(E)).toFixed()).toBe('100');
    for (const t of [B, C, D, F]) expect((await netOf(t)).toFixed()).toBe('0');
    for (const t of everyNode) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  });
});
