import { describe, expect, it } from 'vitest';
import { revolut } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

describe('revolut rail', () => {
  it.each(['@jdoe2024', 'JaneDoe', 'abcde', 'a'.repeat(20)])('accepts %s', (tag) => expectValid(revolut, { tag }, 'EUR'));

  it('stores the tag lower-case without @', () => {
    expect(revolut.normalize?.({ tag: '@JDoe2024' }, 'GBP')).toEqual({ tag: 'jdoe2024' });
  });

  it.each([
    ['4 characters', 'abcd', 'invalid_length'],
    ['21 characters', 'a'.repeat(21), 'invalid_length'],
    ['an underscore', 'jane_doe', 'invalid_format'],
  ])('rejects %s', (_name, tag, code) => expectFailures(revolut, { tag }, 'EUR', ['tag', code]));

  it('takes any ISO 4217 currency; links to revolut.me; masks', () => {
    expectValid(revolut, { tag: 'jdoe2024' }, 'PLN');
    expectFailures(revolut, { tag: 'jdoe2024' }, 'ETH', ['currency', 'unsupported_currency']);
    expect(revolut.settlementPayload?.({ tag: '@JDoe2024' }, 'EUR')).toEqual({ kind: 'link', uri: 'https://revolut.me/jdoe2024' });
    expect(revolut.mask({ tag: 'jdoe2024' })).toBe('Revolut •••• 2024');
  });
});
