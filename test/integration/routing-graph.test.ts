/**
 * Best-fee routing on a seeded random credit graph of real nodes (25 by default): in every run the route taken is
 * the cheapest feasible route within the hop budget, checked against an exhaustive search of the same graph (fees,
 * credits, and the balances earlier runs left). Prints the seed (ROUTING_SEED replays a run) and the route messages
 * each discovery took, which stay within the bound the protocol gives: one request per contact and search, at most
 * `maxP2pLevel` searches per node.
 *
 * Knobs: ROUTING_SEED, ROUTING_NODES (25), ROUTING_RUNS (10), ROUTING_MAX_LEVEL (5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, dec, hashOf, legsOf, ok, rng, setFee, waitFor, withFee } from './routing-support.js';

const intEnv = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

const SEED = intEnv('ROUTING_SEED', 20_250_611);
const N = intEnv('ROUTING_NODES', 25);
const RUNS = intEnv('ROUTING_RUNS', 10);
const MAX_LEVEL = intEnv('ROUTING_MAX_LEVEL', 5);
const FEES = ['0', '0.1', '0.25', '0.5', '1', '2', '3'];

interface Graph {
  edges: [number, number][];
  /** credit[v][u]: what v extends to u (how far u may go into debt to v). */
  credit: Map<number, Map<number, Decimal>>;
  /** fee[v][u]: the percent v charges for relaying what u sends through it. */
  fee: Map<number, Map<number, string>>;
  neighbours: Map<number, number[]>;
}

function randomGraph(random: () => number): Graph {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const edges: [number, number][] = [];
  const has = (a: number, b: number): boolean => edges.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  for (let i = 1; i < N; i++) edges.push([Math.floor(random() * i), i]);
  for (let extra = 0; extra < Math.floor(N * 0.6); ) {
    const a = Math.floor(random() * N);
    const b = Math.floor(random() * N);
    if (a === b || has(a, b)) continue;
    edges.push([a, b]);
    extra++;
  }
  const credit = new Map<number, Map<number, Decimal>>();
  const fee = new Map<number, Map<number, string>>();
  const neighbours = new Map<number, number[]>();
  const set = <T>(m: Map<number, Map<number, T>>, a: number, b: number, v: T): void => {
    m.set(a, (m.get(a) ?? new Map()).set(b, v));
  };
  for (const [a, b] of edges) {
    set(credit, a, b, new Decimal(30 + Math.floor(random() * 270)));
    set(credit, b, a, new Decimal(30 + Math.floor(random() * 270)));
    set(fee, a, b, pick(FEES));
    set(fee, b, a, pick(FEES));
    neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
    neighbours.set(b, [...(neighbours.get(b) ?? []), a]);
  }
  return { edges, credit, fee, neighbours };
}

/**
 * The cheapest route from `o` to `d` of at most `maxLegs` legs whose every line can carry what it must (fees
 * compound toward the originator), over every simple path. `debt(u, v)`: what u owes v now.
 */
function exhaustive(g: Graph, o: number, d: number, amount: Decimal, maxLegs: number, debt: (u: number, v: number) => Decimal): { total: Decimal; path: number[] } | null {
  let best: { total: Decimal; path: number[] } | null = null;
  const walk = (path: number[]): void => {
    const last = path[path.length - 1]!;
    if (last === d) {
      // Backward from the destination: the last leg carries the amount, each relay adds its fee for its upstream.
      let carried = amount;
      for (let i = path.length - 1; i >= 1; i--) {
        const payer = path[i - 1]!;
        const payee = path[i]!;
        if (i < path.length - 1) carried = withFee(carried, g.fee.get(payee)!.get(payer)!);
        if (carried.gt(g.credit.get(payee)!.get(payer)!.minus(debt(payer, payee)))) return;
      }
      if (!best || carried.lt(best.total) || (carried.eq(best.total) && path.length < best.path.length)) best = { total: carried, path: [...path] };
      return;
    }
    if (path.length - 1 >= maxLegs) return;
    for (const next of g.neighbours.get(last) ?? []) if (!path.includes(next)) walk([...path, next]);
  };
  walk([o]);
  return best;
}

