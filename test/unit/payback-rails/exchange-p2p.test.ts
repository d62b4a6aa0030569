import { describe, expect, it } from 'vitest';
import { exchangeP2p } from '../../../builtin-plugins/payback-methods/rails/fintech/exchange-p2p.js';
import { expectFailures, expectValid } from './helpers.js';

const transfer = (service: string, identifier_type: string, identifier: string) => ({ service, identifier_type, identifier });

describe('exchange_p2p rail', () => {
  it.each([
    ['binance_pay', 'pay_id', '354823912', 'USDT'],
    ['binance_pay', 'uid', '35123456', 'BTC'],
    ['binance_pay', 'email', 'trader@example.com', 'BNB'],
    ['coinbase', 'phone', '+1 212 555 0143', 'USDC'],
    ['kraken', 'username', '@satoshi_k', 'EUR'],
    ['okx', 'uid', '385671234567890123', 'OKB'],
    ['bybit', 'uid', '12345678', 'USDT'],
    ['kucoin', 'email', 'trader@example.com', 'KCS'],
  ])('accepts %s %s %s', (service, type, identifier, currency) => expectValid(exchangeP2p, transfer(service, type, identifier), currency));

  it.each([
    ['coinbase does not take a UID', transfer('coinbase', 'uid', '12345678'), 'identifier_type', 'invalid_value'],
    ['kraken does not take a Pay ID', transfer('kraken', 'pay_id', '123456789'), 'identifier_type', 'invalid_value'],
    ['a Pay ID with a letter', transfer('binance_pay', 'pay_id', '35482391A'), 'identifier', 'invalid_format'],
    ['a Pay ID of 5 digits', transfer('binance_pay', 'pay_id', '35482'), 'identifier', 'invalid_length'],
    ['a UID of 4 digits', transfer('okx', 'uid', '1234'), 'identifier', 'invalid_length'],
    ['an email without a TLD', transfer('bybit', 'email', 'trader@example'), 'identifier', 'invalid_format'],
    ['a phone without +', transfer('kucoin', 'phone', '2125550143'), 'identifier', 'invalid_format'],
    ['a username with a space', transfer('kraken', 'username', 'satoshi k'), 'identifier', 'invalid_format'],
    ['an unknown exchange', transfer('ftx', 'email', 'trader@example.com'), 'service', 'invalid_value'],
  ])('rejects %s', (_name, fields, field, code) => expectFailures(exchangeP2p, fields, 'USDT', [field, code]));

  it('takes any 3-10 character asset code', () => {
    expectFailures(exchangeP2p, transfer('okx', 'uid', '12345678'), 'US', ['currency', 'unsupported_currency']);
    expectFailures(exchangeP2p, transfer('okx', 'uid', '12345678'), 'USD-T', ['currency', 'unsupported_currency']);
  });

  it('has no link builder; masks; asset precision', () => {
    expect(exchangeP2p.settlementPayload).toBeUndefined();
    expect(exchangeP2p.mask(transfer('binance_pay', 'pay_id', '354823912'))).toBe('Binance Pay •••• 3912');
    expect(exchangeP2p.precision('USDT')).toEqual({ min_unit: 1, exponent: 6 });
    expect(exchangeP2p.precision('EUR')).toEqual({ min_unit: 1, exponent: 2 });
    expect(exchangeP2p.precision('OKB')).toEqual({ min_unit: 1, exponent: 8 });
  });

  it('lists each exchange’s identifier types as catalog variants', () => {
    expect(exchangeP2p.catalog().variants?.fields['coinbase']?.[0]?.options).toEqual(['email', 'phone']);
  });
});
