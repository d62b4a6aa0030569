import { describe, expect, it } from 'vitest';
import { pix } from '../../../builtin-plugins/payback-methods/rails/fintech/pix.js';
import { expectFailures, expectValid } from './helpers.js';

// CPFs 529.982.247-25 and 111.444.777-35, and CNPJs 11.222.333/0001-81 and 00.000.000/0001-91 (Banco do
// Brasil): check digits verified by hand with the Receita Federal mod-11 weights.
const key = (key_type: string, value: string) => ({ key_type, key: value });

describe('pix rail', () => {
  it.each([
    ['cpf', '529.982.247-25'],
    ['cpf', '11144477735'],
    ['cnpj', '11.222.333/0001-81'],
    ['cnpj', '00000000000191'],
    ['email', 'Fulano.Silva@Example.com.br'],
    ['phone', '+55 11 98765-4321'],
    ['random', '123e4567-e89b-42d3-a456-426614174000'],
  ])('accepts %s key %s', (type, value) => expectValid(pix, key(type, value), 'BRL'));

  it('normalises keys the way DICT stores them', () => {
    expect(pix.normalize?.(key('cpf', '529.982.247-25'), 'BRL')).toEqual(key('cpf', '52998224725'));
    expect(pix.normalize?.(key('phone', '+55 (11) 98765-4321'), 'BRL')).toEqual(key('phone', '+5511987654321'));
    expect(pix.normalize?.(key('email', 'Fulano@Example.COM'), 'BRL')).toEqual(key('email', 'fulano@example.com'));
    expect(pix.normalize?.(key('random', '123E4567-E89B-42D3-A456-426614174000'), 'BRL')).toEqual(key('random', '123e4567-e89b-42d3-a456-426614174000'));
  });

  it.each([
    ['CPF with the last digit changed', 'cpf', '529.982.247-26', 'invalid_checksum'],
    ['CPF with the first check digit changed', 'cpf', '529.982.247-35', 'invalid_checksum'],
    ['CPF of one repeated digit', 'cpf', '111.111.111-11', 'invalid_value'],
    ['CPF of 10 digits', 'cpf', '5299822472', 'invalid_length'],
    ['CNPJ with the last digit changed', 'cnpj', '11.222.333/0001-82', 'invalid_checksum'],
    ['CNPJ of one repeated digit', 'cnpj', '00000000000000', 'invalid_value'],
    ['CNPJ with a letter', 'cnpj', '11.222.333/0001-8A', 'invalid_format'],
    ['a landline number', 'phone', '+551133334444', 'invalid_format'],
    ['a phone number of another country', 'phone', '+351912345678', 'invalid_format'],
    ['a version 1 UUID', 'random', 'c232ab00-9414-11ec-b3c8-9f6bdeced846', 'invalid_value'],
    ['a non-UUID random key', 'random', 'not-a-uuid', 'invalid_format'],
    ['an email longer than 77 characters', 'email', `${'a'.repeat(70)}@example.com`, 'too_long'],
    ['an email without a domain', 'email', 'fulano@', 'invalid_format'],
  ])('rejects %s', (_name, type, value, code) => expectFailures(pix, key(type, value), 'BRL', ['key', code]));

  it('checks the type, the currency and the BR Code name limits', () => {
    expectFailures(pix, key('evp', 'x'), 'BRL', ['key_type', 'invalid_value']);
    expectFailures(pix, key('cpf', '52998224725'), 'USD', ['currency', 'unsupported_currency']);
    expectFailures(pix, { ...key('cpf', '52998224725'), recipient_name: 'N'.repeat(26) }, 'BRL', ['recipient_name', 'too_long']);
    expectFailures(pix, { ...key('cpf', '52998224725'), recipient_city: 'São José dos Campos' }, 'BRL', ['recipient_city', 'too_long']);
  });

  it('masks the key and uses centavos', () => {
    expect(pix.mask({ ...key('cpf', '52998224725'), recipient_name: 'Fulano de Tal' })).toBe('Pix •••• 4725 (F. Tal)');
    expect(pix.precision('BRL')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
