import { describe, expect, it } from 'vitest';
import { cashapp } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

describe('cashapp rail', () => {
  it.each(['$JaneDoe', 'JaneDoe42', '$J', 'a'.repeat(20)])('accepts %s', (cashtag) => expectValid(cashapp, { cashtag }, 'USD'));

  it('stores the cashtag without $', () => {
    expect(cashapp.normalize?.({ cashtag: '$JaneDoe' }, 'USD')).toEqual({ cashtag: 'JaneDoe' });
  });

  it.each([
    ['digits only', '$12345', 'invalid_format'],
    ['21 characters', 'a'.repeat(21), 'invalid_length'],
    ['a hyphen', '$jane-doe', 'invalid_format'],
    ['an @ sigil', '@janedoe', 'invalid_format'],
  ])('rejects %s', (_name, cashtag, code) => expectFailures(cashapp, { cashtag }, 'USD', ['cashtag', code]));

  it('settles in USD and links to cash.app', () => {
    expectFailures(cashapp, { cashtag: 'JaneDoe' }, 'GBP', ['currency', 'unsupported_currency']);
    expect(cashapp.settlementPayload?.({ cashtag: '$JaneDoe' }, 'USD', '20')).toEqual({ kind: 'link', uri: 'https://cash.app/$JaneDoe/20' });
    expect(cashapp.mask({ cashtag: 'JaneDoe' })).toBe('Cash App •••• Doe');
  });
});
