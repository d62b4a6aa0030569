/**
 * Debt-cycle clearing on a seeded graph of 20 real nodes: debts drawn from the seed form cycles of 3 to 6 lines and
 * some debts on no cycle. An exhaustive search written here (every simple cycle of the debt graph, independent of the
 * node's code) says what is clearable: the graph is drawn so that its cycles share no line (then every order of
 * clearing ends the same), and a cycle longer than `clearing_max_cycle_length` (5 here) is not clearable. Every node
 * runs clearings until none finds a cycle; the total outstanding debt then fell by exactly what the search says, no
 * node's net moved, and every chain verifies.
 *
 * Knobs: CLEARING_SEED (replays a run).
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { send, settled } from './ledger-support.js';
import { connect, netOf, ok, rng, waitFor } from './routing-support.js';

const SEED = Number(process.env.CLEARING_SEED ?? 20_261_128);
const N = 20;
const MAX_CYCLE = 5;
const CYCLE_LENGTHS = [3, 4, 5, 3, 6];
const LOOSE_DEBTS = 8;

/** A debt: `debtor` owes `creditor` `amount` (whole units). */
interface Debt {
  debtor: number;
  creditor: number;
  amount: number;
}

/** Every simple directed cycle (debtor → creditor edges), each once, as its list of debts. */
function simpleCycles(debts: readonly Debt[]): Debt[][] {
  const out = new Map<number, Debt[]>();
  for (const d of debts) out.set(d.debtor, [...(out.get(d.debtor) ?? []), d]);
  const cycles: Debt[][] = [];
  // Each cycle is found once, from its smallest node, through larger nodes only.
  const walk = (start: number, at: number, path: Debt[], seen: Set<number>): void => {
    for (const d of out.get(at) ?? []) {
      if (d.creditor === start) cycles.push([...path, d]);
      else if (d.creditor > start && !seen.has(d.creditor)) {
        seen.add(d.creditor);
        walk(start, d.creditor, [...path, d], seen);
        seen.delete(d.creditor);
      }
    }
  };
  for (let s = 0; s < N; s++) walk(s, s, [], new Set([s]));
  return cycles;
}

/**
 * The seeded debts: cycles of the given lengths and loose debts, one debt per pair of nodes at most (a line holds
 * one balance); drawn again until the graph's simple cycles share no debt, so the clearable total is unambiguous.
 */
function drawDebts(random: () => number): { debts: Debt[]; cycles: Debt[][] } {
  const pick = (n: number): number => Math.floor(random() * n);
  for (;;) {
    const debts: Debt[] = [];
    const used = new Set<string>();
    const pair = (a: number, b: number): string => (a < b ? `${a}-${b}` : `${b}-${a}`);
    const add = (debtor: number, creditor: number): boolean => {
      if (debtor === creditor || used.has(pair(debtor, creditor))) return false;
      used.add(pair(debtor, creditor));
      debts.push({ debtor, creditor, amount: 1 + pick(40) });
      return true;
    };
    for (const length of CYCLE_LENGTHS) {
      for (let attempt = 0; attempt < 50; attempt++) {
        const nodes = [...new Set(Array.from({ length: length * 3 }, () => pick(N)))].slice(0, length);
        if (nodes.length < length || nodes.some((v, i) => used.has(pair(v, nodes[(i + 1) % length]!)))) continue;
        nodes.forEach((v, i) => add(v, nodes[(i + 1) % length]!));
        break;
      }
    }
    for (let loose = 0; loose < LOOSE_DEBTS; ) if (add(pick(N), pick(N))) loose++;
    const cycles = simpleCycles(debts);
    const inCycles = cycles.flat();
    if (new Set(inCycles).size === inCycles.length && cycles.length >= CYCLE_LENGTHS.length) return { debts, cycles };
  }
}

describe(`debt-cycle clearing on a seeded 20-node graph (seed ${SEED})`, () => {
  const nodes: TestNode[] = [];
  const { debts, cycles } = drawDebts(rng(SEED));

  beforeAll(async () => {
    nodes.push(...(await Promise.all(Array.from({ length: N }, () => startTestNode()))));
    await Promise.all(
      nodes.map((t) =>
        ok(t, 'PUT', '/api/v1/system/settings', {
          contact_status_enabled: false,
          hop_budget_randomized: false,
          auto_cycle_clearing: true,
          clearing_max_cycle_length: MAX_CYCLE,
        }),
      ),
    );
    for (const d of debts) {
      const [a, b] = [nodes[d.debtor]!, nodes[d.creditor]!];
      await connect(a, b, { creditAtoB: '1000', creditBtoA: '1000', nameOfB: `n${d.creditor}`, nameOfA: `n${d.debtor}` });
      await settled(a, await send(a, b.node.baseUrl, String(d.amount)), b);
    }
  }, 300_000);
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
  });

  /** The debt outstanding on every line: the creditors' side of each balance, summed. */
  const outstanding = async (): Promise<Decimal> => {
    let sum = new Decimal(0);
    for (const t of nodes) {
      for (const b of (await ok(t, 'GET', '/api/v1/wallet/balance')).balances as any[]) if (new Decimal(b.net_balance).gt(0)) sum = sum.plus(b.net_balance);
    }
    return sum;
  };
  const nets = (): Promise<string[]> => Promise.all(nodes.map(async (t) => (await netOf(t)).toFixed()));

  it('clears exactly what the exhaustive search says is clearable; no net moves; every chain verifies', async () => {
    // Clearing a cycle takes its smallest debt off each of its lines.
    const clearable = cycles.filter((c) => c.length <= MAX_CYCLE).reduce((sum, c) => sum + c.length * Math.min(...c.map((d) => d.amount)), 0);
    const tooLong = cycles.filter((c) => c.length > MAX_CYCLE);
    expect(tooLong.length).toBeGreaterThan(0);
    const before = await outstanding();
    expect(before.toNumber()).toBe(debts.reduce((s, d) => s + d.amount, 0));
    const netsBefore = await nets();

    let runs = 0;
    let cleared = 0;
    for (let pass = 0, moved = true; moved; pass++) {
      expect(pass).toBeLessThan(4);
      moved = false;
      for (const t of nodes) {
        for (;;) {
          const r = await ok(t, 'POST', '/api/v1/clearing/run', { currency: 'VWL' });
          runs++;
          if (r.status === 'nothing_to_clear') break;
          const done = await waitFor(() => ok(t, 'GET', '/api/v1/clearing'), (l) => ['completed', 'failed', 'cancelled'].includes(l.clearings.find((c: any) => c.hash === r.hash)?.status), `clearing ${r.hash.slice(0, 8)} final`);
          if (done.clearings.find((c: any) => c.hash === r.hash).status !== 'completed') break;
          moved = true;
          cleared++;
        }
      }
    }
    const after = await waitFor(outstanding, (v) => v.eq(before.minus(clearable)), 'the debt cleared', 20_000).catch(async () => outstanding());
    console.log(
      `clearing graph: seed ${SEED}: ${debts.length} debts (${before.toFixed()} VWL), ${cycles.length} cycles (lengths ${cycles.map((c) => c.length).join(', ')}), ` +
        `${clearable} VWL of debt clearable by cycles of at most ${MAX_CYCLE} lines; ${cleared} clearings in ${runs} runs; outstanding ${before.toFixed()} → ${after.toFixed()}`,
    );
    expect(before.minus(after).toNumber()).toBe(clearable);
    expect(await nets()).toEqual(netsBefore);
    for (const t of nodes) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 600_000);
});
