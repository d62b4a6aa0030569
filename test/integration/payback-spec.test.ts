/**
 * Document 1's "Payback methods" section, rail by rail, through the REST API: every core rail is created with
 * exactly the field names of the spec's tables (required and optional ones) and reveals them back; the rules the
 * spec states for a rail's fields are enforced on `POST /api/v1/payback-methods`; optional fields in parentheses
 * are optional (a token may omit its contract field; only the native asset rejects it); and a body that is not a
 * JSON object is a payback validation failure, answered in the envelope of convention 8.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { invalid } from './payback-support.js';

const BASE = '/api/v1/payback-methods';
const NAME = 'Jane Doe';

// Published identifiers (see the rail unit tests for their sources).
const IBAN_DE = 'DE89370400440532013000';
const IBAN_GB = 'GB82WEST12345698765432';
const BTC_GENESIS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const EVM_ADDRESS = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const USDC_POLYGON = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const SOLANA_ADDRESS = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TON_ADDRESS = 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI';
const TON_USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const CARDANO_ADDRESS = 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x';
const XRP_ADDRESS = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const STELLAR_ADDRESS = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const STELLAR_USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
const MONERO_ADDRESS = '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A';
const LTC_ADDRESS = 'LKKHMBjCU89fyFNgSRprDoD8Jb25N8uWvd';
const ALGORAND_ADDRESS = 'Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA';

type Case = readonly [name: string, type: string, currency: string, fields: Record<string, unknown>];

/** One method per rail (and per bank sub-rail), with every field the spec lists for it, optional ones included. */
const SPEC_RAILS: readonly Case[] = [
  ['bank_wire sepa', 'bank_wire', 'EUR', { rail: 'sepa', recipient_name: NAME, iban: IBAN_DE }],
  ['bank_wire faster_payments', 'bank_wire', 'GBP', { rail: 'faster_payments', recipient_name: NAME, sort_code: '200000', account_number: '31926819' }],
  ['bank_wire ach', 'bank_wire', 'USD', { rail: 'ach', recipient_name: NAME, routing_number: '021000021', account_number: '123456789', account_type: 'checking' }],
  ['bank_wire fednow', 'bank_wire', 'USD', { rail: 'fednow', recipient_name: NAME, routing_number: '021000021', account_number: '123456789', account_type: 'savings' }],
  ['bank_wire swift with an IBAN', 'bank_wire', 'EUR', { rail: 'swift', recipient_name: NAME, bic_swift: 'DEUTDEFF', bank_name: 'Deutsche Bank', country: 'DE', iban: IBAN_DE }],
  ['bank_wire swift with an account number', 'bank_wire', 'USD', { rail: 'swift', recipient_name: NAME, bic_swift: 'CHASUS33', bank_name: 'JPMorgan Chase', country: 'US', account_number: '123456789' }],
  ['custom', 'custom', 'Hours', { rows: [{ key: 'Bank', value: 'Time bank of the valley' }] }],
  ['btc', 'btc', 'BTC', { address: BTC_GENESIS, memo: 'thanks' }],
  ['evm native', 'evm', 'ETH', { chain: 'eth_mainnet', address: EVM_ADDRESS, memo: 'thanks' }],
  ['evm token', 'evm', 'USDC', { chain: 'polygon', address: EVM_ADDRESS, token_contract: USDC_POLYGON, memo: 'thanks' }],
  ['solana', 'solana', 'USDC', { address: SOLANA_ADDRESS, spl_token: USDC_MINT, memo: 'thanks' }],
  ['tron', 'tron', 'TRX', { address: TRON_ADDRESS, memo: 'thanks' }],
  ['ton', 'ton', 'USDT', { address: TON_ADDRESS, jetton_master: TON_USDT_MASTER, memo: 'thanks' }],
  ['cardano', 'cardano', 'ADA', { address: CARDANO_ADDRESS, memo: 'thanks' }],
  ['lightning', 'lightning', 'BTC', { kind: 'lightning_address', identifier: 'satoshi@example.com', memo: 'thanks' }],
  ['xrp', 'xrp', 'XRP', { address: XRP_ADDRESS, destination_tag: 12345, memo: 'thanks' }],
  ['stellar', 'stellar', 'USDC', { address: STELLAR_ADDRESS, memo: 'thanks', issuer: STELLAR_USDC_ISSUER }],
  ['monero', 'monero', 'XMR', { address: MONERO_ADDRESS, payment_id: '0123456789abcdef' }],
  ['utxo_alt', 'utxo_alt', 'LTC', { chain: 'LTC', address: LTC_ADDRESS, memo: 'thanks' }],
  ['algorand', 'algorand', 'USDC', { address: ALGORAND_ADDRESS, asset_id: '31566704', note: 'thanks' }],
  ['pix', 'pix', 'BRL', { key_type: 'cpf', key: '52998224725', recipient_name: 'Fulano de Tal', recipient_city: 'Sao Paulo' }],
  ['upi', 'upi', 'INR', { vpa: 'ramesh.kumar@okaxis', display_name: 'Ramesh' }],
  ['mobile_payment with country', 'mobile_payment', 'DKK', { service: 'mobilepay', country: 'DK', identifier: '+4520123456', display_name: 'Ana' }],
  ['mobile_payment 6-digit code', 'mobile_payment', 'NOK', { service: 'vipps', identifier: '123456', display_name: 'Ana' }],
  ['exchange_p2p', 'exchange_p2p', 'USDT', { service: 'binance_pay', identifier_type: 'pay_id', identifier: '354823912', display_name: 'Ana' }],
  ['paynow', 'paynow', 'SGD', { identifier_type: 'uen', identifier: '196800306E', recipient_name: 'DBS Bank Ltd' }],
  ['(a) venmo', 'venmo', 'USD', { handle: 'Jane-Doe_22', display_name: 'Jane' }],
  ['(b) paypal', 'paypal', 'EUR', { identifier_type: 'link_name', identifier: 'janedoe', display_name: 'Jane' }],
  ['(c) revolut', 'revolut', 'GBP', { tag: 'jdoe2024', display_name: 'Jane' }],
  ['(d) wise', 'wise', 'GBP', { identifier_type: 'iban', identifier: IBAN_GB, display_name: 'Jane' }],
  ['(e) cashapp', 'cashapp', 'USD', { cashtag: 'JaneDoe', display_name: 'Jane' }],
  ['(f) zelle', 'zelle', 'USD', { identifier_type: 'phone', identifier: '+12125550143', display_name: 'Jane' }],
  ['(g) alipay', 'alipay', 'CNY', { identifier_type: 'email', identifier: 'li.wei@example.com', display_name: 'Li' }],
  ['(h) wechat_pay', 'wechat_pay', 'CNY', { identifier_type: 'wechat_id', identifier: 'liwei_2024', display_name: 'Li' }],
  ['(i) interac', 'interac', 'CAD', { identifier_type: 'email', identifier: 'jane@example.ca', auto_deposit: '1', display_name: 'Jane' }],
  ['(j) mercado_pago', 'mercado_pago', 'MXN', { country: 'MX', identifier_type: 'clabe', identifier: '032180000118359719', display_name: 'Juan' }],
];

