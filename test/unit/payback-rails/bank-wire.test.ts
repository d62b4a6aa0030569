import { describe, expect, it } from 'vitest';
import { bankWire } from '../../../builtin-plugins/payback-methods/rails/bank-wire/index.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

const NAME = 'Jane Doe';
const sepa = (iban: string) => ({ rail: 'sepa', recipient_name: NAME, iban });

describe('bank_wire / sepa', () => {
  // Example IBANs published in the SWIFT IBAN registry.
  it.each([
    'DE89370400440532013000',
    'DE89 3704 0044 0532 0130 00',
    'de89370400440532013000',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'BE68539007547034',
    'CH9300762011623852957',
    'NO9386011117947',
    'MT84MALT011000012345MTLCAST001S',
    'GB82WEST12345698765432',
    'ES9121000418450200051332',
    'IT60X0542811101000000123456',
  ])('accepts %s', (iban) => expectValid(bankWire, sepa(iban), 'EUR'));

  it('stores the IBAN compact and upper-case', () => {
    expect(bankWire.normalize?.(sepa(' de89 3704 0044 0532 0130 00 '), 'EUR')).toEqual({
      rail: 'sepa',
      recipient_name: NAME,
      iban: 'DE89370400440532013000',
    });
  });

  it.each([
    ['last digit changed', swapChar('DE89370400440532013000', -1, '1'), 'invalid_checksum'],
    ['two digits transposed', 'DE89370400440532031000', 'invalid_checksum'],
    ['check digits 00', 'DE00370400440532013000', 'invalid_checksum'],
    ['one character short', 'DE8937040044053201300', 'invalid_length'],
    ['GB IBAN with a DE length', 'GB82WEST123456987654', 'invalid_length'],
    ['unknown country', 'US12345678901234567890', 'invalid_value'],
    ['punctuation', 'DE89/3704/0044/0532/0130/00', 'invalid_format'],
    ['a letter where DE has digits', 'DE89A70400440532013000', 'invalid_format'],
    ['Belgian national check digits broken', 'BE68539007547035', 'invalid_checksum'],
    ['a non-SEPA country (Saint Lucia)', 'LC55HEMM000100010012001200023015', 'not_allowed'],
    ['a non-SEPA country (Kosovo)', 'XK051212012345678906', 'not_allowed'],
  ])('rejects %s', (_name, iban, code) => expectFailures(bankWire, sepa(iban), 'EUR', ['iban', code]));

  it('settles in EUR only and requires a name and an IBAN', () => {
    expectFailures(bankWire, sepa('DE89370400440532013000'), 'GBP', ['currency', 'unsupported_currency']);
    expectFailures(bankWire, { rail: 'sepa' }, 'EUR', ['recipient_name', 'required'], ['iban', 'required']);
  });

  it('refuses fields of other schemes', () => {
    expectFailures(bankWire, { ...sepa('DE89370400440532013000'), sort_code: '200000' }, 'EUR', ['sort_code', 'unknown_field']);
  });

  it('masks all but the last four characters', () => {
    expect(bankWire.mask(sepa('DE89370400440532013000'))).toBe('SEPA •••• 3000 (J. Doe)');
  });
});

describe('bank_wire / faster_payments', () => {
  const fp = (sort_code: string, account_number: string) => ({ rail: 'faster_payments', recipient_name: NAME, sort_code, account_number });

  it.each([
    ['200000', '55779911'],
    ['20-00-00', '55779911'],
    ['60-16-13', '31926819'],
  ])('accepts %s / %s', (sort, account) => expectValid(bankWire, fp(sort, account), 'GBP'));

  it('stores the sort code as six digits', () => {
    expect(bankWire.normalize?.(fp('60-16-13', '31926819'), 'GBP')).toMatchObject({ sort_code: '601613' });
  });

  it.each([
    ['sort code with 5 digits', fp('20000', '55779911'), 'sort_code', 'invalid_format'],
    ['sort code mixed separators', fp('20-00 00', '55779911'), 'sort_code', 'invalid_format'],
    ['account with 7 digits', fp('200000', '5577991'), 'account_number', 'invalid_length'],
    ['account with a letter', fp('200000', '5577991A'), 'account_number', 'invalid_format'],
  ])('rejects %s', (_name, fields, field, code) => expectFailures(bankWire, fields, 'GBP', [field, code]));

  it('settles in GBP only', () => expectFailures(bankWire, fp('200000', '55779911'), 'EUR', ['currency', 'unsupported_currency']));
});

