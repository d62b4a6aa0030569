import { describe, expect, it } from 'vitest';
import { auBank, checkAccountNumber, checkBsb } from '../../../plugins/aud-bank/index.js';

describe('the au_bank example rail', () => {
  it.each([
    ['062000', '062-000'],
    ['062-000', '062-000'],
    ['062 000', '062-000'],
    ['733-123', '733-123'],
  ])('takes BSB %s as %s', (input, stored) => {
    expect(checkBsb(input)).toEqual({ ok: true, value: stored });
  });

  it.each([
    ['06200', 'invalid_format'],
    ['062-0000', 'invalid_format'],
    ['062_000', 'invalid_format'],
    ['06A000', 'invalid_format'],
    ['000-000', 'invalid_value'],
  ])('refuses BSB %s with %s', (input, code) => {
    expect(checkBsb(input)).toMatchObject({ ok: false, error: { field: 'bsb', code } });
  });

  it('takes account numbers of 5 to 9 digits, spaces and dashes ignored', () => {
    expect(checkAccountNumber('12345')).toEqual({ ok: true, value: '12345' });
    expect(checkAccountNumber('1234 5678 9')).toEqual({ ok: true, value: '123456789' });
    expect(checkAccountNumber('1234')).toMatchObject({ ok: false, error: { code: 'invalid_length' } });
    expect(checkAccountNumber('1234567890')).toMatchObject({ ok: false, error: { code: 'invalid_length' } });
    expect(checkAccountNumber('00000')).toMatchObject({ ok: false, error: { code: 'invalid_value' } });
    expect(checkAccountNumber('12.345')).toMatchObject({ ok: false, error: { code: 'invalid_format' } });
  });

  it('validates every field once, in AUD only, and refuses unknown fields', () => {
    expect(auBank.validate({ account_name: 'Jo', bsb: '062000', account_number: '123456' }, 'AUD')).toEqual([]);
    expect(auBank.validate({ account_name: 7, bsb: '', account_number: null, extra: 1 }, 'NZD').map((e) => [e.field, e.code])).toEqual([
      ['currency', 'unsupported_currency'],
      ['extra', 'unknown_field'],
      ['account_name', 'invalid_type'],
      ['bsb', 'required'],
      ['account_number', 'required'],
    ]);
    expect(auBank.validate({ account_name: 'x'.repeat(33), bsb: '062000', account_number: '123456', reference: 'ü' }, 'AUD').map((e) => [e.field, e.code])).toEqual([
      ['account_name', 'too_long'],
      ['reference', 'invalid_format'],
    ]);
  });

  it('masks at most the last four digits, never more than half, and shortens the name', () => {
    expect(auBank.mask({ account_name: 'Jane Mary Citizen', bsb: '062-000', account_number: '12345678' })).toBe('AU BSB 062-000 •••• 5678 (J. Citizen)');
    expect(auBank.mask({ account_name: 'Cher', bsb: '062-000', account_number: '12345' })).toBe('AU BSB 062-000 •••• 45 (Cher)');
    expect(auBank.precision('AUD')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