describe(`best-fee on a seeded random credit graph (seed ${SEED}, ${N} nodes)`, () => {
  const random = rng(SEED);
  const g = randomGraph(random);
  let nodes: TestNode[] = [];

  beforeAll(async () => {
    console.log(`routing graph: seed ${SEED} (ROUTING_SEED replays it), ${N} nodes, ${g.edges.length} credit lines, maxP2pLevel ${MAX_LEVEL}`);
    nodes = [];
    for (let i = 0; i < N; i += 5) nodes.push(...(await Promise.all(Array.from({ length: Math.min(5, N - i) }, () => startTestNode()))));
    await Promise.all(
      nodes.map((t) =>
        ok(t, 'PUT', '/api/v1/system/settings', {
          contact_status_enabled: false,
          hop_budget_randomized: false,
          max_p2p_level: MAX_LEVEL,
          max_fee: 50,
          rate_limit_enabled: false,
          p2p_rate_limit_per_minute: 100_000,
        }),
      ),
    );
    for (const [a, b] of g.edges) {
      await connect(nodes[a]!, nodes[b]!, {
        creditAtoB: g.credit.get(a)!.get(b)!.toFixed(),
        creditBtoA: g.credit.get(b)!.get(a)!.toFixed(),
        nameOfB: `node${b}`,
        nameOfA: `node${a}`,
      });
      if (g.fee.get(a)!.get(b) !== '0') await setFee(nodes[a]!, nodes[b]!, g.fee.get(a)!.get(b)!);
      if (g.fee.get(b)!.get(a) !== '0') await setFee(nodes[b]!, nodes[a]!, g.fee.get(b)!.get(a)!);
    }
    console.log(`routing graph: up, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  }, 600_000);
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
  });

  /** What u owes v, from v's books. */
  async function debts(): Promise<(u: number, v: number) => Decimal> {
    const books = await Promise.all(nodes.map((t) => ok(t, 'GET', '/api/v1/wallet/balance')));
    const index = new Map(nodes.map((t, i) => [hashOf(t), i]));
    const owed = new Map<string, Decimal>();
    books.forEach((book, v) => {
      for (const row of book.balances as any[]) owed.set(`${index.get(row.pubkey_hash)}:${v}`, new Decimal(row.net_balance));
    });
    return (u, v) => owed.get(`${u}:${v}`) ?? new Decimal(0);
  }

  async function sentMessages(): Promise<{ requests: number; responses: number; cancels: number }> {
    const all = await Promise.all(nodes.map((t) => ok(t, 'GET', '/api/v1/system/metrics')));
    const sum = { requests: 0, responses: 0, cancels: 0 };
    for (const m of all) {
      const s = m.plugins.routing.messages_sent;
      sum.requests += s.requests;
      sum.responses += s.responses;
      sum.cancels += s.cancels;
    }
    return sum;
  }

  it(`${RUNS} payments between random nodes: each takes the cheapest feasible route within ${MAX_LEVEL} legs`, async () => {
    const directedEdges = 2 * g.edges.length;
    for (let run = 0; run < RUNS; run++) {
      const o = Math.floor(random() * N);
      let d = Math.floor(random() * N);
      while (d === o || g.neighbours.get(o)!.includes(d)) d = Math.floor(random() * N);
      const amount = new Decimal(1 + Math.floor(random() * 8000)).div(100);
      const expected = exhaustive(g, o, d, amount, MAX_LEVEL, await debts());
      const before = await sentMessages();
      const res = await call(nodes[o]!, 'POST', '/api/v1/wallet/send', { address: nodes[d]!.node.baseUrl, amount: amount.toFixed(), currency: 'VWL', best_fee: true });
      const after = await sentMessages();
      const used = { requests: after.requests - before.requests, responses: after.responses - before.responses, cancels: after.cancels - before.cancels };
      console.log(
        `run ${run}: node${o} → node${d} ${amount.toFixed()}: exhaustive ${expected ? `${expected.total.toFixed()} via ${expected.path.join('-')}` : 'no route'}; ` +
          `network ${res.status === 200 ? res.body.data.total : res.body.error.code}; route messages: ${used.requests} requests, ${used.responses} answers, ${used.cancels} cancels ` +
          `(bound ${directedEdges * MAX_LEVEL} = ${directedEdges} directed lines x ${MAX_LEVEL})`,
      );
      expect(used.requests).toBeLessThanOrEqual(directedEdges * MAX_LEVEL);
      expect(used.responses).toBeLessThanOrEqual(used.requests);
      if (!expected) {
        expect(res.body.error?.code).toBe('no_route');
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(expected.total.toFixed());
      const hash = res.body.data.p2p_hash as string;
      // Every leg settles on every node before the next run reads the balances.
      await Promise.all(
        nodes.map((t) => waitFor(() => legsOf(t, hash), (legs) => legs.every((l) => l.status === 'completed'), `legs settled on a node`, 20_000)),
      );
      const atD = await legsOf(nodes[d]!, hash);
      expect(atD).toHaveLength(1);
      expect(atD[0].amount).toBe(amount.toFixed());
      const hops = (await Promise.all(nodes.map((t) => legsOf(t, hash)))).filter((l) => l.length === 2).length + 1;
      expect(hops).toBeLessThanOrEqual(MAX_LEVEL);
      expect(dec(res.body.data.total).eq(expected.total)).toBe(true);
    }
  }, 600_000);
});
