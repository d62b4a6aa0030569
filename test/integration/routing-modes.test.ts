/**
 * Fast and best-fee routing on a diamond with two routes of different fees, and concurrent routed payments through one
 * relay against the credit of its lines (reservations and locks: no line is ever overcommitted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, dearShortCheapLong, dec, hashOf, legsOf, legsSettled, netOf, ok, routedSend, setFee, waitFor, withFee } from './routing-support.js';

async function quiet(nodes: readonly TestNode[]): Promise<void> {
  for (const t of nodes) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 10 });
}

describe('best-fee and fast on a diamond', () => {
  // A-C-D is short and dear (C charges 3 %); A-B-E-D is longer and cheap (B 0.5 %, E 0.25 %).
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode;

  beforeAll(async () => {
    [A, B, C, D, E] = await Promise.all(Array.from({ length: 5 }, () => startTestNode()));
    await quiet([A, B, C, D, E]);
    await connect(A, B, { nameOfB: 'Bea', nameOfA: 'Ada' });
    await connect(A, C, { nameOfB: 'Cid', nameOfA: 'Ada' });
    await connect(B, E, { nameOfB: 'Eve', nameOfA: 'Bea' });
    await connect(E, D, { nameOfB: 'Dan', nameOfA: 'Eve' });
    await connect(C, D, { nameOfB: 'Dan', nameOfA: 'Cid' });
    await setFee(C, A, 3);
    await setFee(B, A, '0.5');
    await setFee(E, B, '0.25');
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E].map((t) => t.destroy()));
  });

  const cheap = (amount: string) => withFee(withFee(dec(amount), '0.25'), '0.5');
  const dear = (amount: string) => withFee(dec(amount), 3);

  it('best-fee always takes the cheaper route, whichever answers first', async () => {
    for (let i = 0; i < 5; i++) {
      const sent = await routedSend(A, D, '40', { bestFee: true });
      expect(sent).toMatchObject({ status: 'sent', best_fee: true, total: cheap('40').toFixed() });
      const legs = await legsOf(A, sent.p2p_hash);
      expect(legs[0].counterparty_pubkey_hash).toBe(hashOf(B));
      await legsSettled([A, B, E, D], sent.p2p_hash);
      // C offered the dear route and was told it is not needed: it holds no leg of this payment.
      expect(await legsOf(C, sent.p2p_hash)).toEqual([]);
    }
  });

  it('fast takes a route at once and completes it; best-fee follows the fees when they change', async () => {
    const fast = await routedSend(A, D, '10');
    expect(fast.best_fee).toBe(false);
    expect([cheap('10').toFixed(), dear('10').toFixed()]).toContain(fast.total);
    const via = (await legsOf(A, fast.p2p_hash))[0].counterparty_pubkey_hash === hashOf(B) ? [A, B, E, D] : [A, C, D];
    await legsSettled(via, fast.p2p_hash);

    await setFee(C, A, '0.1');
    const best = await routedSend(A, D, '10', { bestFee: true });
    expect(best.total).toBe(withFee(dec(10), '0.1').toFixed());
    await legsSettled([A, C, D], best.p2p_hash);
    await setFee(C, A, 3);
  });

  it('a Tor destination is paid in fast mode even when best-fee is asked', async () => {
    const res = await call(A, 'POST', '/api/v1/wallet/send', {
      address: 'vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion',
      amount: '1',
      currency: 'VWL',
      best_fee: true,
    });
    // Nobody here is that onion: no route, found in fast mode.
    expect(res.body.error.code).toBe('no_route');
    const pending = await ok(A, 'GET', '/api/v1/p2p');
    expect(pending.transactions).toEqual([]);
  });

  it('maxFee: a route dearer than maxFee is refused, a cheaper one taken', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 1 });
    // C's route (3 %) is above maxFee 1 %: refused, whatever the mode; B's (0.75 %) is taken.
    const sent = await routedSend(A, D, '20', { bestFee: true });
    expect(sent.total).toBe(cheap('20').toFixed());
    await legsSettled([A, B, E, D], sent.p2p_hash);
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 0.5 });
    const refused = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '20', currency: 'VWL', best_fee: true });
    expect(refused.body.error.code).toBe('no_route');
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 10 });
  });
});

describe('fast mode when the first route found costs more than maxFee', () => {
  // A's only contact is R. From R, C reaches D at once and charges 6 %; B-E-F reach D two legs later at 0.5 % each.
  // In fast mode R passes on the first route it hears of, C's, which A refuses above maxFee 5 %.
  let A: TestNode, R: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode, F: TestNode;

  beforeAll(async () => {
    [A, R, B, C, D, E, F] = await Promise.all(Array.from({ length: 7 }, () => startTestNode()));
    await quiet([A, R, B, C, D, E, F]);
    await dearShortCheapLong(A, R, B, C, D, E, F);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, R, B, C, D, E, F].map((t) => t.destroy()));
  });

  /** A's routed payments by status, as GET /system/metrics counts them. */
  const searches = async (): Promise<Record<string, number>> => (await ok(A, 'GET', '/api/v1/system/metrics')).plugins.routing.payments;

  it('searches again for the cheapest route and pays it, instead of failing no_route', async () => {
    const cheap = withFee(withFee(withFee(dec(20), '0.5'), '0.5'), '0.5');
    expect(await searches()).toEqual({});
    const sent = await routedSend(A, D, '20');
    expect(sent).toMatchObject({ status: 'sent', best_fee: true, total: cheap.toFixed() });
    await legsSettled([A, R, B, E, F, D], sent.p2p_hash);
    expect(await legsOf(C, sent.p2p_hash)).toEqual([]);
    expect((await netOf(A)).toFixed()).toBe(cheap.negated().toFixed());
    expect((await netOf(D)).toFixed()).toBe('20');
    // Two searches: the fast one, which heard only C's route and failed, then the best-fee one, paid.
    expect(await searches()).toEqual({ failed: 1, completed: 1 });
    for (const t of [A, R, B, C, D, E, F]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  });

  it('fails over_max_fee when even the cheapest route costs more than maxFee, and nothing moves', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 1 });
    try {
      const before = (await netOf(A)).toFixed();
      const refused = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '20', currency: 'VWL' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'no_route', reason: 'over_max_fee' });
      expect((await netOf(A)).toFixed()).toBe(before);
    } finally {
      await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 5 });
    }
  });
});

