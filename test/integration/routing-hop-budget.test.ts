/**
 * hopBudgetRandomized (Document 2): the hop budget a payment's route requests start with. Off, it is maxP2pLevel;
 * on, a random budget between half of it and all of it, so that relays cannot infer how far they are from the
 * origin. The no_route answer names the budget the search had; when a draw below maxP2pLevel found no route, the send
 * searched again within all of it, and the answer names both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, dearShortCheapLong, dec, legsOf, legsSettled, line, netOf, ok, routedSend, withFee } from './routing-support.js';

describe('hop budget of a routed payment', () => {
  let t: TestNode;
  let relay: TestNode;
  beforeAll(async () => {
    [t, relay] = await Promise.all([startTestNode(), startTestNode()]);
    for (const n of [t, relay]) await ok(n, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, max_p2p_level: 10 });
    // One contact to ask: it knows no route either, and says so.
    await connect(t, relay);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([t, relay].map((n) => n?.destroy()));
  });

  /** The budgets of `n` payments to an address nobody reaches. */
  const budgets = async (n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call(t, 'POST', '/api/v1/wallet/send', { address: 'http://127.0.0.1:9', amount: '1', currency: 'VWL' });
      expect(res.body.error?.code).toBe('no_route');
      // A draw below maxP2pLevel that found nothing is followed by a search within all of it: the answer names both.
      const m = /hop budget drawn \((\d+)\)/.exec(res.body.error.message) ?? /within (\d+) hop\(s\)/.exec(res.body.error.message);
      if (!m) throw new Error(`no budget in: ${res.body.error.message}`);
      out.push(Number(m[1]));
    }
    return out;
  };

  it('hopBudgetRandomized false: every search starts with maxP2pLevel hops', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { hop_budget_randomized: false });
    expect(await budgets(5)).toEqual([10, 10, 10, 10, 10]);
  });

  it('hopBudgetRandomized true: budgets vary between half of maxP2pLevel and all of it', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { hop_budget_randomized: true });
    const seen = await budgets(16);
    expect(seen.every((b) => b >= 5 && b <= 10)).toBe(true);
    // Each is 10 with probability 0.7^5 (about 0.17): sixteen tens in a row would happen once in 10^12 runs.
    expect(seen.some((b) => b < 10)).toBe(true);
  });
});

describe('a send right after max-sendable reaches what the probe found', () => {
  // A line of five: E is four legs from A. A randomized budget of six starts at three, which falls short of E three
  // times in ten; a probe that found E raises every budget toward it for a while, the send's included.
  let nodes: TestNode[];
  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 5 }, () => startTestNode()));
    for (const n of nodes) await ok(n, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, max_p2p_level: 6, hop_budget_randomized: true });
    await line(nodes);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n?.destroy()));
  });

  it('twelve sends from E to A with no probe before them: a draw that falls short is followed by a search within maxP2pLevel', async () => {
    const [A, , , , E] = nodes as [TestNode, TestNode, TestNode, TestNode, TestNode];
    // Each draw falls short of A three times in ten: twelve sends found a route every time in 1.4% of runs before.
    for (let i = 0; i < 12; i++) {
      const res = await call(E, 'POST', '/api/v1/wallet/send', { address: A.node.baseUrl, amount: '1', currency: 'VWL' });
      expect(res.body.error).toBeUndefined();
      expect(res.body.data).toMatchObject({ status: 'sent', type: 'p2p', amount: '1', currency: 'VWL' });
    }
  });

  it('twelve times: the probe that found E is followed by a send that reaches it', async () => {
    const [A, , , , E] = nodes as [TestNode, TestNode, TestNode, TestNode, TestNode];
    for (let i = 0; i < 12; i++) {
      // A probe drawn at three legs finds nothing; the next ones draw again until one reaches E.
      let found = false;
      for (let tries = 0; tries < 40 && !found; tries++) {
        const m = await ok(A, 'GET', '/api/v1/wallet/max-sendable', undefined, { address: E.node.baseUrl, currency: 'VWL' });
        found = m.routes_found > 0;
      }
      expect(found).toBe(true);
      const res = await call(A, 'POST', '/api/v1/wallet/send', { address: E.node.baseUrl, amount: '1', currency: 'VWL' });
      expect(res.body.error).toBeUndefined();
      expect(res.body.data).toMatchObject({ status: 'sent', type: 'p2p' });
    }
  });
});

describe('a budget that fell short, then only routes above maxFee: a third search pays the cheap route', () => {
  // A's only contact is R. From R, C reaches D at once and charges 6 %; B-E-F reach D two legs later at 0.5 % each, five
  // legs from A. A draw of three or four (about half the draws of six) reaches only C's route, which A refuses above
  // maxFee 5 %; the best-fee search within the same budget finds nothing else; the third, within maxP2pLevel, finds the
  // cheap route. With two searches at most, those sends failed over_max_fee: six in a row paid in 1.4% of runs.
  let A: TestNode, R: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode, F: TestNode;
  beforeAll(async () => {
    [A, R, B, C, D, E, F] = await Promise.all(Array.from({ length: 7 }, () => startTestNode()));
    for (const n of [A, R, B, C, D, E, F]) await ok(n, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, max_p2p_level: 6, hop_budget_randomized: true, max_fee: 10 });
    await dearShortCheapLong(A, R, B, C, D, E, F);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, R, B, C, D, E, F].map((t) => t?.destroy()));
  });

  it('six sends of 20 from A to D: every one pays the cheap route, none goes through C', async () => {
    const cheap = withFee(withFee(withFee(dec(20), '0.5'), '0.5'), '0.5');
    for (let i = 0; i < 6; i++) {
      const sent = await routedSend(A, D, '20');
      expect(sent).toMatchObject({ status: 'sent', total: cheap.toFixed() });
      await legsSettled([A, R, B, E, F, D], sent.p2p_hash);
      expect(await legsOf(C, sent.p2p_hash)).toEqual([]);
    }
    expect((await netOf(A)).toFixed()).toBe(cheap.times(6).negated().toFixed());
    expect((await netOf(D)).toFixed()).toBe('120');
    for (const t of [A, R, B, C, D, E, F]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 120_000);
});
