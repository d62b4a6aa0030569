import { describe, expect, it } from 'vitest';
import { base64url } from '@scure/base';
import { ton } from '../../../builtin-plugins/payback-methods/rails/crypto/ton.js';
import { crc16Xmodem } from '../../../builtin-plugins/payback-methods/rails/codecs/crc16.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// TON documentation example (bounceable and non-bounceable forms), the USDT jetton master, and the
// masterchain elector contract.
const BOUNCEABLE = 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N';
const NON_BOUNCEABLE = 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI';
const USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const ELECTOR = 'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF';

/** Re-encodes an address with different flags and a correct CRC (to build a testnet form). */
function withFlags(address: string, flags: number): string {
  const bytes = base64url.decode(address);
  bytes[0] = flags;
  const crc = crc16Xmodem(bytes.slice(0, 34));
  bytes[34] = crc >> 8;
  bytes[35] = crc & 0xff;
  return base64url.encode(bytes);
}

describe('ton rail', () => {
  it.each([BOUNCEABLE, NON_BOUNCEABLE, USDT_MASTER, ELECTOR])('accepts %s', (address) => expectValid(ton, { address }, 'TON'));

  it('accepts the standard base64 alphabet too', () => {
    expectValid(ton, { address: USDT_MASTER.replace(/_/g, '/').replace(/-/g, '+') }, 'TON');
  });

  it('accepts jettons with their master', () => {
    expectValid(ton, { address: NON_BOUNCEABLE, jetton_master: USDT_MASTER, memo: '42' }, 'USDT');
  });

  it.each([
    ['one character changed', swapChar(BOUNCEABLE, 10, 'A'), 'invalid_checksum'],
    ['47 characters', BOUNCEABLE.slice(0, 47), 'invalid_length'],
    ['raw form', '0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8', 'invalid_format'],
    ['mixed base64 alphabets', `${USDT_MASTER.slice(0, 10)}+${USDT_MASTER.slice(11)}`, 'invalid_format'],
    ['a testnet form', withFlags(BOUNCEABLE, 0x91), 'wrong_network'],
    ['unknown flags', withFlags(BOUNCEABLE, 0x12), 'invalid_value'],
  ])('rejects %s', (_name, address, code) => expectFailures(ton, { address }, 'TON', ['address', code]));

  it('applies the native and jetton rules', () => {
    expectFailures(ton, { address: BOUNCEABLE, jetton_master: USDT_MASTER }, 'TON', ['jetton_master', 'not_allowed']);
    // jetton_master is optional (Document 1 lists it in parentheses); only native TON rejects it.
    expectValid(ton, { address: BOUNCEABLE }, 'USDT');
  });

  it('masks and reports nanoton or jetton precision', () => {
    expect(ton.mask({ address: BOUNCEABLE })).toBe('TON EQCD…qB2N');
    expect(ton.precision('TON')).toEqual({ min_unit: 1, exponent: 9 });
    expect(ton.precision('USDT')).toEqual({ min_unit: 1, exponent: 6 });
  });
});
