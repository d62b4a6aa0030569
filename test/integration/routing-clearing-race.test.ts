/**
 * Clearings racing through one line: A owes B 10, and two cycles run through that line (B owes C, C owes A; B owes
 * D, D owes A; 10 each), so only one of them can be cleared.
 * - A payment from B through A, locked on that line (its next hop E is out), already cancels A's debt: two clearings
 *   started at once through the line then clear nothing, and once the payment completes the line is at 0, not owed
 *   the other way (the lock-time check counts the legs already locked).
 * - Clearings started at once by A, C and D (each a relay of the others) clear exactly one cycle: no line changes
 *   sign, the outstanding debt falls by exactly 30 (one cycle of three lines), every node's net is unchanged and every
 *   chain verifies. Several rounds, each from the same debts.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, send, settled } from './ledger-support.js';
import { call, connect, legsOf, netOf, ok, waitFor } from './routing-support.js';

const ROUNDS = 4;
const FINAL = new Set(['completed', 'rejected', 'cancelled', 'failed']);

describe('clearings racing through one shared line', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode;
  /** The debts, payer first: each send makes its payer owe its payee 10. */
  let debts: (readonly [TestNode, TestNode])[];

  /** What each debtor owes on its line (the creditor's net toward it), in the order of `debts`. */
  const owed = (): Promise<Decimal[]> => Promise.all(debts.map(async ([debtor, creditor]) => new Decimal((await balanceRow(creditor, debtor))!.net_balance)));

  beforeAll(async () => {
    [A, B, C, D, E] = await Promise.all(Array.from({ length: 5 }, () => startTestNode()));
    for (const t of [A, B, C, D, E]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, auto_cycle_clearing: true });
    await connect(A, B, { nameOfB: 'nB', nameOfA: 'nA' });
    await connect(B, C, { nameOfB: 'nC', nameOfA: 'nB' });
    await connect(C, A, { nameOfB: 'nA', nameOfA: 'nC' });
    await connect(B, D, { nameOfB: 'nD', nameOfA: 'nB' });
    await connect(D, A, { nameOfB: 'nA', nameOfA: 'nD' });
    await connect(A, E, { nameOfB: 'nE', nameOfA: 'nA' });
    debts = [[A, B], [B, C], [C, A], [B, D], [D, A]];
    for (const [debtor, creditor] of debts) await settled(debtor, await send(debtor, creditor.node.baseUrl, '10'), creditor);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E].map((t) => t.destroy()));
  });

  /** Waits until every leg of each clearing started by `runs` is final on every node. */
  const finalLegs = async (runs: { body: any }[]): Promise<void> => {
    for (const hash of runs.map((r) => r.body.data?.hash).filter((h): h is string => typeof h === 'string')) {
      for (const t of [A, B, C, D]) await waitFor(() => legsOf(t, hash), (legs) => legs.every((l) => FINAL.has(l.status)), `legs of ${hash.slice(0, 8)} final`);
    }
  };

  it('a payment locked on the shared line: two clearings at once through it clear nothing; the line ends at 0, not flipped', async () => {
    // B pays E 10 through A (the shortest of the equal-fee routes); E is out when B approves, so the leg B -> A stays
    // locked at A: once it completes, A owes B nothing.
    await ok(B, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
    const payment = await ok(B, 'POST', '/api/v1/wallet/send', { address: E.node.baseUrl, amount: '10', currency: 'VWL', best_fee: true });
    expect(payment.status).toBe('awaiting_approval');
    await ok(E, 'POST', '/api/v1/system/out');
    try {
      const candidates = (await ok(B, 'GET', `/api/v1/p2p/candidates/${payment.p2p_hash}`)).candidates as any[];
      const direct = candidates.reduce((a, b) => (b.hops < a.hops ? b : a));
      await ok(B, 'POST', '/api/v1/p2p/approve', { hash: payment.p2p_hash, candidate_id: direct.id });
      const locked = await waitFor(() => legsOf(A, payment.p2p_hash), (l) => l.length === 2, 'A locked the leg from B');
      // A relays it: its leg in from B is locked (accepted), its leg out to E cannot be delivered (sent).
      expect(locked.map((l) => [l.status, l.amount]).sort()).toEqual([['accepted', '10'], ['sent', '10']]);
      const nets = await Promise.all([A, C, D].map((t) => netOf(t)));

      const runs = await Promise.all([C, D].map((t) => call(t, 'POST', '/api/v1/clearing/run', { currency: 'VWL' })));
      await finalLegs(runs);
      // Nothing was cleared: the locked payment already cancels the line's whole debt.
      expect((await owed()).map((d) => d.toFixed())).toEqual(['10', '10', '10', '10', '10']);
      expect((await Promise.all([A, C, D].map((t) => netOf(t)))).map((n) => n.toFixed())).toEqual(nets.map((n) => n.toFixed()));
    } finally {
      await ok(E, 'POST', '/api/v1/system/in');
      await ok(B, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: true });
    }
    for (const t of [B, A, E]) {
      await waitFor(() => legsOf(t, payment.p2p_hash), (l) => l.length > 0 && l.every((x) => x.status === 'completed'), 'the payment completed', 30_000);
    }
    expect((await owed()).map((d) => d.toFixed())).toEqual(['0', '10', '10', '10', '10']);
    for (const t of [A, B, C, D, E]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  });

  it(`${ROUNDS} rounds of three clearings at once: one cycle cleared, no line flipped, nets unchanged, chains clean`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // Back to the debts of the picture: whatever is owed now, topped up to 10 on every line.
      for (const [i, value] of (await owed()).entries()) {
        const [debtor, creditor] = debts[i]!;
        const top = new Decimal(10).minus(value);
        if (top.gt(0)) await settled(debtor, await send(debtor, creditor.node.baseUrl, top.toFixed()), creditor);
      }
      const before = await owed();
      expect(before.map((d) => d.toFixed())).toEqual(['10', '10', '10', '10', '10']);
      const nets = await Promise.all([A, B, C, D].map((t) => netOf(t)));

      const runs = await Promise.all([A, C, D].map((t) => call(t, 'POST', '/api/v1/clearing/run', { currency: 'VWL' })));
      await finalLegs(runs);

      const after = await owed();
      for (const [i, value] of after.entries()) {
        // A line's debt falls, to 0 at most: it never turns into a debt the other way.
        expect(value.gte(0) && value.lte(before[i]!), `round ${round}: debt ${i} is ${value.toFixed()}`).toBe(true);
      }
      const cleared = before.reduce((s, d) => s.plus(d), new Decimal(0)).minus(after.reduce((s, d) => s.plus(d), new Decimal(0)));
      expect(cleared.toFixed(), `round ${round}: outstanding debt cleared`).toBe('30');
      expect(after[0]!.toFixed()).toBe('0');
      expect((await Promise.all([A, B, C, D].map((t) => netOf(t)))).map((n) => n.toFixed())).toEqual(nets.map((n) => n.toFixed()));
      for (const t of [A, B, C, D]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    }
  }, 180_000);
});