describe('bank_wire / ach and fednow', () => {
  const us = (rail: string, routing_number: string, account_type = 'checking', account_number = '123456789') => ({
    rail,
    recipient_name: NAME,
    routing_number,
    account_number,
    account_type,
  });

  // Real routing numbers: JPMorgan Chase NY, Federal Reserve Bank of Boston, Bank of America, Wells Fargo, Chase CA.
  it.each(['021000021', '011000015', '026009593', '121000248', '322271627'])('accepts routing number %s', (routing) => {
    expectValid(bankWire, us('ach', routing), 'USD');
    expectValid(bankWire, us('fednow', routing, 'savings'), 'USD');
  });

  it.each([
    ['last digit changed', us('ach', '021000022'), 'routing_number', 'invalid_checksum'],
    ['transposed digits', us('ach', '012000021'), 'routing_number', 'invalid_checksum'],
    ['8 digits', us('ach', '02100002'), 'routing_number', 'invalid_length'],
    ['letters', us('ach', '02100002A'), 'routing_number', 'invalid_format'],
    ['all zeros', us('ach', '000000000'), 'routing_number', 'invalid_value'],
    ['prefix 50 (not a district)', us('ach', '500000005'), 'routing_number', 'invalid_value'],
    ['account too short', us('ach', '021000021', 'checking', '123'), 'account_number', 'invalid_length'],
    ['account of 18 digits', us('ach', '021000021', 'checking', '123456789012345678'), 'account_number', 'invalid_length'],
    ['unknown account type', us('fednow', '021000021', 'brokerage'), 'account_type', 'invalid_value'],
  ])('rejects %s', (_name, fields, field, code) => expectFailures(bankWire, fields, 'USD', [field, code]));

  it('settles in USD only', () => expectFailures(bankWire, us('ach', '021000021'), 'CAD', ['currency', 'unsupported_currency']));

  it('masks the account number', () => {
    expect(bankWire.mask(us('fednow', '021000021'))).toBe('FedNow •••• 6789 (J. Doe)');
  });
});

describe('bank_wire / swift', () => {
  const wire = (extra: Record<string, unknown>) => ({
    rail: 'swift',
    recipient_name: NAME,
    bic_swift: 'DEUTDEFF',
    bank_name: 'Deutsche Bank',
    country: 'DE',
    ...extra,
  });

  it.each(['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'CHASUS33', 'BOFAUS3N', 'COBADEFFXXX', 'deutdeff'])('accepts BIC %s', (bic) => {
    expectValid(bankWire, wire({ bic_swift: bic, iban: 'DE89370400440532013000' }), 'EUR');
  });

  it('accepts IBANs from outside SEPA', () => {
    expectValid(bankWire, wire({ bic_swift: 'NWBKGB2L', iban: 'LC55HEMM000100010012001200023015' }), 'XCD');
    expectValid(bankWire, wire({ iban: 'XK051212012345678906' }), 'EUR');
  });

  it('accepts an account number instead of an IBAN, in any ISO 4217 currency', () => {
    expectValid(bankWire, wire({ bic_swift: 'CHASUS33', country: 'us', account_number: '000123456789' }), 'JPY');
    expectValid(bankWire, wire({ iban: 'GB82WEST12345698765432', account_number: '12345698765432' }), 'KWD');
  });

  it('upper-cases the BIC and the country', () => {
    expect(bankWire.normalize?.(wire({ bic_swift: 'deutdeff', country: 'de', iban: 'DE89370400440532013000' }), 'EUR')).toMatchObject({
      bic_swift: 'DEUTDEFF',
      country: 'DE',
    });
  });

  it.each([
    ['BIC with an unknown country', { bic_swift: 'DEUTXXFF' }, 'bic_swift', 'invalid_value'],
    ['test BIC', { bic_swift: 'DEUTDEF0' }, 'bic_swift', 'invalid_value'],
    ['BIC of 7 characters', { bic_swift: 'DEUTDEF' }, 'bic_swift', 'invalid_length'],
    ['BIC with a digit in the bank code', { bic_swift: 'DEU1DEFF' }, 'bic_swift', 'invalid_format'],
    ['country that does not exist', { country: 'XX' }, 'country', 'invalid_value'],
    ['country of three letters', { country: 'DEU' }, 'country', 'invalid_format'],
    ['IBAN with a bad checksum', { iban: 'DE89370400440532013001' }, 'iban', 'invalid_checksum'],
  ])('rejects %s', (_name, extra, field, code) => {
    const fields = { iban: 'DE89370400440532013000', ...extra };
    expectFailures(bankWire, wire(fields), 'EUR', [field, code]);
  });

  it('needs an IBAN or an account number', () => {
    expectFailures(bankWire, wire({}), 'EUR', ['account_number', 'required']);
  });

  it('needs an active ISO 4217 currency', () => {
    expectFailures(bankWire, wire({ iban: 'DE89370400440532013000' }), 'BGN', ['currency', 'unsupported_currency']);
    expectFailures(bankWire, wire({ iban: 'DE89370400440532013000' }), 'BTC', ['currency', 'unsupported_currency']);
  });
});

describe('bank_wire scheme and precision', () => {
  it('rejects a missing or unknown scheme on its own', () => {
    expectFailures(bankWire, { recipient_name: NAME }, 'EUR', ['rail', 'required']);
    expectFailures(bankWire, { rail: 'bacs', recipient_name: NAME }, 'GBP', ['rail', 'invalid_value']);
  });

  it('uses ISO 4217 minor units', () => {
    expect(bankWire.precision('EUR')).toEqual({ min_unit: 1, exponent: 2 });
    expect(bankWire.precision('JPY')).toEqual({ min_unit: 1, exponent: 0 });
    expect(bankWire.precision('KWD')).toEqual({ min_unit: 1, exponent: 3 });
  });

  it('describes variants in its catalog', () => {
    const catalog = bankWire.catalog();
    expect(catalog.variants?.discriminator).toBe('rail');
    expect(Object.keys(catalog.variants?.fields ?? {})).toEqual(['sepa', 'faster_payments', 'ach', 'fednow', 'swift']);
  });

  it('never throws on junk', () => {
    expectFailures(bankWire, null as unknown as Record<string, unknown>, 'EUR', ['fields', 'invalid_type'], ['rail', 'required']);
    expect(bankWire.mask({ rail: 42 })).toBe('Bank transfer ••••');
  });
});