/** Inputs the spec's rules refuse: [name, type, currency, fields, failing field, code]. */
const SPEC_REFUSALS: readonly (readonly [string, string, string, Record<string, unknown>, string, string])[] = [
  ['swift without iban and account_number', 'bank_wire', 'EUR', { rail: 'swift', recipient_name: NAME, bic_swift: 'DEUTDEFF', bank_name: 'Deutsche Bank', country: 'DE' }, 'fields.account_number', 'required'],
  ['ach account_type other than checking or savings', 'bank_wire', 'USD', { rail: 'ach', recipient_name: NAME, routing_number: '021000021', account_number: '123456789', account_type: 'brokerage' }, 'fields.account_type', 'invalid_value'],
  ['51 custom rows', 'custom', 'EUR', { rows: Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' })) }, 'fields.rows', 'too_long'],
  ['a custom value of 1025 characters', 'custom', 'EUR', { rows: [{ key: 'k', value: 'v'.repeat(1025) }] }, 'fields.rows[0].value', 'too_long'],
  ['btc in another currency', 'btc', 'EUR', { address: BTC_GENESIS }, 'currency', 'unsupported_currency'],
  ['evm on an unknown chain', 'evm', 'ETH', { chain: 'fantom', address: EVM_ADDRESS }, 'fields.chain', 'invalid_value'],
  ['evm asset not on that chain', 'evm', 'BNB', { chain: 'eth_mainnet', address: EVM_ADDRESS }, 'currency', 'unsupported_currency'],
  ['tron without the T prefix', 'tron', 'TRX', { address: `A${TRON_ADDRESS.slice(1)}` }, 'fields.address', 'invalid_format'],
  ['ton native asset with a jetton_master', 'ton', 'TON', { address: TON_ADDRESS, jetton_master: TON_USDT_MASTER }, 'fields.jetton_master', 'not_allowed'],
  ['cardano testnet address', 'cardano', 'ADA', { address: 'addr_test1qz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgs68faae' }, 'fields.address', 'wrong_network'],
  ['cardano Byron address', 'cardano', 'ADA', { address: 'Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi' }, 'fields.address', 'not_allowed'],
  ['lightning in another currency', 'lightning', 'EUR', { kind: 'lightning_address', identifier: 'satoshi@example.com' }, 'currency', 'unsupported_currency'],
  ['xrp address without the r prefix', 'xrp', 'XRP', { address: `x${XRP_ADDRESS.slice(1)}` }, 'fields.address', 'invalid_format'],
  ['stellar native asset with an issuer', 'stellar', 'XLM', { address: STELLAR_ADDRESS, issuer: STELLAR_USDC_ISSUER }, 'fields.issuer', 'not_allowed'],
  ['monero in another currency', 'monero', 'BTC', { address: MONERO_ADDRESS }, 'currency', 'unsupported_currency'],
  ['utxo_alt currency other than the chain', 'utxo_alt', 'DOGE', { chain: 'LTC', address: LTC_ADDRESS }, 'currency', 'unsupported_currency'],
  ['algorand native asset with an asset_id', 'algorand', 'ALGO', { address: ALGORAND_ADDRESS, asset_id: '31566704' }, 'fields.asset_id', 'not_allowed'],
  ['algorand address in lower case (58 upper-case base32 characters)', 'algorand', 'ALGO', { address: ALGORAND_ADDRESS.toLowerCase() }, 'fields.address', 'invalid_format'],
  ['algorand asset_id that is not numeric', 'algorand', 'USDC', { address: ALGORAND_ADDRESS, asset_id: 'usdc' }, 'fields.asset_id', 'invalid_format'],
  ['pix in another currency', 'pix', 'USD', { key_type: 'cpf', key: '52998224725' }, 'currency', 'unsupported_currency'],
  ['upi without @provider', 'upi', 'INR', { vpa: 'ramesh.kumar' }, 'fields.vpa', 'invalid_format'],
  ['mobilepay without its country', 'mobile_payment', 'DKK', { service: 'mobilepay', identifier: '+4520123456' }, 'fields.country', 'required'],
  ['mobilepay with a country other than DK or FI', 'mobile_payment', 'SEK', { service: 'mobilepay', country: 'SE', identifier: '+46701234567' }, 'fields.country', 'invalid_value'],
  ['exchange_p2p identifier type the service lacks', 'exchange_p2p', 'USDT', { service: 'coinbase', identifier_type: 'uid', identifier: '12345678' }, 'fields.identifier_type', 'invalid_value'],
  ['paynow mobile with 7 digits', 'paynow', 'SGD', { identifier_type: 'mobile', identifier: '+659123456' }, 'fields.identifier', 'invalid_format'],
  ['paynow NRIC with a wrong check letter', 'paynow', 'SGD', { identifier_type: 'nric', identifier: 'S1234567A' }, 'fields.identifier', 'invalid_checksum'],
  ['paynow UEN of 11 characters', 'paynow', 'SGD', { identifier_type: 'uen', identifier: '196800306EX' }, 'fields.identifier', 'invalid_length'],
  ['paynow in another currency', 'paynow', 'MYR', { identifier_type: 'uen', identifier: '196800306E' }, 'currency', 'unsupported_currency'],
  ['(a) venmo in another currency', 'venmo', 'EUR', { handle: 'JaneDoe' }, 'currency', 'unsupported_currency'],
  ['(b) paypal identifier type other than link_name or email', 'paypal', 'EUR', { identifier_type: 'phone', identifier: '+4915112345678' }, 'fields.identifier_type', 'invalid_value'],
  ['(b) paypal in a code outside ISO 4217', 'paypal', 'BTC', { identifier_type: 'email', identifier: 'jane@example.com' }, 'currency', 'unsupported_currency'],
  ['(c) revolut tag of 4 characters', 'revolut', 'EUR', { tag: '@abcd' }, 'fields.tag', 'invalid_length'],
  ['(c) revolut tag of 21 characters', 'revolut', 'EUR', { tag: 'a'.repeat(21) }, 'fields.tag', 'invalid_length'],
  ['(c) revolut tag with a non-alphanumeric character', 'revolut', 'EUR', { tag: 'jane_doe' }, 'fields.tag', 'invalid_format'],
  ['(d) wise IBAN failing mod-97', 'wise', 'EUR', { identifier_type: 'iban', identifier: 'GB82WEST12345698765433' }, 'fields.identifier', 'invalid_checksum'],
  ['(e) cashapp in another currency', 'cashapp', 'CAD', { cashtag: '$JaneDoe' }, 'currency', 'unsupported_currency'],
  ['(f) zelle in another currency', 'zelle', 'EUR', { identifier_type: 'email', identifier: 'jane@example.com' }, 'currency', 'unsupported_currency'],
  ['(g) alipay identifier type other than email or phone', 'alipay', 'CNY', { identifier_type: 'wechat_id', identifier: 'liwei_2024' }, 'fields.identifier_type', 'invalid_value'],
  ['(h) wechat_pay in another currency', 'wechat_pay', 'USD', { identifier_type: 'wechat_id', identifier: 'liwei_2024' }, 'currency', 'unsupported_currency'],
  ['(i) interac auto_deposit other than 0 or 1', 'interac', 'CAD', { identifier_type: 'email', identifier: 'jane@example.ca', auto_deposit: '2' }, 'fields.auto_deposit', 'invalid_value'],
  ['(j) mercado_pago country outside AR, BR, MX', 'mercado_pago', 'CLP', { country: 'CL', identifier_type: 'email', identifier: 'juan@example.cl' }, 'fields.country', 'invalid_value'],
  ['(j) mercado_pago AR with a BR identifier type', 'mercado_pago', 'ARS', { country: 'AR', identifier_type: 'cpf', identifier: '52998224725' }, 'fields.identifier_type', 'invalid_value'],
  ['(j) mercado_pago BR in the AR currency', 'mercado_pago', 'ARS', { country: 'BR', identifier_type: 'cpf', identifier: '52998224725' }, 'currency', 'unsupported_currency'],
];

describe('payback methods against Document 1, rail by rail', () => {
  let A: TestNode;

  beforeAll(async () => {
    A = await startTestNode();
  });
  afterAll(async () => {
    await A?.destroy();
  });

  const refused = (path: string, method: string, body: unknown): Promise<[string, string][]> => invalid(A, method, path, body);

  it('covers all 29 core rail ids', () => {
    expect(new Set(SPEC_RAILS.map(([, type]) => type)).size).toBe(29);
  });

  it.each(SPEC_RAILS)('creates %s with the spec field names and reveals exactly those names', async (_name, type, currency, fields) => {
    const res = await call(A, 'POST', BASE, { type, label: `${type} method`, currency, fields });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201, body: { success: true, data: { method_id: expect.any(String) } } });
    const { method } = await ok(A, 'GET', `${BASE}/${res.body.data.method_id}/reveal`);
    expect(method).toMatchObject({ type, currency, enabled: true, share_policy: 'auto', priority: 100 });
    expect(Object.keys(method.fields).sort()).toEqual(Object.keys(fields).sort());
    const masked = (await ok(A, 'GET', `${BASE}/${res.body.data.method_id}`)).method;
    expect(masked).not.toHaveProperty('fields');
    expect(typeof masked.masked_display).toBe('string');
    await ok(A, 'DELETE', `${BASE}/${res.body.data.method_id}`);
  });

  it.each(SPEC_REFUSALS)('refuses %s', async (_name, type, currency, fields, field, code) => {
    expect(await refused(BASE, 'POST', { type, label: 'x', currency, fields })).toEqual([[field, code]]);
  });

  // "Crypto (optional fields in parentheses)": a token's contract field is optional; only the native asset
  // rejects it (ton, stellar, algorand), so a token without one is a valid method.
  it.each([
    ['evm', 'USDC', { chain: 'polygon', address: EVM_ADDRESS }],
    ['solana', 'USDC', { address: SOLANA_ADDRESS }],
    ['ton', 'USDT', { address: TON_ADDRESS }],
    ['stellar', 'USDC', { address: STELLAR_ADDRESS }],
    ['algorand', 'USDC', { address: ALGORAND_ADDRESS }],
  ] as const)('%s: a token without its optional contract field is accepted (%s)', async (type, currency, fields) => {
    const res = await call(A, 'POST', BASE, { type, label: `${type} token`, currency, fields });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201, body: { success: true } });
    const { method } = await ok(A, 'GET', `${BASE}/${res.body.data.method_id}/reveal`);
    expect(method.fields).toEqual(fields);
    await ok(A, 'DELETE', `${BASE}/${res.body.data.method_id}`);
  });

  it('exchange_p2p has no link builder; paynow emits a QR-only payload', async () => {
    const exchange = await ok(A, 'POST', BASE, { type: 'exchange_p2p', label: 'Binance', currency: 'USDT', fields: { service: 'binance_pay', identifier_type: 'uid', identifier: '35123456' } });
    const none = await call(A, 'GET', `${BASE}/${exchange.method_id}/payload`);
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('payload_not_supported');
    const paynow = await ok(A, 'POST', BASE, { type: 'paynow', label: 'PayNow', currency: 'SGD', fields: { identifier_type: 'mobile', identifier: '+6591234567' } });
    expect((await ok(A, 'GET', `${BASE}/${paynow.method_id}/payload`)).payload).toMatchObject({ kind: 'qr', payload: expect.stringMatching(/^000201/) });
    for (const id of [exchange.method_id, paynow.method_id]) await ok(A, 'DELETE', `${BASE}/${id}`);
  });

  it('a body that is not a JSON object is a validation failure in the payback envelope (convention 8)', async () => {
    const created = await ok(A, 'POST', BASE, { type: 'btc', label: 'Cold', currency: 'BTC', fields: { address: BTC_GENESIS } });
    // (The signed client sends a string body as it is, so '"text"' is the JSON string "text".)
    for (const body of [[], '"text"', 42, true, null]) {
      expect(await refused(BASE, 'POST', body)).toEqual([['body', 'invalid_type']]);
      expect(await refused(`${BASE}/${created.method_id}`, 'PUT', body)).toEqual([['body', 'invalid_type']]);
      expect(await refused(`${BASE}/${created.method_id}/share-policy`, 'PUT', body)).toEqual([['body', 'invalid_type']]);
    }
    // An unknown method is still 404 before its body is looked at.
    const missing = await call(A, 'PUT', `${BASE}/pbm_0123456789abcdef01234567`, []);
    expect(missing.status).toBe(404);
    expect((await ok(A, 'GET', `${BASE}/${created.method_id}`)).method).toMatchObject({ label: 'Cold', share_policy: 'auto' });
    await ok(A, 'DELETE', `${BASE}/${created.method_id}`);
  });
});
