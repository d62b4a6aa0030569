import { describe, expect, it } from 'vitest';
import { custom } from '../../../builtin-plugins/payback-methods/rails/custom.js';
import { expectFailures, expectValid } from './helpers.js';

const row = (key: string, value: string) => ({ key, value });

describe('custom rail', () => {
  it.each([
    ['EUR', [row('Bank', 'Sparkasse, ask for Jane')]],
    ['JPY', [row('Instructions', 'Line one\nLine two'), row('Reference', '')]],
    ['USDC', Array.from({ length: 50 }, (_, i) => row(`k${i}`, 'v'))],
    ['GOLD', [row('k'.repeat(64), 'v'.repeat(1024))]],
  ])('accepts %s with rows', (currency, rows) => expectValid(custom, { rows }, currency));

  it('trims keys and values when normalising', () => {
    expect(custom.normalize?.({ rows: [row('  Bank ', ' Sparkasse ')] }, 'EUR')).toEqual({ rows: [row('Bank', 'Sparkasse')] });
  });

  it.each([
    ['no rows field', {}, ['rows', 'required']],
    ['an empty list', { rows: [] }, ['rows', 'required']],
    ['51 rows', { rows: Array.from({ length: 51 }, () => row('k', 'v')) }, ['rows', 'too_long']],
    ['rows that is not a list', { rows: 'Bank: Sparkasse' }, ['rows', 'invalid_type']],
    ['a row that is not an object', { rows: ['Bank'] }, ['rows[0]', 'invalid_type']],
    ['an empty key', { rows: [row('ok', 'v'), row('  ', 'v')] }, ['rows[1].key', 'required']],
    ['a key of 65 characters', { rows: [row('k'.repeat(65), 'v')] }, ['rows[0].key', 'too_long']],
    ['a value of 1025 characters', { rows: [row('k', 'v'.repeat(1025))] }, ['rows[0].value', 'too_long']],
    ['a missing value', { rows: [{ key: 'k' }] }, ['rows[0].value', 'required']],
    ['a numeric value', { rows: [{ key: 'k', value: 5 }] }, ['rows[0].value', 'invalid_type']],
    ['a key with a newline', { rows: [row('a\nb', 'v')] }, ['rows[0].key', 'invalid_format']],
    ['an extra row field', { rows: [{ key: 'k', value: 'v', note: 'x' }] }, ['rows[0].note', 'unknown_field']],
    ['an extra top-level field', { rows: [row('k', 'v')], details: 'x' }, ['details', 'unknown_field']],
  ])('rejects %s', (_name, fields, failure) => {
    expectFailures(custom, fields, 'EUR', failure as [string, string]);
  });

  it('needs a plausible currency code', () => {
    expectFailures(custom, { rows: [row('k', 'v')] }, 'E', ['currency', 'unsupported_currency']);
  });

  it('never reveals row contents in the mask', () => {
    expect(custom.mask({ rows: [row('IBAN', 'DE89370400440532013000'), row('Name', 'Jane')] })).toBe('Custom (2 rows)');
    expect(custom.mask({ rows: 'junk' })).toBe('Custom ••••');
  });

  it('uses the currency precision: ISO 4217, known crypto, else 8', () => {
    expect(custom.precision('JPY')).toEqual({ min_unit: 1, exponent: 0 });
    expect(custom.precision('BHD')).toEqual({ min_unit: 1, exponent: 3 });
    expect(custom.precision('ETH')).toEqual({ min_unit: 1, exponent: 18 });
    expect(custom.precision('POINTS')).toEqual({ min_unit: 1, exponent: 8 });
  });
});
