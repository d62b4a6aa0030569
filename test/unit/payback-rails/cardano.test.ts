import { describe, expect, it } from 'vitest';
import { cardano } from '../../../builtin-plugins/payback-methods/rails/crypto/cardano.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// CIP-19 mainnet test vectors: base (types 0-3), pointer (4-5), enterprise (6-7).
const CIP19 = [
  'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
  'addr1z8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gten0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs9yc0hh',
  'addr1yx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerkr0vd4msrxnuwnccdxlhdjar77j6lg0wypcc9uar5d2shs2z78ve',
  'addr1x8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gt7r0vd4msrxnuwnccdxlhdjar77j6lg0wypcc9uar5d2shskhj42g',
  'addr1gx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer5pnz75xxcrzqf96k',
  'addr128phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gtupnz75xxcrtw79hu',
  'addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8',
  'addr1w8phkx6acpnf78fuvxn0mkew3l0fd058hzquvz7w36x4gtcyjy7wx',
];
const BASE = CIP19[0] ?? '';

describe('cardano rail', () => {
  it.each(CIP19)('accepts %s', (address) => expectValid(cardano, { address }, 'ADA'));

  it.each([
    ['one character changed', swapChar(BASE, 20, 'q'), 'invalid_checksum'],
    ['a CIP-19 testnet address', 'addr_test1qz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs68faae', 'wrong_network'],
    ['a Byron address', 'Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi', 'not_allowed'],
    ['a stake address', 'stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw', 'invalid_format'],
    ['mixed case', swapChar(BASE, 10, 'X'), 'invalid_format'],
    ['too short', BASE.slice(0, 40), 'invalid_length'],
  ])('rejects %s', (_name, address, code) => expectFailures(cardano, { address }, 'ADA', ['address', code]));

  it('settles in ADA only', () => {
    expectFailures(cardano, { address: BASE }, 'BTC', ['currency', 'unsupported_currency']);
  });

  it('masks and reports lovelace precision', () => {
    expect(cardano.mask({ address: BASE })).toBe('Cardano addr…5a3x');
    expect(cardano.precision('ADA')).toEqual({ min_unit: 1, exponent: 6 });
  });
});
