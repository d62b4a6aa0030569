import { describe, expect, it } from 'vitest';
import { xrp } from '../../../builtin-plugins/payback-methods/rails/crypto/xrp.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// The genesis account, and example accounts from the XRP Ledger documentation.
const GENESIS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const DOCS_1 = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe';
const DOCS_2 = 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn';

describe('xrp rail', () => {
  it.each([GENESIS, DOCS_1, DOCS_2])('accepts %s', (address) => expectValid(xrp, { address }, 'XRP'));

  it.each([0, 12345, 4294967295, '4294967295', '7'])('accepts destination tag %s', (tag) => {
    expectValid(xrp, { address: GENESIS, destination_tag: tag }, 'XRP');
  });

  it('stores the destination tag as a number', () => {
    expect(xrp.normalize?.({ address: GENESIS, destination_tag: '12345' }, 'XRP')).toEqual({ address: GENESIS, destination_tag: 12345 });
  });

  it.each([
    ['last character changed', swapChar(GENESIS, -1, 'j'), 'invalid_checksum'],
    ['a middle character changed', swapChar(GENESIS, 8, 'B'), 'invalid_checksum'],
    ['a Bitcoin address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'invalid_format'],
    ['an X-address', 'X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ', 'invalid_format'],
    ['too short', GENESIS.slice(0, 20), 'invalid_length'],
    ['ACCOUNT_ZERO', 'rrrrrrrrrrrrrrrrrrrrrhoLvTp', 'not_allowed'],
    ['ACCOUNT_ONE', 'rrrrrrrrrrrrrrrrrrrrBZbvji', 'not_allowed'],
  ])('rejects %s', (_name, address, code) => expectFailures(xrp, { address }, 'XRP', ['address', code]));

  it.each([
    [-1, 'invalid_value'],
    [4294967296, 'invalid_value'],
    ['12a', 'invalid_format'],
    [1.5, 'invalid_format'],
    [true, 'invalid_type'],
  ])('rejects destination tag %s', (tag, code) => {
    expectFailures(xrp, { address: GENESIS, destination_tag: tag }, 'XRP', ['destination_tag', code]);
  });

  it('settles in XRP only; masks; drop precision', () => {
    expectFailures(xrp, { address: GENESIS }, 'XLM', ['currency', 'unsupported_currency']);
    expect(xrp.mask({ address: GENESIS, destination_tag: 5 })).toBe('XRP rHb9…tyTh');
    expect(xrp.precision('XRP')).toEqual({ min_unit: 1, exponent: 6 });
  });
});
