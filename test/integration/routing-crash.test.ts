/**
 * A relay stopped at random points of 50 routed payments and started again on the same data directory and port:
 * every payment ends completed on all its legs or on none, nothing is paid twice, and the books balance on every
 * node (the sum of the nets is zero, each relay's net is exactly its fees, the destination got exactly what completed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, feeEarnings, legsOf, netOf, ok, rng, setFee, waitFor, withFee } from './routing-support.js';

const SEED = Number(process.env.ROUTING_SEED ?? 4242);

describe(`a relay stopped mid-payment (seed ${SEED})`, () => {
  // A pays D over B (0.5 %, the cheaper) or C (1 %); B is stopped and restarted while payments flow.
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode;
  const previous = process.env.NODE_PEER_RETRY_BASE_MS;

  beforeAll(async () => {
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
    [A, B, C, D] = await Promise.all(Array.from({ length: 4 }, () => startTestNode()));
    for (const t of [A, B, C, D]) {
      await ok(t, 'PUT', '/api/v1/system/settings', {
        contact_status_enabled: false,
        hop_budget_randomized: false,
        max_fee: 10,
        p2p_expiration: 60,
        rate_limit_enabled: false,
      });
    }
    await connect(A, B, { nameOfB: 'Bea', nameOfA: 'Ada', creditAtoB: '100000', creditBtoA: '100000' });
    await connect(A, C, { nameOfB: 'Cid', nameOfA: 'Ada', creditAtoB: '100000', creditBtoA: '100000' });
    await connect(B, D, { nameOfB: 'Dan', nameOfA: 'Bea', creditAtoB: '100000', creditBtoA: '100000' });
    await connect(C, D, { nameOfB: 'Dan', nameOfA: 'Cid', creditAtoB: '100000', creditBtoA: '100000' });
    await setFee(B, A, '0.5');
    await setFee(C, A, 1);
  }, 120_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previous;
    await Promise.all([A, B, C, D].map((t) => t.destroy()));
  });

  it('50 payments, B stopped at random points: all legs or none, exact books everywhere', async () => {
    console.log(`routing crash: seed ${SEED} (ROUTING_SEED replays it)`);
    const random = rng(SEED);
    const port = B.node.port;
    const sent: { hash: string; amount: Decimal }[] = [];
    let refused = 0;
    for (let wave = 0; wave < 5; wave++) {
      const amounts = Array.from({ length: 10 }, () => new Decimal(1 + Math.floor(random() * 5000)).div(100));
      const calls = Promise.all(
        amounts.map((amount) =>
          call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: amount.toFixed(), currency: 'VWL', best_fee: random() < 0.7 }).then((r) => ({ r, amount })),
        ),
      );
      // B goes down at a random point: in discovery (odd waves), or once the routes are chosen, while prepares,
      // fulfilments and chain entries are on their way (even waves: the sends answer when the first leg leaves A).
      // In waves 2 and 3 C is cut off: every route goes through B, and a B that restarted without its searches
      // refuses the legs it offered (the payment is then released everywhere).
      const alone = wave === 2 || wave === 3;
      if (alone) await ok(C, 'POST', '/api/v1/system/out');
      const answers = wave % 2 === 0 ? await calls : null;
      await new Promise((r) => setTimeout(r, Math.floor(random() * (answers ? 25 : 40))));
      await B.stop();
      await new Promise((r) => setTimeout(r, Math.floor(random() * 400)));
      await B.restart({ NODE_PORT: String(port) });
      if (alone) await ok(C, 'POST', '/api/v1/system/in');
      for (const { r, amount } of answers ?? (await calls)) {
        if (r.status === 200) sent.push({ hash: r.body.data.p2p_hash, amount });
        else {
          expect(r.body.error.code).toBe('no_route');
          refused++;
        }
      }
    }
    console.log(`routing crash: ${sent.length} payments routed, ${refused} found no route while B was down`);

    // Each payment ends: its first leg on A is completed or cancelled, or no leg was ever made (no route chosen).
    const FINAL = new Set(['completed', 'cancelled', 'rejected', 'failed']);
    const outcome = new Map<string, string>();
    for (const s of sent) {
      const p = await waitFor(
        async () => ({ legs: await legsOf(A, s.hash), pending: (await ok(A, 'GET', '/api/v1/p2p')).transactions.some((t: any) => t.hash === s.hash) }),
        (v) => (v.legs.length === 1 && FINAL.has(v.legs[0].status)) || (v.legs.length === 0 && !v.pending),
        `payment ${s.hash.slice(0, 8)} final`,
        60_000,
      );
      outcome.set(s.hash, p.legs[0]?.status ?? 'no_route');
      if (p.legs[0]?.status !== 'completed') console.log(`routing crash: ${s.hash.slice(0, 8)} ended ${p.legs[0]?.status ?? 'without a leg'}: ${p.legs[0]?.failure_reason ?? ''}`);
    }
    // Every node agrees leg by leg: all completed, or none.
    let viaB = new Decimal(0);
    let viaC = new Decimal(0);
    let atD = new Decimal(0);
    for (const s of sent) {
      const [a, b, c, d] = await Promise.all([A, B, C, D].map((t) =>
        waitFor(() => legsOf(t, s.hash), (legs) => legs.every((l) => FINAL.has(l.status)), `legs of ${s.hash.slice(0, 8)} final`, 60_000),
      ));
      const done = outcome.get(s.hash) === 'completed';
      const relay = b!.length ? b! : c!;
      if (done) {
        expect(b!.length + c!.length).toBe(2);
        for (const l of [...a!, ...relay, ...d!]) expect(l.status).toBe('completed');
        expect(d).toHaveLength(1);
        expect(d![0].amount).toBe(s.amount.toFixed());
        const total = new Decimal(a![0].amount);
        expect(total.eq(withFee(s.amount, b!.length ? '0.5' : 1))).toBe(true);
        if (b!.length) viaB = viaB.plus(total.minus(s.amount));
        else viaC = viaC.plus(total.minus(s.amount));
        atD = atD.plus(s.amount);
      } else {
        for (const l of [...a!, ...b!, ...c!, ...d!]) expect(l.status).not.toBe('completed');
      }
    }
    const completed = [...outcome.values()].filter((o) => o === 'completed').length;
    const throughB = (await Promise.all(sent.map((s) => legsOf(B, s.hash)))).filter((l) => l.length > 0).length;
    console.log(
      `routing crash: ${completed} completed on every leg, ${sent.length - completed} on none (${[...outcome.values()].filter((o) => o !== 'completed').join(', ') || '-'}); ` +
        `${throughB} had legs at B`,
    );
    expect(completed).toBeGreaterThan(0);
    const nets = await Promise.all([A, B, C, D].map((t) => netOf(t)));
    expect(nets.reduce((s, n) => s.plus(n), new Decimal(0)).isZero()).toBe(true);
    expect(nets[1]!.eq(viaB)).toBe(true);
    expect(nets[2]!.eq(viaC)).toBe(true);
    expect(nets[3]!.eq(atD)).toBe(true);
    expect(new Decimal(await feeEarnings(B)).eq(viaB)).toBe(true);
  }, 300_000);

  it('B restarted between discovery and execution refuses the leg it no longer knows: released everywhere, nothing moved', async () => {
    await ok(C, 'POST', '/api/v1/system/out');
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
    const nets = await Promise.all([A, B, D].map((t) => netOf(t)));
    const held = await call(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '7', currency: 'VWL' });
    expect(held.body.data.status).toBe('awaiting_approval');
    await B.stop();
    await B.restart({ NODE_PORT: String(B.node.port) });
    await ok(A, 'POST', '/api/v1/p2p/approve', { hash: held.body.data.p2p_hash });
    const legs = await waitFor(() => legsOf(A, held.body.data.p2p_hash), (l) => l[0]?.status === 'cancelled', 'the first leg released');
    expect(legs[0].failure_reason).toMatch(/route_unknown/);
    expect(await legsOf(B, held.body.data.p2p_hash)).toEqual([]);
    expect(await legsOf(D, held.body.data.p2p_hash)).toEqual([]);
    const after = await Promise.all([A, B, D].map((t) => netOf(t)));
    after.forEach((n, i) => expect(n.eq(nets[i]!)).toBe(true));
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: true });
    await ok(C, 'POST', '/api/v1/system/in');
  });
});
