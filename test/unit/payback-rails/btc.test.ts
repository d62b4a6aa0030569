import { describe, expect, it } from 'vitest';
import { btc } from '../../../builtin-plugins/payback-methods/rails/crypto/btc.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

const GENESIS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const P2SH = '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';
// BIP 173 / BIP 350 mainnet vectors.
const P2WPKH_UPPER = 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4';
const P2WSH = 'bc1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvses5wp4dt';
const P2TR = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
const V1_40 = 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y';
const V16 = 'BC1SW50QGDZ25J';
const V2 = 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs';

describe('btc rail', () => {
  it.each([GENESIS, P2SH, P2WPKH_UPPER, P2WSH, P2TR, V1_40, V16, V2])('accepts %s', (address) => {
    expectValid(btc, { address }, 'BTC');
  });

  it('accepts a memo and normalises bech32 to lower case', () => {
    expectValid(btc, { address: P2WPKH_UPPER, memo: 'rent, March' }, 'BTC');
    expect(btc.normalize?.({ address: ` ${P2WPKH_UPPER} ` }, 'BTC')).toEqual({ address: P2WPKH_UPPER.toLowerCase() });
  });

  it.each([
    ['genesis with last char changed', swapChar(GENESIS, -1, 'b'), 'invalid_checksum'],
    ['P2SH with one char changed', swapChar(P2SH, 10, 'X'), 'invalid_checksum'],
    ['base58 with a zero', swapChar(GENESIS, 2, '0'), 'invalid_format'],
    ['truncated base58', GENESIS.slice(0, -3), 'invalid_length'],
    ['testnet P2PKH', 'mk2QpYatsKicvFVuTAQLBryyccRXMUaGHP', 'wrong_network'],
    ['testnet bech32', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'wrong_network'],
    ['regtest bech32', 'bcrt1qn3h68k2u0rr49skx05qw7veynpf4lfppd2demt', 'wrong_network'],
    ['BIP 173 invalid checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'invalid_checksum'],
    ['BIP 350: v1 with a bech32 checksum', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'invalid_checksum'],
    ['BIP 350: v0 with a bech32m checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'invalid_checksum'],
    ['BIP 350: invalid character o', 'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'invalid_format'],
    ['BIP 350: witness version 17', 'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'invalid_value'],
    ['BIP 350: 1-byte program', 'bc1pw5dgrnzv', 'invalid_length'],
    ['BIP 350: 41-byte program', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'invalid_length'],
    ['BIP 350: 16-byte v0 program', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'invalid_length'],
    ['BIP 350: mixed case', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'invalid_format'],
    ['BIP 350: more than 4 padding bits', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'invalid_format'],
    ['BIP 350: empty data', 'bc1gmk9yu', 'invalid_length'],
    ['Litecoin address', 'LKKHMBjCU89fyFNgSRprDoD8Jb25N8uWvd', 'invalid_value'],
  ])('rejects %s', (_name, address, code) => {
    expectFailures(btc, { address }, 'BTC', ['address', code]);
  });

  it('requires BTC, an address, and no unknown fields', () => {
    expectFailures(btc, { address: GENESIS }, 'ETH', ['currency', 'unsupported_currency']);
    expectFailures(btc, {}, 'BTC', ['address', 'required']);
    expectFailures(btc, { address: GENESIS, tag: 1 }, 'BTC', ['tag', 'unknown_field']);
    expectFailures(btc, { address: 42 }, 'BTC', ['address', 'invalid_type']);
    expectFailures(btc, { address: GENESIS, memo: 'x'.repeat(256) }, 'BTC', ['memo', 'too_long']);
  });

  it('masks the address ends and reports satoshi precision', () => {
    expect(btc.mask({ address: GENESIS })).toBe('BTC 1A1z…vfNa');
    expect(btc.precision('BTC')).toEqual({ min_unit: 1, exponent: 8 });
  });

  it('builds a BIP 21 link', () => {
    expect(btc.settlementPayload?.({ address: GENESIS }, 'BTC', '0.001')).toEqual({ kind: 'link', uri: `bitcoin:${GENESIS}?amount=0.001` });
    expect(btc.settlementPayload?.({ address: GENESIS }, 'BTC', '1e-3')).toBeNull();
  });
});
