import { describe, expect, it } from 'vitest';
import { algorand } from '../../../builtin-plugins/payback-methods/rails/crypto/algorand.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// Algorand mainnet fee sink and rewards pool, and the encoding of the all-zero key.
const FEE_SINK = 'Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA';
const REWARDS_POOL = '737777777777777777777777777777777777777777777777777UFEJ2CI';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ';
const USDC_ASA = '31566704';

describe('algorand rail', () => {
  it.each([FEE_SINK, REWARDS_POOL, ZERO])('accepts %s', (address) => expectValid(algorand, { address }, 'ALGO'));

  it('accepts ASAs with their id, as a string or a number', () => {
    expectValid(algorand, { address: FEE_SINK, asset_id: USDC_ASA, note: 'thanks' }, 'USDC');
    expectValid(algorand, { address: FEE_SINK, asset_id: 312769 }, 'USDT');
    expectValid(algorand, { address: FEE_SINK, asset_id: '18446744073709551615' }, 'BIG');
    expect(algorand.normalize?.({ address: FEE_SINK, asset_id: 312769 }, 'USDT')).toEqual({ address: FEE_SINK, asset_id: '312769' });
  });

  it.each([
    ['second-last character changed', swapChar(FEE_SINK, -2, 'D'), 'invalid_checksum'],
    ['last character with non-zero padding bits', swapChar(FEE_SINK, -1, 'B'), 'invalid_format'],
    ['a key character changed', swapChar(FEE_SINK, 3, 'A'), 'invalid_checksum'],
    ['57 characters', FEE_SINK.slice(0, 57), 'invalid_length'],
    ['a digit 8 (not base32)', swapChar(FEE_SINK, 3, '8'), 'invalid_format'],
    // Document 1: "58 uppercase base32 chars".
    ['lower case', FEE_SINK.toLowerCase(), 'invalid_format'],
    ['one lower-case character', swapChar(FEE_SINK, 0, 'y'), 'invalid_format'],
  ])('rejects %s', (_name, address, code) => expectFailures(algorand, { address }, 'ALGO', ['address', code]));

  it('applies the native and ASA rules', () => {
    expectFailures(algorand, { address: FEE_SINK, asset_id: USDC_ASA }, 'ALGO', ['asset_id', 'not_allowed']);
    // asset_id is optional (Document 1 lists it in parentheses); only native ALGO rejects it.
    expectValid(algorand, { address: FEE_SINK }, 'USDC');
    expectFailures(algorand, { address: FEE_SINK, asset_id: '18446744073709551616' }, 'USDC', ['asset_id', 'invalid_value']);
    expectFailures(algorand, { address: FEE_SINK, asset_id: '0' }, 'USDC', ['asset_id', 'invalid_value']);
    expectFailures(algorand, { address: FEE_SINK, asset_id: '31-566' }, 'USDC', ['asset_id', 'invalid_format']);
  });

  it('masks and reports microalgo or asset precision', () => {
    expect(algorand.mask({ address: FEE_SINK })).toBe('Algorand Y76M…26CA');
    expect(algorand.precision('ALGO')).toEqual({ min_unit: 1, exponent: 6 });
    expect(algorand.precision('USDC')).toEqual({ min_unit: 1, exponent: 6 });
    expect(algorand.precision('GOBTC')).toEqual({ min_unit: 1, exponent: 8 });
  });
});
