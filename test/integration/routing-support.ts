/**
 * Helpers of the routing tests: credit lines with fees between test nodes, routed sends through the REST API, and
 * reading a routed payment's legs back on every node by its hash (the memo of each leg).
 */
import { Decimal } from 'decimal.js';
import type { TestNode } from '../support/node.js';
import { call, connect, hashOf, ok, waitFor } from './ledger-support.js';

export { call, connect, hashOf, ok, waitFor };

export interface LineOptions {
  currency?: string;
  /** Credit each node extends to the next one and to the previous one. */
  credit?: string;
}

/** Connects every node to the next one (a line), each extending `credit` both ways. */
export async function line(nodes: readonly TestNode[], opts: LineOptions = {}): Promise<void> {
  for (let i = 0; i + 1 < nodes.length; i++) {
    await connect(nodes[i]!, nodes[i + 1]!, {
      currency: opts.currency ?? 'VWL',
      creditAtoB: opts.credit ?? '1000',
      creditBtoA: opts.credit ?? '1000',
      nameOfB: `n${i + 1}`,
      nameOfA: `n${i}`,
    });
  }
}

/**
 * The diamond A-B-D, A-C-D whose two routes carry 60 each: one limited by A's own line (B extends 60 to A), the other
 * by the line into D (D extends 60 to C); every other line carries 100 toward D and 1000 back.
 */
export async function diamond(A: TestNode, B: TestNode, C: TestNode, D: TestNode): Promise<void> {
  await connect(A, B, { creditAtoB: '1000', creditBtoA: '60', nameOfB: 'nB', nameOfA: 'nA' });
  await connect(B, D, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'nD', nameOfA: 'nB' });
  await connect(A, C, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'nC', nameOfA: 'nA' });
  await connect(C, D, { creditAtoB: '1000', creditBtoA: '60', nameOfB: 'nD', nameOfA: 'nC' });
}

/**
 * Two routes from A to D through A's only contact R: through C at once, C charging 6 %, and through B-E-F two legs
 * later, 0.5 % each. A's maxFee is 5 %, so in fast mode R passes on C's route first, which A refuses. The relays must
 * allow a fee of 6 % (maxFee 10 on C).
 */
export async function dearShortCheapLong(A: TestNode, R: TestNode, B: TestNode, C: TestNode, D: TestNode, E: TestNode, F: TestNode): Promise<void> {
  await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 5 });
  await line([A, R, C, D]);
  await line([R, B, E, F, D]);
  await setFee(C, R, 6);
  await setFee(B, R, '0.5');
  await setFee(E, B, '0.5');
  await setFee(F, E, '0.5');
}

/** `relay` charges `percent` on what it relays for `upstream` (the fee of its line toward that upstream). */
export async function setFee(relay: TestNode, upstream: TestNode, percent: string | number, currency = 'VWL'): Promise<void> {
  await ok(relay, 'PUT', `/api/v1/contacts/${hashOf(upstream)}`, { currency, fee_percent: percent });
}

export async function routedSend(
  from: TestNode,
  to: TestNode | string,
  amount: string,
  opts: { currency?: string; bestFee?: boolean; description?: string } = {},
): Promise<any> {
  const address = typeof to === 'string' ? to : to.node.baseUrl;
  return ok(from, 'POST', '/api/v1/wallet/send', {
    address,
    amount,
    currency: opts.currency ?? 'VWL',
    ...(opts.bestFee ? { best_fee: true } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  });
}

/** This node's legs of a routed payment (their memo is the route hash). */
export async function legsOf(t: TestNode, hash: string): Promise<any[]> {
  const rows: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset });
    rows.push(...(page.transactions as any[]).filter((r) => r.memo === hash));
    if (offset + 100 >= page.pagination.total) break;
  }
  return rows;
}

const FINAL = new Set(['completed', 'rejected', 'cancelled', 'failed']);

/**
 * Waits until each node holds its legs of the payment (one at the ends of the route, two at a relay) and every one is
 * final, and returns them per node.
 */
export async function legsSettled(nodes: readonly TestNode[], hash: string, timeoutMs = 20_000): Promise<any[][]> {
  return Promise.all(
    nodes.map((t, i) =>
      waitFor(
        () => legsOf(t, hash),
        (legs) => legs.length === (i === 0 || i === nodes.length - 1 ? 1 : 2) && legs.every((l) => FINAL.has(l.status)),
        `legs of ${hash.slice(0, 8)} final on node ${i}`,
        timeoutMs,
      ),
    ),
  );
}

/** Net balance (received − sent) of a node over every contact in a currency, exact. */
export async function netOf(t: TestNode, currency = 'VWL'): Promise<Decimal> {
  const data = await ok(t, 'GET', '/api/v1/wallet/balance');
  return (data.balances as any[])
    .filter((b) => b.currency.toLowerCase() === currency.toLowerCase())
    .reduce((sum: Decimal, b: any) => sum.plus(b.net_balance), new Decimal(0));
}

export async function feeEarnings(t: TestNode, currency = 'VWL'): Promise<string> {
  const info = await ok(t, 'GET', '/api/v1/wallet/info');
  return (info.fee_earnings as any[]).find((f) => f.currency.toLowerCase() === currency.toLowerCase())?.total_amount ?? '0';
}

export const dec = (s: string | number): Decimal => new Decimal(s);

/** What a relay charging `percent` adds to `amount` (truncated to 1e-8, at least 1e-8 when the percent is not 0). */
export function withFee(amount: Decimal, percent: string | number): Decimal {
  if (new Decimal(percent).isZero()) return amount;
  const fee = amount.times(percent).div(100).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  return amount.plus(fee.isZero() ? new Decimal('0.00000001') : fee);
}

/** mulberry32: a small seeded generator, so a failing random test replays from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
