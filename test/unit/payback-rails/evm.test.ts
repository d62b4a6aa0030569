import { describe, expect, it } from 'vitest';
import { evm } from '../../../builtin-plugins/payback-methods/rails/crypto/evm.js';
import { toChecksumAddress } from '../../../builtin-plugins/payback-methods/rails/codecs/eip55.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
// EIP-55 specification test vectors: mixed case, all upper, all lower.
const EIP55 = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
];
// Token contracts as published by their issuers.
const USDC_ETHEREUM = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const DAI_ETHEREUM = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDC_POLYGON = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const USDT_BSC = '0x55d398326f99059fF775485246999027B3197955';

describe('evm rail', () => {
  it.each([...EIP55, VITALIK])('accepts %s', (address) => expectValid(evm, { chain: 'eth_mainnet', address }, 'ETH'));

  it('computes EIP-55 casing from lower case', () => {
    for (const address of EIP55.slice(0, 4)) expect(toChecksumAddress(address.slice(2))).toBe(address);
    expect(evm.normalize?.({ chain: 'optimism', address: VITALIK.toLowerCase() }, 'ETH')).toEqual({ chain: 'optimism', address: VITALIK });
  });

  it.each([
    ['eth_mainnet', 'USDC', USDC_ETHEREUM],
    ['eth_mainnet', 'USDT', USDT_ETHEREUM],
    ['eth_mainnet', 'DAI', DAI_ETHEREUM],
    ['base', 'USDC', USDC_BASE],
    ['polygon', 'USDC', USDC_POLYGON],
    ['bsc', 'USDT', USDT_BSC],
  ])('accepts %s %s with its contract', (chain, currency, token_contract) => {
    expectValid(evm, { chain, address: VITALIK, token_contract }, currency);
  });

  it.each([
    ['polygon', 'POL'],
    ['polygon', 'MATIC'],
    ['bsc', 'BNB'],
    ['avalanche_c', 'AVAX'],
    ['arbitrum_one', 'ETH'],
    ['base', 'eth'],
  ])('accepts native %s %s', (chain, currency) => expectValid(evm, { chain, address: VITALIK }, currency));

  it.each([
    ['one hex digit changed', swapChar(VITALIK, 4, 'A'), 'invalid_checksum'],
    ['one letter case flipped', swapChar(VITALIK, 5, 'a'), 'invalid_checksum'],
    ['EIP-55 vector with case flipped', swapChar(EIP55[0] ?? '', 2, 'A'), 'invalid_checksum'],
    ['39 hex digits', VITALIK.slice(0, -1), 'invalid_length'],
    ['no 0x prefix', VITALIK.slice(2), 'invalid_format'],
    ['a non-hex character', swapChar(VITALIK, 5, 'g'), 'invalid_format'],
    ['the zero address', `0x${'0'.repeat(40)}`, 'invalid_value'],
  ])('rejects %s', (_name, address, code) => expectFailures(evm, { chain: 'eth_mainnet', address }, 'ETH', ['address', code]));

  it('enforces the chain asset rules', () => {
    expectFailures(evm, { chain: 'eth_mainnet', address: VITALIK, token_contract: USDC_ETHEREUM }, 'ETH', ['token_contract', 'not_allowed']);
    // token_contract is optional (Document 1 lists it in parentheses), checked when given.
    expectValid(evm, { chain: 'eth_mainnet', address: VITALIK }, 'USDC');
    expectFailures(evm, { chain: 'polygon', address: VITALIK }, 'ETH', ['currency', 'unsupported_currency']);
    expectFailures(evm, { chain: 'base', address: VITALIK, token_contract: USDT_BSC }, 'USDT', ['currency', 'unsupported_currency']);
    expectFailures(evm, { chain: 'bsc', address: VITALIK }, 'BTC', ['currency', 'unsupported_currency']);
    expectFailures(evm, { chain: 'eth_mainnet', address: VITALIK, token_contract: swapChar(USDC_ETHEREUM, 3, 'B') }, 'USDC', ['token_contract', 'invalid_checksum']);
  });

  it('needs a known chain', () => {
    expectFailures(evm, { chain: 'ethereum', address: VITALIK }, 'ETH', ['chain', 'invalid_value']);
    expectFailures(evm, { address: VITALIK }, 'ETH', ['chain', 'required']);
  });

  it('masks and reports the smallest unit', () => {
    expect(evm.mask({ chain: 'base', address: VITALIK })).toBe('Base 0xd8dA…6045');
    expect(evm.precision('ETH')).toEqual({ min_unit: 1, exponent: 18 });
    expect(evm.precision('USDC')).toEqual({ min_unit: 1, exponent: 6 });
    expect(evm.precision('DAI')).toEqual({ min_unit: 1, exponent: 18 });
  });
});
