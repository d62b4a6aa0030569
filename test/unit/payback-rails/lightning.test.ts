import { describe, expect, it } from 'vitest';
import { bech32 } from '@scure/base';
import { lightning } from '../../../builtin-plugins/payback-methods/rails/crypto/lightning.js';
import { expectFailures, expectValid, swapChar } from './helpers.js';

// BOLT 11 specification examples (donation without amount, 2500u coffee, 20m with description hash), a
// real mainnet invoice, and the specification's testnet example.
const DONATION =
  'lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql';
const COFFEE =
  'lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh';
const DESCRIPTION_HASH =
  'lnbc20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqs9qrsgq7ea976txfraylvgzuxs8kgcw23ezlrszfnh8r6qtfpr6cxga50aj6txm9rxrydzd06dfeawfk6swupvz4erwnyutnjq7x39ymw6j38gp7ynn44';
const REAL_MAINNET =
  'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrmrl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hs';
const TESTNET =
  'lntb20m1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygshp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqfpp3x9et2e20v6pu37c5d9vax37wxq72un989qrsgqdj545axuxtnfemtpwkc45hx9d2ft7x04mt8q7y6t0k2dge9e7h8kpy9p34ytyslj3yu569aalz2xdk8xkd7ltxqld94u8h2esmsmacgpghe9k8';
// LUD-01 example, which decodes to https://service.com/api?q=3fc3645b...
const LNURL =
  'LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS';

const lnurlOf = (url: string) => bech32.encode('lnurl', bech32.toWords(new TextEncoder().encode(url)), false);

describe('lightning rail', () => {
  it.each([DONATION, COFFEE, DESCRIPTION_HASH, REAL_MAINNET, DONATION.toUpperCase(), `lightning:${COFFEE}`])('accepts invoice %#', (identifier) => {
    expectValid(lightning, { kind: 'bolt11', identifier }, 'BTC');
  });

  it.each([LNURL, LNURL.toLowerCase(), `lightning:${LNURL}`, lnurlOf('http://abcdefghijklmnop.onion/lnurlp/x')])('accepts LNURL %#', (identifier) => {
    expectValid(lightning, { kind: 'lnurl', identifier }, 'BTC');
  });

  it.each(['alice@getalby.com', 'Satoshi.Nakamoto+tips@walletofsatoshi.com'])('accepts Lightning address %s', (identifier) => {
    expectValid(lightning, { kind: 'lightning_address', identifier }, 'BTC');
  });

  it('stores identifiers lower-case without the lightning: scheme', () => {
    expect(lightning.normalize?.({ kind: 'lnurl', identifier: `lightning:${LNURL}` }, 'BTC')).toEqual({ kind: 'lnurl', identifier: LNURL.toLowerCase() });
  });

  it.each([
    ['invoice with one character changed', 'bolt11', swapChar(COFFEE, 40, 'q'), 'invalid_checksum'],
    ['invoice with its last character changed', 'bolt11', swapChar(REAL_MAINNET, -1, 'q'), 'invalid_checksum'],
    ['testnet invoice', 'bolt11', TESTNET, 'wrong_network'],
    ['invoice without a payment hash', 'bolt11', bech32.encode('lnbc', new Array<number>(111).fill(0), false), 'invalid_format'],
    ['invoice too short for a signature', 'bolt11', bech32.encode('lnbc', new Array<number>(20).fill(0), false), 'invalid_length'],
    ['a bitcoin address as invoice', 'bolt11', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'invalid_format'],
    ['LNURL with one character changed', 'lnurl', swapChar(LNURL, 30, 'Q'), 'invalid_checksum'],
    ['LNURL of a plain http URL', 'lnurl', lnurlOf('http://service.com/api'), 'invalid_value'],
    ['LNURL of something that is not a URL', 'lnurl', lnurlOf('not a url'), 'invalid_value'],
    ['Lightning address without a domain dot', 'lightning_address', 'alice@localhost', 'invalid_format'],
    ['Lightning address with a space', 'lightning_address', 'al ice@getalby.com', 'invalid_format'],
  ])('rejects %s', (_name, kind, identifier, code) => expectFailures(lightning, { kind, identifier }, 'BTC', ['identifier', code]));

  it('needs a kind, BTC, and a bounded memo', () => {
    expectFailures(lightning, { identifier: DONATION }, 'BTC', ['kind', 'required']);
    expectFailures(lightning, { kind: 'bolt12', identifier: DONATION }, 'BTC', ['kind', 'invalid_value']);
    expectFailures(lightning, { kind: 'bolt11', identifier: DONATION }, 'SAT', ['currency', 'unsupported_currency']);
    expectFailures(lightning, { kind: 'bolt11', identifier: DONATION, memo: 'm'.repeat(256) }, 'BTC', ['memo', 'too_long']);
  });

  it('masks identifiers and links with the lightning: scheme', () => {
    expect(lightning.mask({ kind: 'bolt11', identifier: COFFEE })).toBe('Lightning invoice lnbc…a3rh');
    expect(lightning.mask({ kind: 'lightning_address', identifier: 'alice@getalby.com' })).toBe('Lightning address •••• .com');
    expect(lightning.settlementPayload?.({ kind: 'lightning_address', identifier: 'alice@getalby.com' }, 'BTC')).toEqual({
      kind: 'link',
      uri: 'lightning:alice@getalby.com',
    });
    expect(lightning.precision('BTC')).toEqual({ min_unit: 1, exponent: 8 });
  });
});
