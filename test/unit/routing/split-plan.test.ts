/** The plan of a split payment: the routes widest first, each part what is left up to its route's width. */
import { describe, expect, it } from 'vitest';
import { planParts } from '../../../builtin-plugins/routing/split-send.js';
import type { RouteView } from '../../../builtin-plugins/routing/capacity.js';

const route = (via: string, amount: string): RouteView => ({ via, hops: 2, amount, fee: '0', fee_percent: '0', limited_at_hop: 1 });
const U = 100_000_000n;

describe('planParts', () => {
  it('fills the widest route first, the next with what is left', () => {
    expect(planParts([route('b', '59.40594059'), route('c', '60')], 100n * U)).toEqual([
      { via: 'c', hops: 2, amount: 60n * U },
      { via: 'b', hops: 2, amount: 40n * U },
    ]);
  });

  it('uses only as many routes as the amount needs, and skips empty ones', () => {
    expect(planParts([route('a', '0'), route('b', '10'), route('c', '30')], 25n * U)).toEqual([{ via: 'c', hops: 2, amount: 25n * U }]);
  });

  it('null when the routes together carry less than the amount', () => {
    expect(planParts([route('b', '60'), route('c', '60')], 120n * U + 1n)).toBeNull();
    expect(planParts([], 1n)).toBeNull();
  });
});
