import { describe, expect, it } from 'vitest';
import { paynow } from '../../../builtin-plugins/payback-methods/rails/fintech/paynow.js';
import { crc16CcittFalse } from '../../../builtin-plugins/payback-methods/rails/codecs/crc16.js';
import { expectFailures, expectValid } from './helpers.js';

const id = (identifier_type: string, identifier: string) => ({ identifier_type, identifier });
const crcOf = (payload: string) => crc16CcittFalse(new TextEncoder().encode(payload.slice(0, -4))).toString(16).toUpperCase().padStart(4, '0');

describe('paynow rail', () => {
  // NRIC/FIN check letters computed with the published weights (S/T: JZIHGFEDCBA, F/G: XWUTRQPNMLK, M: KLJNPQRTUWX).
  it.each([
    ['mobile', '+65 9123 4567'],
    ['mobile', '+6581234567'],
    ['nric', 'S1234567D'],
    ['nric', 't1234567j'],
    ['nric', 'F1234567N'],
    ['nric', 'G1234567X'],
    ['nric', 'M1234567K'],
    ['uen', '196800306E'],
    ['uen', '53312345A'],
    ['uen', 'T08LL0001A'],
  ])('accepts %s %s', (type, value) => expectValid(paynow, id(type, value), 'SGD'));

  it.each([
    ['NRIC with the wrong check letter', 'nric', 'S1234567A', 'invalid_checksum'],
    ['FIN with the S-series letter', 'nric', 'F1234567D', 'invalid_checksum'],
    ['M-series with the F-series letter', 'nric', 'M1234567M', 'invalid_checksum'],
    ['NRIC with prefix A', 'nric', 'A1234567D', 'invalid_format'],
    ['mobile without +65', 'mobile', '91234567', 'invalid_format'],
    ['mobile starting with 6 (a landline)', 'mobile', '+6561234567', 'invalid_format'],
    ['mobile with 7 digits', 'mobile', '+659123456', 'invalid_format'],
    ['UEN of 8 characters', 'uen', '5331234A', 'invalid_length'],
    ['UEN of no known shape', 'uen', 'ABCDEFGHI', 'invalid_format'],
    ['UEN from a future year', 'uen', '209912345Z', 'invalid_value'],
  ])('rejects %s', (_name, type, value, code) => expectFailures(paynow, id(type, value), 'SGD', ['identifier', code]));

  it('settles in SGD and caps the name at the QR limit', () => {
    expectFailures(paynow, id('mobile', '+6591234567'), 'MYR', ['currency', 'unsupported_currency']);
    expectFailures(paynow, { ...id('mobile', '+6591234567'), recipient_name: 'N'.repeat(26) }, 'SGD', ['recipient_name', 'too_long']);
  });

  it('reproduces a published static SGQR payload', () => {
    const payload = paynow.settlementPayload?.(id('mobile', '+65 8455 4295'), 'SGD');
    expect(payload).toEqual({
      kind: 'qr',
      payload: '00020101021126380009SG.PAYNOW010100211+6584554295030115204000053037025802SG5902NA6009SINGAPORE630416D8',
    });
  });

  it('emits dynamic payloads for UENs with an amount and a valid CRC', () => {
    const result = paynow.settlementPayload?.({ ...id('uen', '196800306E'), recipient_name: 'DBS Bank Ltd' }, 'SGD', '12.34');
    expect(result?.kind).toBe('qr');
    const payload = result?.kind === 'qr' ? result.payload : '';
    expect(payload).toContain('0009SG.PAYNOW0101202101968003' + '06E03010');
    expect(payload).toContain('540512.34');
    expect(payload).toContain('5912DBS Bank Ltd');
    expect(payload.slice(-4)).toBe(crcOf(payload));
  });

  it('agrees with the CRC of an independent PayNow payload', () => {
    const published =
      '00020101021126500009SG.PAYNOW010100211+6590901234030100408205004155204000053037025406888.885802SG5902NA6009Singapore62320128Payment reference XX1234567863046B73';
    expect(crcOf(published)).toBe('6B73');
  });

  it('has no payload for NRIC proxies or malformed amounts', () => {
    expect(paynow.settlementPayload?.(id('nric', 'S1234567D'), 'SGD')).toBeNull();
    expect(paynow.settlementPayload?.(id('mobile', '+6591234567'), 'SGD', '-5')).toBeNull();
  });

  it('masks the identifier', () => {
    expect(paynow.mask(id('nric', 'S1234567D'))).toBe('PayNow •••• 567D');
    expect(paynow.precision('SGD')).toEqual({ min_unit: 1, exponent: 2 });
  });
});
