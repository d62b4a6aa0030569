import { describe, expect, it } from 'vitest';
import { monero } from '../../../builtin-plugins/payback-methods/rails/crypto/monero.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// The Monero General Fund donation addresses (standard and subaddress), and the standard, integrated and
// subaddress examples from the Monero documentation.
const DONATION = '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A';
const DONATION_SUB = '888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H';
const DOCS_STANDARD = '4AdUndXHHZ6cfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2684Rge';
const DOCS_INTEGRATED = '4LL9oSLmtpccfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2bYXZKKQePHES9khPK';
const DOCS_SUB = '8BTd81B7syWcfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv25pnJx6';

describe('monero rail', () => {
  it.each([DONATION, DONATION_SUB, DOCS_STANDARD, DOCS_INTEGRATED, DOCS_SUB])('accepts %s', (address) => expectValid(monero, { address }, 'XMR'));

  it.each(['0123456789abcdef', '0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef'])('accepts payment id %s with a standard address', (id) => {
    expectValid(monero, { address: DONATION, payment_id: id }, 'XMR');
  });

  it.each([
    ['last character changed', swapChar(DONATION, -1, 'B'), 'invalid_checksum'],
    ['a spend-key character changed', swapChar(DOCS_STANDARD, 31, 'z'), 'invalid_checksum'],
    ['94 characters', DONATION.slice(0, 94), 'invalid_length'],
    ['an I character', swapChar(DONATION, 5, 'I'), 'invalid_format'],
  ])('rejects %s', (_name, address, code) => expectFailures(monero, { address }, 'XMR', ['address', code]));

  it('refuses a separate payment id where the address type forbids it', () => {
    expectFailures(monero, { address: DOCS_INTEGRATED, payment_id: '0123456789abcdef' }, 'XMR', ['payment_id', 'not_allowed']);
    expectFailures(monero, { address: DONATION_SUB, payment_id: '0123456789abcdef' }, 'XMR', ['payment_id', 'not_allowed']);
  });

  it.each([
    ['0123456789abcde', 'invalid_length'],
    ['0123456789abcdeg', 'invalid_format'],
  ])('rejects payment id %s', (id, code) => expectFailures(monero, { address: DONATION, payment_id: id }, 'XMR', ['payment_id', code]));

  it('settles in XMR only; masks; piconero precision', () => {
    expectFailures(monero, { address: DONATION }, 'BTC', ['currency', 'unsupported_currency']);
    expectFailures(monero, { address: DONATION, memo: 'x' }, 'XMR', ['memo', 'unknown_field']);
    expect(monero.mask({ address: DONATION })).toBe('Monero 44AF…EP3A');
    expect(monero.precision('XMR')).toEqual({ min_unit: 1, exponent: 12 });
  });
});