describe('concurrent routed payments through one relay', () => {
  let A1: TestNode, A2: TestNode, R: TestNode, D: TestNode;

  beforeAll(async () => {
    [A1, A2, R, D] = await Promise.all(Array.from({ length: 4 }, () => startTestNode()));
    await quiet([A1, A2, R, D]);
    for (const t of [A1, A2, R]) await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    // R may owe D at most 100; A1 and A2 may each owe R 70.
    await connect(A1, R, { nameOfB: 'Rex', nameOfA: 'A1x', creditAtoB: '1000', creditBtoA: '70' });
    await connect(A2, R, { nameOfB: 'Rex', nameOfA: 'A2x', creditAtoB: '1000', creditBtoA: '70' });
    await connect(R, D, { nameOfB: 'Dan', nameOfA: 'Rex', creditAtoB: '1000', creditBtoA: '100' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A1, A2, R, D].map((t) => t.destroy()));
  });

  it('never overcommits a line: what completes fits every credit limit, what does not moves nothing', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call(i % 2 ? A2 : A1, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '15', currency: 'VWL' })),
    );
    const sent = attempts.filter((r) => r.status === 200).map((r) => r.body.data);
    for (const r of attempts) if (r.status !== 200) expect(r.body.error.code).toBe('no_route');
    const outcomes = await Promise.all(
      sent.map(async (s) => {
        const origin = attempts.findIndex((a) => a.body.data?.p2p_hash === s.p2p_hash) % 2 ? A2 : A1;
        const legs = await waitFor(() => legsOf(origin, s.p2p_hash), (l) => l.length === 1 && ['completed', 'cancelled'].includes(l[0].status), 'final first leg', 20_000);
        return legs[0].status as string;
      }),
    );
    const completed = outcomes.filter((o) => o === 'completed').length;
    expect(completed).toBeGreaterThan(0);
    // R's line toward D carries at most 100: six payments of 15.
    expect(completed).toBeLessThanOrEqual(6);
    const atD = await netOf(D);
    expect(atD.toFixed()).toBe(dec(15).times(completed).toFixed());
    expect((await netOf(R)).isZero()).toBe(true);
    const a1 = await netOf(A1);
    const a2 = await netOf(A2);
    expect(a1.gte(-70) && a2.gte(-70)).toBe(true);
    expect(a1.plus(a2).plus(atD).isZero()).toBe(true);
    // Nothing stays locked: D would take a direct payment from R for what is left of its credit.
    const left = dec(100).minus(atD);
    if (left.gt(0)) {
      const direct = await ok(R, 'POST', '/api/v1/wallet/send', { address: 'Dan', amount: left.toFixed(), currency: 'VWL' });
      await waitFor(() => ok(R, 'GET', `/api/v1/wallet/transactions/${direct.txid}`), (r) => r.transaction.status === 'completed', 'direct payment');
    }
  });
});
