import { describe, expect, it } from 'vitest';
import { interac } from '../../../builtin-plugins/payback-methods/rails/fintech/company-rails.js';
import { expectFailures, expectValid } from './helpers.js';

const i = (identifier_type: string, identifier: string, extra: Record<string, unknown> = {}) => ({ identifier_type, identifier, ...extra });

describe('interac rail', () => {
  it.each([
    i('email', 'jane@example.ca'),
    i('email', 'jane@example.ca', { auto_deposit: '1' }),
    i('phone', '+1 416 555 0100', { auto_deposit: '0', display_name: 'Jane' }),
  ])('accepts %j', (fields) => expectValid(interac, fields, 'CAD'));

  it.each([
    ['auto_deposit as a boolean', i('email', 'jane@example.ca', { auto_deposit: true }), 'auto_deposit', 'invalid_type'],
    ['auto_deposit of 2', i('email', 'jane@example.ca', { auto_deposit: '2' }), 'auto_deposit', 'invalid_value'],
    ['a number outside North America', i('phone', '+33612345678'), 'identifier', 'invalid_format'],
    ['an unknown identifier type', i('account', '12345'), 'identifier_type', 'invalid_value'],
  ])('rejects %s', (_name, fields, field, code) => expectFailures(interac, fields, 'CAD', [field, code]));

  it('settles in CAD and masks', () => {
    expectFailures(interac, i('email', 'jane@example.ca'), 'USD', ['currency', 'unsupported_currency']);
    expect(interac.mask(i('email', 'jane@example.ca'))).toBe('Interac e-Transfer •••• e.ca');
  });
});
