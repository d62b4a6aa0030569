import { describe, expect, it } from 'vitest';
import { mercadoPago } from '../../../builtin-plugins/payback-methods/rails/fintech/mercado-pago.js';
import { expectFailures, expectValid } from './helpers.js';

const mp = (country: string, identifier_type: string, identifier: string) => ({ country, identifier_type, identifier });

// CBUs 285-0590-9 40090418135201 and 017-0099-2 20000067797370 pass both BCRA check digits; the CVU is built
// on Mercado Pago's provider prefix 0000003 with the same algorithm; CLABE 032180000118359719 is the
// Banxico documentation example.
describe('mercado_pago rail', () => {
  it.each([
    ['AR', 'alias', 'casa.perro.gato', 'ARS'],
    ['AR', 'cbu', '2850590940090418135201', 'ARS'],
    ['AR', 'cbu', '0170099220000067797370', 'ARS'],
    ['AR', 'cvu', '0000003100010000000009', 'ARS'],
    ['AR', 'email', 'vendedor@example.com.ar', 'ARS'],
    ['BR', 'cpf', '529.982.247-25', 'BRL'],
    ['BR', 'phone', '+55 11 98765-4321', 'BRL'],
    ['MX', 'clabe', '032-180-000118359719', 'MXN'],
    ['MX', 'phone', '+52 55 1234 5678', 'MXN'],
  ])('accepts %s %s %s', (country, type, identifier, currency) => expectValid(mercadoPago, mp(country, type, identifier), currency));

  it('strips dots and dashes from numeric identifiers', () => {
    expect(mercadoPago.normalize?.(mp('MX', 'clabe', '032.180.000118359719'), 'MXN')).toEqual(mp('MX', 'clabe', '032180000118359719'));
  });

  // Document 1, shape (j): "dots and dashes stripped before digit-length checks", for every numeric type.
  it.each([
    ['AR cbu', mp('AR', 'cbu', '285-0590.9-40090418135201')],
    ['AR cvu', mp('AR', 'cvu', '0000003.1000100000000-09')],
    ['BR cpf', mp('BR', 'cpf', '529.982.247-25')],
    ['BR phone', mp('BR', 'phone', '+55.11.98765-4321')],
    ['MX phone', mp('MX', 'phone', '+52-55-1234.5678')],
    ['MX clabe', mp('MX', 'clabe', '032-180-000118359719')],
  ])('%s: dots and dashes removed before the length check', (_name, fields) => {
    const currency = { AR: 'ARS', BR: 'BRL', MX: 'MXN' }[fields.country] ?? '';
    expectValid(mercadoPago, fields, currency);
    expect(mercadoPago.normalize?.(fields, currency)).toEqual({ ...fields, identifier: fields.identifier.replace(/[.-]/g, '') });
  });

  it.each([
    ['AR', 'CBU with the account check digit changed', 'cbu', '2850590940090418135202', 'invalid_checksum'],
    ['AR', 'CBU with the branch check digit changed', 'cbu', '2850590840090418135201', 'invalid_checksum'],
    ['AR', 'CBU of 21 digits', 'cbu', '285059094009041813520', 'invalid_length'],
    ['AR', 'CVU given as a CBU', 'cbu', '0000003100010000000009', 'invalid_value'],
    ['AR', 'CBU given as a CVU', 'cvu', '2850590940090418135201', 'invalid_value'],
    ['AR', 'alias of 5 characters', 'alias', 'casa.', 'invalid_length'],
    ['AR', 'alias with ñ', 'alias', 'año.nuevo.feliz', 'invalid_format'],
    ['BR', 'CPF with a wrong check digit', 'cpf', '529.982.247-24', 'invalid_checksum'],
    ['BR', 'Brazilian landline', 'phone', '+551133334444', 'invalid_format'],
    ['MX', 'CLABE with the check digit changed', 'clabe', '032180000118359718', 'invalid_checksum'],
    ['MX', 'CLABE of 17 digits', 'clabe', '03218000011835971', 'invalid_length'],
    ['MX', 'Mexican phone of 9 digits', 'phone', '+52551234567', 'invalid_format'],
  ])('%s rejects %s', (country, _name, type, identifier, code) => {
    const currency = { AR: 'ARS', BR: 'BRL', MX: 'MXN' }[country] ?? '';
    expectFailures(mercadoPago, mp(country, type, identifier), currency, ['identifier', code]);
  });

  it('limits identifier types per country', () => {
    expectFailures(mercadoPago, mp('BR', 'clabe', '032180000118359719'), 'BRL', ['identifier_type', 'invalid_value']);
    expectFailures(mercadoPago, mp('MX', 'cpf', '52998224725'), 'MXN', ['identifier_type', 'invalid_value']);
    expectFailures(mercadoPago, mp('AR', 'phone', '+5491112345678'), 'ARS', ['identifier_type', 'invalid_value']);
  });

  it('pins the currency to the country', () => {
    expectFailures(mercadoPago, mp('AR', 'alias', 'casa.perro.gato'), 'USD', ['currency', 'unsupported_currency']);
    expectFailures(mercadoPago, mp('MX', 'clabe', '032180000118359719'), 'BRL', ['currency', 'unsupported_currency']);
    expectFailures(mercadoPago, mp('CL', 'email', 'a@example.cl'), 'CLP', ['country', 'invalid_value']);
  });

  it('masks the identifier', () => {
    expect(mercadoPago.mask(mp('MX', 'clabe', '032180000118359719'))).toBe('Mercado Pago •••• 9719');
    expect(mercadoPago.precision('ARS')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
