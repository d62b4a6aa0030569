import { describe, expect, it } from 'vitest';
import { chainIsLinear } from '../../../builtin-plugins/ledger/chain.js';

const r = (txid: string, prev: string | null) => ({ txid, prev_txid: prev });

describe('chain linearity', () => {
  it('accepts an empty chain and an unbroken line', () => {
    expect(chainIsLinear([])).toBe(true);
    expect(chainIsLinear([r('a', null), r('b', 'a'), r('c', 'b')])).toBe(true);
  });
  it('refuses a gap, a fork and a second first link', () => {
    expect(chainIsLinear([r('a', null), r('c', 'b')])).toBe(false);
    expect(chainIsLinear([r('a', null), r('b', 'a'), r('c', 'a')])).toBe(false);
    expect(chainIsLinear([r('a', null), r('b', null)])).toBe(false);
    expect(chainIsLinear([r('b', 'a')])).toBe(false);
  });
});
