import { describe, expect, it } from 'vitest';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { utxoAlt } from '../../../builtin-plugins/payback-methods/rails/crypto/utxo-alt.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

const base58check = createBase58check(sha256);
/** A correctly checksummed address with an arbitrary version byte (for the wrong-network cases). */
const withVersion = (version: number) => base58check.encode(Uint8Array.from([version, ...new Array<number>(20).fill(7)]));

// Litecoin: the BIP 173 programs on Litecoin's ltc prefix, and legacy L/M addresses.
const LTC = [
  'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9',
  'LTC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KGMN4N9',
  'ltc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qmu8tk5',
  'LKKHMBjCU89fyFNgSRprDoD8Jb25N8uWvd',
  'M7zVKQKmtV5Rc7erVGVVC3khZbXxsS5HEX',
  '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
];
// Bitcoin Cash: the CashAddr specification vectors (with and without prefix, upper case) and their legacy forms.
const BCH = [
  'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
  'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq',
  'qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy',
  'BITCOINCASH:QPM2QSZNHKS23Z7629MMS6S4CWEF74VCWVY22GDX6A',
  '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu',
  '3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC',
  // P2SH32 (256-bit script hash, in use since the May 2023 upgrade).
  'bitcoincash:pvch8mmxy0rtfrlarg7ucrxxfzds5pamg73h7370aa87d80gyhqxqaw3dsfwg',
];
const DOGE = ['D5ERdEN1gsouFSs7zsq7VYJxyWP6dP28H1', '9rXbkMyi1S6thykRoXAZcY8fwUKYsy6cXE'];

describe('utxo_alt rail', () => {
  it.each(LTC)('accepts LTC %s', (address) => expectValid(utxoAlt, { chain: 'LTC', address }, 'LTC'));
  it.each(BCH)('accepts BCH %s', (address) => expectValid(utxoAlt, { chain: 'BCH', address }, 'BCH'));
  it.each(DOGE)('accepts DOGE %s', (address) => expectValid(utxoAlt, { chain: 'DOGE', address }, 'DOGE'));

  it('stores CashAddr with its prefix, lower-case', () => {
    expect(utxoAlt.normalize?.({ chain: 'BCH', address: 'QR95SY3J9XWD2AP32XKYKTTR4CVCU7AS4Y0QVERFUY' }, 'BCH')).toEqual({
      chain: 'BCH',
      address: 'bitcoincash:qr95sy3j9xwd2ap32xkykttr4cvcu7as4y0qverfuy',
    });
  });

  it.each([
    ['LTC', 'bech32 with one character changed', swapChar(LTC[0] ?? '', 10, 'q'), 'invalid_checksum'],
    ['LTC', 'legacy with one character changed', swapChar(LTC[3] ?? '', 5, 'X'), 'invalid_checksum'],
    ['LTC', 'a Bitcoin bech32 address', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'invalid_format'],
    ['LTC', 'a Dogecoin address', DOGE[0] ?? '', 'invalid_value'],
    ['LTC', 'a testnet bech32 address', 'tltc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qsnr4fp', 'wrong_network'],
    ['LTC', 'an MWEB address', 'ltcmweb1qq0yq03ewm830ugmkkvrvjmyyeslcpwk8ayd7k27qx63sryy6kx3ksqm3k6jd24ld3r5dp5lzx7rm7uyxfujf8sn7v4nlxeqwrcq6k6xxwqdc6tl3', 'not_allowed'],
    ['BCH', 'CashAddr with one character changed', swapChar(BCH[0] ?? '', 20, 'q'), 'invalid_checksum'],
    ['BCH', 'CashAddr with a testnet prefix', 'bchtest:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', 'wrong_network'],
    ['BCH', 'CashAddr with the wrong prefix', 'bitcoin:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', 'invalid_format'],
    ['BCH', 'CashAddr in mixed case', 'bitcoincash:qpm2qsznhks23z7629Mms6s4cwef74vcwvy22gdx6a', 'invalid_format'],
    ['BCH', 'a legacy testnet address', withVersion(0x6f), 'wrong_network'],
    ['BCH', 'a CashTokens token-aware address', 'bitcoincash:zzfyvx77v2pmgc0vulwlfkl3uzjgh5gnmq37yf2mzf', 'not_allowed'],
    ['BCH', 'the spec vector of a 256-bit P2PKH', 'bitcoincash:qvch8mmxy0rtfrlarg7ucrxxfzds5pamg73h7370aa87d80gyhqxq5nlegake', 'not_allowed'],
    ['BCH', 'the spec vector of P2SH32 on testnet', 'bchtest:pvch8mmxy0rtfrlarg7ucrxxfzds5pamg73h7370aa87d80gyhqxq7fqng6m6', 'wrong_network'],
    ['DOGE', 'one character changed', swapChar(DOGE[0] ?? '', 7, 'Z'), 'invalid_checksum'],
    ['DOGE', 'a testnet address', withVersion(0x71), 'wrong_network'],
    ['DOGE', 'a Bitcoin address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'invalid_value'],
  ])('%s rejects %s', (chain, _name, address, code) => {
    expectFailures(utxoAlt, { chain, address }, chain, ['address', code]);
  });

  it('ties the currency to the chain', () => {
    expectFailures(utxoAlt, { chain: 'LTC', address: LTC[0] }, 'BTC', ['currency', 'unsupported_currency']);
    expectFailures(utxoAlt, { chain: 'BSV', address: LTC[0] }, 'BSV', ['chain', 'invalid_value']);
  });

  it('masks and reports 8 decimals', () => {
    expect(utxoAlt.mask({ chain: 'DOGE', address: DOGE[0] })).toBe('DOGE D5ER…28H1');
    expect(utxoAlt.precision('DOGE')).toEqual({ min_unit: 1, exponent: 8 });
  });
});
