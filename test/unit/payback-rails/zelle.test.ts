import { describe, expect, it } from 'vitest';
import { zelle } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const z = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });

describe('zelle rail', () => {
  it.each([
    ['email', 'jane.doe@example.com'],
    ['phone', '+1 (212) 555-0143'],
    ['phone', '+14155550100'],
  ])('accepts %s %s', (type, identifier) => expectValid(zelle, z(type, identifier), 'USD'));

  it.each([
    ['a number outside North America', 'phone', '+442079460958', 'invalid_format'],
    ['an area code starting with 1', 'phone', '+11125550143', 'invalid_format'],
    ['a number without country code', 'phone', '2125550143', 'invalid_format'],
    ['an email with two @', 'email', 'jane@doe@example.com', 'invalid_format'],
  ])('rejects %s', (_name, type, identifier, code) => expectFailures(zelle, z(type, identifier), 'USD', ['identifier', code]));

  it('settles in USD and masks', () => {
    expectFailures(zelle, z('email', 'jane@example.com'), 'CAD', ['currency', 'unsupported_currency']);
    expect(zelle.normalize?.(z('phone', '+1 (212) 555-0143'), 'USD')).toEqual(z('phone', '+12125550143'));
    expect(zelle.mask(z('phone', '+12125550143'))).toBe('Zelle •••• 0143');
  });
});
