import { describe, expect, it } from 'vitest';
import { wise } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const w = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });

describe('wise rail', () => {
  it.each([
    ['tag', '@janed12'],
    ['email', 'jane@example.com'],
    ['iban', 'GB29 NWBK 6016 1331 9268 19'],
    ['iban', 'BE68539007547034'],
  ])('accepts %s %s', (type, identifier) => expectValid(wise, w(type, identifier), 'EUR'));

  it.each([
    ['an IBAN with a changed digit', 'iban', 'GB29NWBK60161331926818', 'invalid_checksum'],
    ['an IBAN of the wrong length', 'iban', 'BE6853900754703', 'invalid_length'],
    ['a tag of 2 characters', 'tag', '@ab', 'invalid_length'],
    ['a tag with a space', 'tag', '@jane d', 'invalid_format'],
  ])('rejects %s', (_name, type, identifier, code) => expectFailures(wise, w(type, identifier), 'EUR', ['identifier', code]));

  it('stores IBANs compact and takes any ISO 4217 currency', () => {
    expect(wise.normalize?.(w('iban', 'gb29 nwbk 6016 1331 9268 19'), 'GBP')).toEqual(w('iban', 'GB29NWBK60161331926819'));
    expectFailures(wise, w('email', 'jane@example.com'), 'XAU', ['currency', 'unsupported_currency']);
    expect(wise.mask(w('iban', 'GB29NWBK60161331926819'))).toBe('Wise •••• 6819');
  });
});
