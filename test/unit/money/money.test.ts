import { describe, expect, it } from 'vitest';
import { formatMinor, formatMinorFixed, fromParts, MAX_AMOUNT, parseAmount, parseDecimal, percentOf, toParts } from '../../../kernel/money.js';

describe('money', () => {
  it.each([
    ['5', 500000000n],
    [' 100 ', 10000000000n],
    ['0.00000001', 1n],
    ['1e2', 10000000000n],
    [1.5, 150000000n],
    ['+2', 200000000n],
    ['.5', 50000000n],
  ])('parses %j', (input, expected) => {
    expect(parseDecimal(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['abc', 'not_a_number'],
    ['100.50.50', 'not_a_number'],
    ['0x10', 'not_a_number'],
    ['', 'not_a_number'],
    [null, 'not_a_number'],
    ['-1', 'negative'],
    [-1, 'negative'],
    ['0.000000001', 'too_precise'],
    ['1e-9', 'too_precise'],
  ])('refuses %j as %s', (input, reason) => {
    expect(parseDecimal(input)).toEqual({ ok: false, reason });
  });

  it('bounds payment amounts', () => {
    expect(parseAmount('0')).toEqual({ ok: false, reason: 'zero' });
    expect(parseAmount('2305843009213693951')).toEqual({ ok: true, value: MAX_AMOUNT });
    expect(parseAmount('2305843009213693951.00000001')).toEqual({ ok: false, reason: 'too_large' });
  });

  it('formats trimmed and fixed', () => {
    expect(formatMinor(500000000n)).toBe('5');
    expect(formatMinor(10000000n)).toBe('0.1');
    expect(formatMinor(-150000000n)).toBe('-1.5');
    expect(formatMinor(0n)).toBe('0');
    expect(formatMinorFixed(-50000000n)).toBe('-0.50000000');
  });

  it('splits into whole and non-negative frac with the sign on whole', () => {
    expect(toParts(150000000n)).toEqual({ whole: 1n, frac: 50000000n });
    expect(toParts(-50000000n)).toEqual({ whole: -1n, frac: 50000000n });
    expect(fromParts(-1n, 50000000n)).toBe(-50000000n);
  });

  it('truncates percentages to the minor unit', () => {
    expect(percentOf(100n, '1.5')).toBe(1n);
    expect(percentOf(1000000000n, 2)).toBe(20000000n);
  });
});
