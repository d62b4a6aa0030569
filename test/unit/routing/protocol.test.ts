import { describe, expect, it } from 'vitest';
import { conditionOf, hopBudget, parseRequest, relayFee, routeHash, withinMaxFee } from '../../../builtin-plugins/routing/protocol.js';
import { buildLeg, deriveTxid, parseContent, parseLeg, buildContent } from '../../../builtin-plugins/ledger/content.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('routing rules', () => {
  it('fees: the percent of the amount truncated to 1e-8, at least 1e-8 when not zero, nothing at 0 %', () => {
    expect(relayFee(10_000_000_000n, '1')).toBe(100_000_000n);
    expect(relayFee(10_200_000_000n, '1')).toBe(102_000_000n);
    expect(relayFee(3n, '1')).toBe(1n);
    expect(relayFee(123_456_789n, '0.5')).toBe(617_283n);
    expect(relayFee(1_000n, '0')).toBe(0n);
    expect(relayFee(1_000n, null)).toBe(0n);
  });

  it('maxFee is compared exactly: a fee of exactly the percent passes, one unit more does not', () => {
    expect(withinMaxFee(10_000_000_000n, 10_500_000_000n, 5)).toBe(true);
    expect(withinMaxFee(10_000_000_000n, 10_500_000_001n, 5)).toBe(false);
    expect(withinMaxFee(3n, 4n, 34)).toBe(true);
    expect(withinMaxFee(3n, 4n, 33)).toBe(false);
  });

  it('hop budget: maxP2pLevel, or from half of it upward when randomized', () => {
    expect(hopBudget(6, false)).toBe(6);
    expect(hopBudget(6, true, () => 0.1)).toBe(3);
    expect(hopBudget(6, true, () => 0.9)).toBe(6);
    expect(hopBudget(1, true, () => 0.9)).toBe(1);
    expect(hopBudget(40, false)).toBe(10);
  });

  it('the route hash commits to the address, the salt and the time', () => {
    const h = routeHash('https://carol:8080', 's'.repeat(64), 1);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(routeHash('https://carol:8081', 's'.repeat(64), 1)).not.toBe(h);
    expect(routeHash('https://carol:8080', 't'.repeat(64), 1)).not.toBe(h);
    expect(routeHash('https://carol:8080', 's'.repeat(64), 2)).not.toBe(h);
  });

  it('route requests are checked field by field', () => {
    const ok = { hash: A, salt: B, time: 1, currency: 'VWL', amount: '100', budget: 3, fast: true, expires: 2 };
    expect(parseRequest(ok)).toMatchObject({ amount: 100n, budget: 3 });
    for (const bad of [{ budget: 11 }, { amount: '0' }, { amount: 1 }, { hash: 'x' }, { fast: 'yes' }, { currency: 'V' }]) {
      expect(() => parseRequest({ ...ok, ...bad })).toThrow();
    }
  });
});

describe('routed legs in the ledger content', () => {
  const time = 1_700_000_000_000_001;
  const salt = '0123456789abcdef0123456789abcdef';
  const txid = deriveTxid({ from: A, to: B, amount: 5n, currency: 'VWL', time, salt });
  const preimage = 'c'.repeat(64);
  const condition = conditionOf(preimage);

  it('a leg statement parses; its txid commits to the same fields as a chain entry', () => {
    const leg = buildLeg({ txid, from: A, to: B, amount: '5', currency: 'VWL', time, salt, memo: 'd'.repeat(64), condition, expires: 9 });
    expect(parseLeg(leg)).toMatchObject({ txid, amountMinor: 5n, condition });
    expect(() => parseLeg(leg.replace('"leg":true', '"leg":false'))).toThrow();
  });

  it('a routed chain entry carries its preimage and no description', () => {
    const entry = buildContent({ txid, prev: null, from: A, to: B, amount: '5', currency: 'VWL', time, salt, memo: 'd'.repeat(64), condition, fulfillment: preimage });
    expect(parseContent(entry).fulfillment).toBe(preimage);
    const wrong = buildContent({ txid, prev: null, from: A, to: B, amount: '5', currency: 'VWL', time, salt, memo: 'd'.repeat(64), condition, fulfillment: 'e'.repeat(64) });
    expect(() => parseContent(wrong)).toThrow(/preimage/);
    const described = buildContent({ txid, prev: null, from: A, to: B, amount: '5', currency: 'VWL', time, salt, memo: 'd'.repeat(64), condition, fulfillment: preimage, description: 'hi' });
    expect(() => parseContent(described)).toThrow(/no description/);
    const direct = buildContent({ txid, prev: null, from: A, to: B, amount: '5', currency: 'VWL', time, salt, memo: 'standard', condition });
    expect(() => parseContent(direct)).toThrow(/routed legs only/);
  });
});
