import { describe, expect, it } from 'vitest';
import { solana } from '../../../builtin-plugins/payback-methods/rails/crypto/solana.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

describe('solana rail', () => {
  it.each([USDC_MINT, USDT_MINT, SYSTEM_PROGRAM, TOKEN_PROGRAM])('accepts %s', (address) => expectValid(solana, { address }, 'SOL'));

  it('accepts SPL tokens with their mint', () => {
    expectValid(solana, { address: TOKEN_PROGRAM, spl_token: USDC_MINT, memo: 'invoice 7' }, 'USDC');
    expectValid(solana, { address: TOKEN_PROGRAM, spl_token: USDT_MINT }, 'USDT');
  });

  it.each([
    ['a zero character (not base58)', swapChar(USDC_MINT, 5, '0'), 'invalid_format'],
    ['an l character (not base58)', swapChar(USDC_MINT, 5, 'l'), 'invalid_format'],
    ['31 characters', USDC_MINT.slice(0, 31), 'invalid_length'],
    ['45 characters', `${USDC_MINT}1`, 'invalid_length'],
    ['40 characters (decodes to fewer than 32 bytes)', USDC_MINT.slice(0, 40), 'invalid_length'],
  ])('rejects %s', (_name, address, code) => expectFailures(solana, { address }, 'SOL', ['address', code]));

  it('applies the native and token rules', () => {
    expectFailures(solana, { address: TOKEN_PROGRAM, spl_token: USDC_MINT }, 'SOL', ['spl_token', 'not_allowed']);
    // spl_token is optional (Document 1 lists it in parentheses), checked when given.
    expectValid(solana, { address: TOKEN_PROGRAM }, 'USDC');
    expectFailures(solana, { address: TOKEN_PROGRAM, spl_token: swapChar(USDC_MINT, 0, '0') }, 'USDC', ['spl_token', 'invalid_format']);
    expectFailures(solana, { address: TOKEN_PROGRAM }, 'U$D', ['currency', 'unsupported_currency']);
  });

  it('masks and reports lamport or token precision', () => {
    expect(solana.mask({ address: USDC_MINT })).toBe('Solana EPjF…Dt1v');
    expect(solana.precision('SOL')).toEqual({ min_unit: 1, exponent: 9 });
    expect(solana.precision('USDC')).toEqual({ min_unit: 1, exponent: 6 });
    expect(solana.precision('BONK')).toEqual({ min_unit: 1, exponent: 9 });
  });
});
