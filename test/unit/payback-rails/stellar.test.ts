import { describe, expect, it } from 'vitest';
import { stellar } from '../../../builtin-plugins/payback-methods/rails/crypto/stellar.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// SEP-23 example account, and Circle's USDC issuer on the public network.
const SEP23 = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

describe('stellar rail', () => {
  it.each([SEP23, USDC_ISSUER, SEP23.toLowerCase()])('accepts %s', (address) => expectValid(stellar, { address }, 'XLM'));

  it('accepts issued assets with their issuer, and 28-byte memos', () => {
    expectValid(stellar, { address: SEP23, issuer: USDC_ISSUER, memo: '1234567890123456789012345678' }, 'USDC');
    expectValid(stellar, { address: SEP23, issuer: USDC_ISSUER }, 'X');
  });

  it.each([
    ['last character changed', swapChar(SEP23, -1, 'A'), 'invalid_checksum'],
    ['a middle character changed', swapChar(SEP23, 20, 'A'), 'invalid_checksum'],
    ['55 characters', SEP23.slice(0, 55), 'invalid_length'],
    ['a secret seed', 'SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR', 'invalid_format'],
    ['a muxed account', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK', 'invalid_format'],
    ['a digit 1 (not base32)', swapChar(SEP23, 3, '1'), 'invalid_format'],
  ])('rejects %s', (_name, address, code) => expectFailures(stellar, { address }, 'XLM', ['address', code]));

  it('applies the native and issued-asset rules', () => {
    expectFailures(stellar, { address: SEP23, issuer: USDC_ISSUER }, 'XLM', ['issuer', 'not_allowed']);
    // issuer is optional (Document 1 lists it in parentheses); only native XLM rejects it.
    expectValid(stellar, { address: SEP23 }, 'USDC');
    expectFailures(stellar, { address: SEP23, issuer: swapChar(USDC_ISSUER, 5, 'A') }, 'USDC', ['issuer', 'invalid_checksum']);
    expectFailures(stellar, { address: SEP23, issuer: USDC_ISSUER }, 'TOOLONGASSET1', ['currency', 'unsupported_currency']);
  });

  it('counts the memo in bytes', () => {
    expectFailures(stellar, { address: SEP23, memo: '12345678901234567890123456789' }, 'XLM', ['memo', 'too_long']);
    expectFailures(stellar, { address: SEP23, memo: 'ééééééééééééééé' }, 'XLM', ['memo', 'too_long']);
  });

  it('masks and uses stroops for every asset', () => {
    expect(stellar.mask({ address: SEP23 })).toBe('Stellar GA7Q…VSGZ');
    expect(stellar.precision('XLM')).toEqual({ min_unit: 1, exponent: 7 });
    expect(stellar.precision('USDC')).toEqual({ min_unit: 1, exponent: 7 });
  });
});
