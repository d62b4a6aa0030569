import { describe, expect, it } from 'vitest';
import { alipay } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const a = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });

describe('alipay rail', () => {
  it.each([
    ['phone', '+86 138 1234 5678'],
    ['phone', '+85291234567'],
    ['email', 'zhang.wei@example.cn'],
  ])('accepts %s %s', (type, identifier) => expectValid(alipay, a(type, identifier), 'CNY'));

  it.each([
    ['a phone without +', 'phone', '13812345678', 'invalid_format'],
    ['a phone of 16 digits', 'phone', '+8613812345678901', 'invalid_length'],
    ['an email without a domain', 'email', 'zhang.wei@', 'invalid_format'],
  ])('rejects %s', (_name, type, identifier, code) => expectFailures(alipay, a(type, identifier), 'CNY', ['identifier', code]));

  it('settles in CNY and masks', () => {
    expectFailures(alipay, a('email', 'zhang.wei@example.cn'), 'HKD', ['currency', 'unsupported_currency']);
    expectFailures(alipay, a('alipay_id', '2088xxxx'), 'CNY', ['identifier_type', 'invalid_value']);
    expect(alipay.mask(a('phone', '+8613812345678'))).toBe('Alipay •••• 5678');
  });
});
