/** The example rail of plugins/aud-bank, run in a real isolate by the test kit (wallet-node/sdk/testing). */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RailFieldError } from '../../../sdk/payback-rail.js';
import { loadPlugin, railProblems } from '../../../sdk/testing.js';
import { REPO } from '../../integration/sandbox-support.js';

const plugin = await loadPlugin(join(REPO, 'plugins', 'aud-bank'));
afterAll(() => plugin.stop());
const auBank = plugin.rail('au_bank');
const VALID = { account_name: 'Jo', bsb: '062000', account_number: '123456' };

type Checked = { ok: true; value: string } | { ok: false; error: RailFieldError };

/** One field checked through the rail, as checkBsb and checkAccountNumber of the plugin check it. */
function check(field: 'bsb' | 'account_number', input: string): Checked {
  const fields = { ...VALID, [field]: input };
  const error = auBank.validate(fields, 'AUD').find((e) => e.field === field);
  return error ? { ok: false, error } : { ok: true, value: String(auBank.normalize!(fields, 'AUD')[field]) };
}
const checkBsb = (input: string): Checked => check('bsb', input);
const checkAccountNumber = (input: string): Checked => check('account_number', input);

describe('the au_bank example rail', () => {
  it('keeps the contract every payback rail keeps (the shared rail vectors)', () => {
    expect(railProblems(auBank)).toEqual([]);
  });

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
