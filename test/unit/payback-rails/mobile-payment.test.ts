import { describe, expect, it } from 'vitest';
import { mobilePayment } from '../../../builtin-plugins/payback-methods/rails/fintech/mobile-payment.js';
import { expectFailures, expectValid } from './helpers.js';

describe('mobile_payment rail', () => {
  it.each([
    ['mbway', '+351 912 345 678', 'EUR', undefined],
    ['bizum', '+34 612 34 56 78', 'EUR', undefined],
    ['bizum', '+34712345678', 'EUR', undefined],
    ['swish', '+46 70 123 45 67', 'SEK', undefined],
    ['vipps', '+47 912 34 567', 'NOK', undefined],
    ['vipps', '123456', 'NOK', undefined],
    ['mobilepay', '+45 20 12 34 56', 'DKK', 'DK'],
    ['mobilepay', '+358 40 1234567', 'EUR', 'FI'],
    ['twint', '+41 79 123 45 67', 'CHF', undefined],
  ])('accepts %s %s in %s', (service, identifier, currency, country) => {
    expectValid(mobilePayment, { service, identifier, ...(country ? { country } : {}), display_name: 'Ana' }, currency);
  });

  it('stores phone numbers in E.164', () => {
    expect(mobilePayment.normalize?.({ service: 'mbway', identifier: '+351 912 345 678' }, 'EUR')).toEqual({ service: 'mbway', identifier: '+351912345678' });
  });

  it.each([
    ['mbway', 'a Spanish number', '+34612345678', 'EUR'],
    ['mbway', 'a Portuguese landline', '+351212345678', 'EUR'],
    ['bizum', 'a Spanish landline', '+34912345678', 'EUR'],
    ['swish', 'a Swedish landline', '+4681234567', 'SEK'],
    ['vipps', 'a 5-digit Vippsnummer', '12345', 'NOK'],
    ['twint', 'a Swiss landline', '+41441234567', 'CHF'],
    ['swish', 'a 6-digit code (only Vipps has one)', '123456', 'SEK'],
  ])('%s rejects %s', (service, _name, identifier, currency) => {
    expectFailures(mobilePayment, { service, identifier }, currency, ['identifier', 'invalid_format']);
  });

  it('rejects numbers that are not E.164', () => {
    expectFailures(mobilePayment, { service: 'mbway', identifier: '+3519' }, 'EUR', ['identifier', 'invalid_length']);
    expectFailures(mobilePayment, { service: 'mbway', identifier: '912345678' }, 'EUR', ['identifier', 'invalid_format']);
  });

  it('fixes the currency per service and MobilePay per country', () => {
    expectFailures(mobilePayment, { service: 'swish', identifier: '+46701234567' }, 'EUR', ['currency', 'unsupported_currency']);
    expectFailures(mobilePayment, { service: 'mobilepay', country: 'DK', identifier: '+4520123456' }, 'EUR', ['currency', 'unsupported_currency']);
    expectFailures(mobilePayment, { service: 'mobilepay', country: 'FI', identifier: '+358401234567' }, 'DKK', ['currency', 'unsupported_currency']);
  });

  it('requires a country for MobilePay only', () => {
    expectFailures(mobilePayment, { service: 'mobilepay', identifier: '+4520123456' }, 'DKK', ['country', 'required']);
    expectFailures(mobilePayment, { service: 'mobilepay', country: 'SE', identifier: '+4520123456' }, 'DKK', ['country', 'invalid_value']);
    expectFailures(mobilePayment, { service: 'mbway', country: 'PT', identifier: '+351912345678' }, 'EUR', ['country', 'unknown_field']);
  });

  it('needs a known service', () => {
    expectFailures(mobilePayment, { service: 'paylib', identifier: '+33612345678' }, 'EUR', ['service', 'invalid_value']);
  });

  it('masks the number and lists the services in its catalog', () => {
    expect(mobilePayment.mask({ service: 'bizum', identifier: '+34612345678', display_name: 'Ana García' })).toBe('Bizum •••• 5678 (A. García)');
    expect(mobilePayment.catalog().fields[0]?.options).toEqual(['mbway', 'bizum', 'swish', 'vipps', 'mobilepay', 'twint']);
    expect(mobilePayment.precision('SEK')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
