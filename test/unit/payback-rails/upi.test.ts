import { describe, expect, it } from 'vitest';
import { upi } from '../../../builtin-plugins/payback-methods/rails/fintech/upi.js';
import { expectFailures, expectValid } from './helpers.js';

describe('upi rail', () => {
  it.each(['ramesh.kumar@okaxis', '9876543210@ybl', 'shop_01-a@paytm', 'AB@oksbi'])('accepts %s', (vpa) => expectValid(upi, { vpa }, 'INR'));

  it('stores the address lower-case', () => {
    expect(upi.normalize?.({ vpa: 'Ramesh.Kumar@OkAxis' }, 'INR')).toEqual({ vpa: 'ramesh.kumar@okaxis' });
  });

  it.each([
    ['no provider', 'ramesh.kumar', 'invalid_format'],
    ['two @ signs', 'a@b@okaxis', 'invalid_format'],
    ['a digit in the provider', 'ramesh@okaxis1', 'invalid_format'],
    ['a space in the handle', 'ramesh kumar@okaxis', 'invalid_format'],
    ['a one-character handle', 'r@okaxis', 'invalid_length'],
    ['a one-letter provider', 'ramesh@o', 'invalid_length'],
  ])('rejects %s', (_name, vpa, code) => expectFailures(upi, { vpa }, 'INR', ['vpa', code]));

  it('settles in INR only', () => expectFailures(upi, { vpa: 'ramesh@okaxis' }, 'USD', ['currency', 'unsupported_currency']));

  it('builds the NPCI deep link and masks the address', () => {
    expect(upi.settlementPayload?.({ vpa: 'ramesh@okaxis', display_name: 'Ramesh Kumar' }, 'INR', '250.50')).toEqual({
      kind: 'link',
      uri: 'upi://pay?pa=ramesh%40okaxis&pn=Ramesh+Kumar&am=250.50&cu=INR',
    });
    expect(upi.settlementPayload?.({ vpa: 'ramesh@okaxis' }, 'INR', '1.005')).toBeNull();
    expect(upi.settlementPayload?.({ vpa: 'not valid' }, 'INR')).toBeNull();
    expect(upi.mask({ vpa: 'ramesh@okaxis' })).toBe('UPI •••• axis');
  });
});
