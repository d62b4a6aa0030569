import { describe, expect, it } from 'vitest';
import { paypal } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const pp = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });

describe('paypal rail', () => {
  it.each([
    ['link_name', 'JaneDoe42', 'USD'],
    ['link_name', 'https://paypal.me/JaneDoe42', 'EUR'],
    ['link_name', 'paypal.me/janedoe42/', 'JPY'],
    ['email', 'jane.doe@example.com', 'GBP'],
  ])('accepts %s %s in %s', (type, identifier, currency) => expectValid(paypal, pp(type, identifier), currency));

  it('reduces a pasted paypal.me link to the name', () => {
    expect(paypal.normalize?.(pp('link_name', 'https://www.paypal.me/JaneDoe42'), 'USD')).toEqual(pp('link_name', 'JaneDoe42'));
  });

  it.each([
    ['a link name with a dot', 'link_name', 'jane.doe', 'invalid_format'],
    ['a link name of 21 characters', 'link_name', 'a'.repeat(21), 'invalid_length'],
    ['an email without @', 'email', 'jane.example.com', 'invalid_format'],
  ])('rejects %s', (_name, type, identifier, code) => expectFailures(paypal, pp(type, identifier), 'USD', ['identifier', code]));

  it('takes any active ISO 4217 currency, and only two identifier types', () => {
    expectFailures(paypal, pp('email', 'jane@example.com'), 'BTC', ['currency', 'unsupported_currency']);
    expectFailures(paypal, pp('email', 'jane@example.com'), 'HRK', ['currency', 'unsupported_currency']);
    expectFailures(paypal, pp('phone', '+12125550143'), 'USD', ['identifier_type', 'invalid_value']);
  });

  it('builds paypal.me links for link names only', () => {
    expect(paypal.settlementPayload?.(pp('link_name', 'JaneDoe42'), 'EUR', '12.50')).toEqual({ kind: 'link', uri: 'https://paypal.me/JaneDoe42/12.50EUR' });
    expect(paypal.settlementPayload?.(pp('link_name', 'JaneDoe42'), 'JPY', '12.5')).toBeNull();
    expect(paypal.settlementPayload?.(pp('email', 'jane@example.com'), 'EUR')).toBeNull();
  });

  it('masks and uses the currency minor unit', () => {
    expect(paypal.mask(pp('email', 'jane.doe@example.com'))).toBe('PayPal •••• .com');
    expect(paypal.precision('JPY')).toEqual({ min_unit: 1, exponent: 0 });
  });
});
