import { describe, expect, it } from 'vitest';
import { venmo } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

describe('venmo rail', () => {
  it.each(['@Jane-Doe_22', 'JaneDoe', 'a1234', 'x'.repeat(30)])('accepts %s', (handle) => expectValid(venmo, { handle }, 'USD'));

  it('stores the handle without @', () => {
    expect(venmo.normalize?.({ handle: '@Jane-Doe_22', display_name: 'Jane' }, 'USD')).toEqual({ handle: 'Jane-Doe_22', display_name: 'Jane' });
  });

  it.each([
    ['4 characters', 'abcd', 'invalid_length'],
    ['31 characters', 'x'.repeat(31), 'invalid_length'],
    ['a dot', 'jane.doe', 'invalid_format'],
    ['a $ sigil', '$janedoe', 'invalid_format'],
  ])('rejects %s', (_name, handle, code) => expectFailures(venmo, { handle }, 'USD', ['handle', code]));

  it('settles in USD only and masks the handle', () => {
    expectFailures(venmo, { handle: 'JaneDoe' }, 'EUR', ['currency', 'unsupported_currency']);
    expectFailures(venmo, { handle: 'JaneDoe', email: 'x@example.com' }, 'USD', ['email', 'unknown_field']);
    expect(venmo.mask({ handle: 'Jane-Doe_22', display_name: 'Jane Doe' })).toBe('Venmo •••• e_22 (J. Doe)');
    expect(venmo.precision('USD')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
