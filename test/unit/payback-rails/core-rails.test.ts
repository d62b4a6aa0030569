import { describe, expect, it } from 'vitest';
import { coreRails } from '../../../builtin-plugins/payback-methods/rails/index.js';
import { crc16CcittFalse, crc16Xmodem } from '../../../builtin-plugins/payback-methods/rails/codecs/crc16.js';
import { ISO_3166_ALPHA2 } from '../../../builtin-plugins/payback-methods/rails/codecs/iso3166.js';
import { ISO_4217_CODES, iso4217Exponent } from '../../../builtin-plugins/payback-methods/rails/codecs/iso4217.js';
import { railProblems } from '../../../sdk/rail-vectors.js';

const EXPECTED_IDS = [
  'bank_wire', 'custom', 'btc', 'evm', 'solana', 'tron', 'ton', 'cardano', 'lightning', 'xrp', 'stellar', 'monero',
  'utxo_alt', 'algorand', 'pix', 'upi', 'mobile_payment', 'exchange_p2p', 'paynow', 'venmo', 'paypal', 'revolut',
  'wise', 'cashapp', 'zelle', 'alipay', 'wechat_pay', 'interac', 'mercado_pago',
];

describe('core rails', () => {
  it('has exactly the 29 core ids, unique, in the plugin id format', () => {
    const ids = coreRails.map((rail) => rail.id);
    expect(ids).toEqual(EXPECTED_IDS);
    expect(new Set(ids).size).toBe(29);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]{0,31}$/);
  });

  it.each(coreRails.map((rail) => [rail.id, rail] as const))('%s passes the shared rail vectors (catalogue, junk, unknown fields)', (_id, rail) => {
    expect(railProblems(rail)).toEqual([]);
  });
});

describe('reference tables', () => {
  it('lists the 249 ISO 3166-1 alpha-2 codes', () => {
    expect(ISO_3166_ALPHA2.size).toBe(249);
  });

  it('lists active ISO 4217 codes with their minor units', () => {
    expect(ISO_4217_CODES.length).toBe(164);
    expect(iso4217Exponent('JPY')).toBe(0);
    expect(iso4217Exponent('EUR')).toBe(2);
    expect(iso4217Exponent('BHD')).toBe(3);
    expect(iso4217Exponent('KWD')).toBe(3);
    expect(iso4217Exponent('CLF')).toBe(4);
    for (const withdrawn of ['BGN', 'HRK', 'ANG', 'SLL', 'ZWL', 'XAU', 'XXX']) expect(iso4217Exponent(withdrawn)).toBeUndefined();
  });

  it('computes the catalogued CRC-16 check values', () => {
    const check = new TextEncoder().encode('123456789');
    expect(crc16Xmodem(check)).toBe(0x31c3);
    expect(crc16CcittFalse(check)).toBe(0x29b1);
  });
});
