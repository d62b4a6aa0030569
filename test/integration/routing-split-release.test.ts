/**
 * The release path of a split payment: over the diamond A-B-D, A-C-D (60 each way), A pays D 100 in two parts and
 * the relay B refuses its part's leg after planning: B's clock runs 8 s ahead, inside the 20 s of a capacity probe and
 * the 300 s of a route request (so B answers them) but past the legs' window, 5 s here (so B refuses the leg as
 * expired). The part through C is
 * locked on its way or held at D; A's route.split_abort makes D release it: every leg of both parts ends released, no
 * balance moves, every chain verifies. With B's clock back, the same payment completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { diamond, legsOf, netOf, ok, waitFor } from './routing-support.js';

const FINAL = new Set(['completed', 'cancelled', 'rejected', 'failed']);
const SKEW_MS = 8_000;
const LEG_WINDOW_MS = '5000';

describe('a split payment whose second part a relay refuses', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode;
  let skew = 0;
  const previous = process.env.NODE_ROUTE_LEG_WINDOW_MS;

  beforeAll(async () => {
    process.env.NODE_ROUTE_LEG_WINDOW_MS = LEG_WINDOW_MS;
    [A, C, D] = await Promise.all(Array.from({ length: 3 }, () => startTestNode()));
    B = await startTestNode({ clock: { now: () => Date.now() + skew } });
    for (const t of [A, B, C, D]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 5 });
    await diamond(A, B, C, D);
  }, 120_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_ROUTE_LEG_WINDOW_MS;
    else process.env.NODE_ROUTE_LEG_WINDOW_MS = previous;
    await Promise.all([A, B, C, D].map((t) => t.destroy()));
  });

  /** Every leg of the parts on every node, once each is final. */
  const legsOfParts = async (hashes: string[]): Promise<any[]> => {
    const all = await Promise.all(
      [A, B, C, D].flatMap((t) => hashes.map((h) => waitFor(() => legsOf(t, h), (l) => l.every((x) => FINAL.has(x.status)), `legs of ${h.slice(0, 8)} final`, 30_000))),
    );
    return all.flat();
  };

  it('B refuses its part: split_abort releases the part held for D; every leg released, no balance moved, chains clean', async () => {
    const nets = await Promise.all([A, B, C, D].map((t) => netOf(t)));
    skew = SKEW_MS;
    let hashes: string[];
    try {
      const sent = await ok(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL', allow_split: true });
      expect(sent.status).toBe('sent');
      hashes = (sent.split.parts as any[]).map((p) => p.p2p_hash);
      expect(hashes).toHaveLength(2);
      const legs = await legsOfParts(hashes);
      // B refused its leg (expired) before locking it, so it holds none; every other leg was released.
      expect(await Promise.all(hashes.map((h) => legsOf(B, h)))).toEqual([[], []]);
      expect(legs.every((l) => l.status === 'cancelled')).toBe(true);
      const refused = legs.filter((l) => /expired/.test(l.failure_reason ?? ''));
      expect(refused).toHaveLength(1);
      // The other part, through C: D released it on the originator's abort (held it until then, or refused it as
      // over when the abort came first), never by its expiry. Held at D: A, C, C and D hold a leg of it.
      const other = legs.filter((l) => l.memo !== refused[0].memo);
      expect(other.length).toBeGreaterThanOrEqual(3);
      for (const l of other) expect(l.failure_reason).toMatch(/the originator released the split payment|this split payment is over/);
    } finally {
      skew = 0;
    }
    expect((await Promise.all([A, B, C, D].map((t) => netOf(t)))).map((n) => n.toFixed())).toEqual(nets.map((n) => n.toFixed()));
    for (const t of [A, B, C, D]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });

    // Nothing stays locked: with B's clock back, the same payment completes on every leg of both parts.
    const again = await ok(A, 'POST', '/api/v1/wallet/send', { address: D.node.baseUrl, amount: '100', currency: 'VWL', allow_split: true });
    const done = await legsOfParts((again.split.parts as any[]).map((p) => p.p2p_hash));
    expect(done.every((l) => l.status === 'completed')).toBe(true);
    expect((await netOf(D)).minus(nets[3]!).toFixed()).toBe('100');
  });
});
