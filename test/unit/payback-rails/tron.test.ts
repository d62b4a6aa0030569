import { describe, expect, it } from 'vitest';
import { tron } from '../../../builtin-plugins/payback-methods/rails/crypto/tron.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// The TRC-20 USDT contract and Tron's black-hole address (version 0x41, zero account id).
const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const BLACK_HOLE = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

describe('tron rail', () => {
  it.each([USDT_CONTRACT, BLACK_HOLE])('accepts %s', (address) => {
    expectValid(tron, { address }, 'TRX');
    expectValid(tron, { address, memo: 'order 12' }, 'USDT');
  });

  it.each([
    ['last character changed', swapChar(USDT_CONTRACT, -1, 'u'), 'invalid_checksum'],
    ['middle character changed', swapChar(USDT_CONTRACT, 12, 'Y'), 'invalid_checksum'],
    ['33 characters', USDT_CONTRACT.slice(0, 33), 'invalid_length'],
    ['a Bitcoin address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'invalid_format'],
    ['an O character', swapChar(USDT_CONTRACT, 3, 'O'), 'invalid_format'],
  ])('rejects %s', (_name, address, code) => expectFailures(tron, { address }, 'TRX', ['address', code]));

  it('settles in TRX or USDT only', () => {
    expectFailures(tron, { address: USDT_CONTRACT }, 'USDC', ['currency', 'unsupported_currency']);
  });

  it('masks and reports sun precision', () => {
    expect(tron.mask({ address: USDT_CONTRACT })).toBe('Tron TR7N…Lj6t');
    expect(tron.precision('TRX')).toEqual({ min_unit: 1, exponent: 6 });
  });
});
