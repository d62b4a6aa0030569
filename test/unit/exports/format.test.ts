import { describe, expect, it } from 'vitest';
import { CSV_BOM, csvRow, csvText, csvVerbatim, looksLikeFormula } from '../../../sdk/csv.js';
import { clampUtf8, stripUnsafeText } from '../../../sdk/text.js';
import { DESCRIPTION_MAX_BYTES, displayDescription, exportDate, exportDateOf } from '../../../builtin-plugins/exports/columns.js';
import { csvEncoder, ndjsonEncoder, type Column } from '../../../builtin-plugins/exports/encode.js';
import { exportFileName, slug } from '../../../builtin-plugins/exports/core.js';
import { parseQuery } from '../../../builtin-plugins/exports/query.js';
import { RecordCounter } from '../../../builtin-plugins/exports/cli.js';

describe('CSV cells (sdk/csv.ts)', () => {
  it('RFC 4180: quotes a cell with a comma, a quote, CR or LF, doubling inner quotes; leaves others bare', () => {
    expect(csvVerbatim('plain text')).toBe('plain text');
    expect(csvVerbatim('a,b')).toBe('"a,b"');
    expect(csvVerbatim('say "hi"')).toBe('"say ""hi"""');
    expect(csvVerbatim('two\nlines')).toBe('"two\nlines"');
    expect(csvVerbatim('cr\r')).toBe('"cr\r"');
    expect(csvVerbatim('')).toBe('');
    expect(csvRow(['a', '"b,c"', ''])).toBe('a,"b,c",\r\n');
    expect(CSV_BOM).toBe('\uFEFF');
  });

  it('formula injection (OWASP): =, +, -, @, tab, CR, LF and NUL first are quote-prefixed and quoted', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r', '\n', '\0']) {
      const text = `${start}1+1`;
      expect(looksLikeFormula(text)).toBe(true);
      expect(csvText(text)).toBe(`"'${text}"`);
    }
    expect(csvText('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvText("=cmd|' /C calc'!A0")).toBe('"\'=cmd|\' /C calc\'!A0"');
    // Not first: harmless text, only RFC quoting.
    expect(csvText('a=1, b=2')).toBe('"a=1, b=2"');
    expect(csvText('1-2')).toBe('1-2');
    expect(csvText(' plain')).toBe(' plain');
    // Behind what a spreadsheet skips (whitespace, zero-width characters), and in full-width form, they start a formula too.
    for (const text of [' =1+1', '  \t-1', '\u00A0@SUM(A1)', '\u200B=1', '\u200D\u2060+1', '\uFEFF=1', '\uFF1D1+1', '\uFF0B1', '\uFF0D1', '\uFF20SUM(A1)', ' \u200B\uFF1D1']) {
      expect(looksLikeFormula(text)).toBe(true);
      expect(csvText(text)).toBe(`"'${text}"`);
    }
    // Signed data stays as it is, whatever it starts with.
    expect(csvVerbatim('=1+1')).toBe('=1+1');
  });
});

describe('display rules (sdk/text.ts, exports/columns.ts)', () => {
  it('strips control, bidirectional, zero-width and separator characters', () => {
    expect(stripUnsafeText('a\tb\r\nc\u202Ed\u200Be\u2028f\u{E0041}g\u00ADh')).toBe('abcdefgh');
    expect(displayDescription('\t=1+2')).toBe('=1+2');
    expect(displayDescription(null)).toBeNull();
  });

  it('clamps to a byte budget without splitting a character', () => {
    expect(clampUtf8('abc', 2)).toBe('ab');
    expect(clampUtf8('aé', 2)).toBe('a'); // é is 2 bytes
    expect(clampUtf8('a😀b', 4)).toBe('a');
    expect(clampUtf8('a😀b', 5)).toBe('a😀');
    expect(clampUtf8('€€€', 9)).toBe('€€€');
    const longest = '😀'.repeat(255); // the largest valid description: never cut
    expect(displayDescription(longest)).toBe(longest);
    const tooLong = '€'.repeat(400);
    expect(Buffer.byteLength(displayDescription(tooLong)!)).toBe(DESCRIPTION_MAX_BYTES);
  });

  it('dates: YYYY-MM-DDTHH:MM:SSZ, seconds cut, absent or unreadable empty', () => {
    expect(exportDate(Date.UTC(2024, 1, 29, 23, 59, 59, 999))).toBe('2024-02-29T23:59:59Z');
    expect(exportDate(null)).toBeNull();
    expect(exportDateOf('2024-03-01T10:00:00.500Z')).toBe('2024-03-01T10:00:00Z');
    expect(exportDateOf('not a date')).toBeNull();
  });
});

interface Row {
  text: string | null;
  signed: string;
  key: string;
  whole: bigint;
  frac: number;
  amount: string;
  when: string;
  ok: boolean | null;
}
const columns: Column<Row>[] = [
  { name: 'text', kind: 'text', get: (r) => r.text },
  { name: 'signed', kind: 'verbatim', get: (r) => r.signed },
  { name: 'key', kind: 'token', get: (r) => r.key },
  { name: 'whole', kind: 'int', get: (r) => r.whole },
  { name: 'frac', kind: 'int', get: (r) => r.frac },
  { name: 'amount', kind: 'decimal', get: (r) => r.amount },
  { name: 'when', kind: 'date', get: (r) => r.when },
  { name: 'ok', kind: 'bool', get: (r) => r.ok },
];
const row: Row = { text: '@SUM(1)', signed: '=signed', key: '-Abc_1', whole: 2n ** 61n, frac: 5, amount: '-1.50000000', when: '2024-01-01T00:00:00Z', ok: false };

describe('encoders', () => {
  it('CSV: BOM and header first, kinds written by their rule, null empty, CRLF', () => {
    const e = csvEncoder(columns);
    expect(e.prelude).toBe('\uFEFFtext,signed,key,whole,frac,amount,when,ok\r\n');
    expect(e.row(row)).toBe(`"'@SUM(1)",=signed,-Abc_1,${2n ** 61n},5,-1.50000000,2024-01-01T00:00:00Z,false\r\n`);
    expect(e.row({ ...row, text: null, ok: null, key: '=bad(1)' })).toBe(`,=signed,"'=bad(1)",${2n ** 61n},5,-1.50000000,2024-01-01T00:00:00Z,\r\n`);
  });

  it('CSV sentinel: one bare cell starting "#ERROR ", nothing in it needing quotes', () => {
    expect(csvEncoder(columns).failure('broke, "badly"\r\nhere')).toBe('#ERROR broke; ;badly; here\r\n');
  });

  it('NDJSON: one object per line, keys in column order, integers digit for digit beyond 2^53', () => {
    const e = ndjsonEncoder(columns);
    expect(e.prelude).toBe('');
    const line = e.row(row);
    expect(line).toBe(`{"text":"@SUM(1)","signed":"=signed","key":"-Abc_1","whole":${2n ** 61n},"frac":5,"amount":"-1.50000000","when":"2024-01-01T00:00:00Z","ok":false}\n`);
    expect(Object.keys(JSON.parse(line))).toEqual(columns.map((c) => c.name));
    expect(e.row({ ...row, text: 'a\nb "c"', ok: null })).toContain('"text":"a\\nb \\"c\\""');
    expect(e.row({ ...row, ok: null })).toContain('"ok":null');
    expect(JSON.parse(e.failure('broke'))).toEqual({ _error: 'broke', _partial: true });
  });
});

describe('file names', () => {
  it('node-<entity>[-contact-<slug>]-<wallet>-<date>.<ext>, slugs of letters, digits and single dashes', () => {
    expect(slug('  -Bob  the_Builder!! ')).toBe('bob-the-builder');
    expect(slug('---')).toBe('');
    expect(slug('x'.repeat(40))).toHaveLength(32);
    expect(slug(`${'a'.repeat(31)} b`)).toBe('a'.repeat(31));
    expect(exportFileName('payment_requests', null, 'abcd1234', '2024-05-01', 'csv')).toBe('node-payment-requests-abcd1234-2024-05-01.csv');
    expect(exportFileName('transactions', 'bob', 'abcd1234', '2024-05-01', 'json')).toBe('node-transactions-contact-bob-abcd1234-2024-05-01.ndjson');
  });
});

describe('query', () => {
  it('defaults csv and slim; values case-insensitive; dates give [start of from, start of the day after to)', () => {
    expect(parseQuery('transactions', {})).toEqual({ format: 'csv', view: 'slim' });
    expect(parseQuery('transactions', { format: 'JSON', view: 'Full', status: 'Completed', type: 'sent', from: '2024-02-28', to: '2024-02-29' })).toEqual({
      format: 'json',
      view: 'full',
      status: 'completed',
      type: 'sent',
      from: Date.UTC(2024, 1, 28),
      to: Date.UTC(2024, 2, 1),
    });
    expect(parseQuery('balances', { currency: 'Usd', contact_pubkey_hash: 'AB'.repeat(32) })).toEqual({ format: 'csv', view: 'slim', currency: 'usd', contactHash: 'ab'.repeat(32) });
  });

  it('refuses impossible dates, reversed ranges, unknown and misplaced parameters', () => {
    const code = (entity: Parameters<typeof parseQuery>[0], q: Record<string, string>) => {
      try {
        parseQuery(entity, q);
        return null;
      } catch (err) {
        return [(err as { code: string }).code, (err as { context: { field: string } }).context.field];
      }
    };
    expect(code('transactions', { from: '2023-02-29' })).toEqual(['validation_error', 'from']);
    expect(code('transactions', { to: '2024-13-01' })).toEqual(['validation_error', 'to']);
    expect(code('transactions', { from: '2024-01-02', to: '2024-01-01' })).toEqual(['validation_error', 'from']);
    expect(code('transactions', { from: '2024-01-01', to: '2024-01-01' })).toBeNull();
    expect(code('contacts', { type: 'sent' })).toEqual(['validation_error', 'type']);
    expect(code('balances', { status: 'accepted' })).toEqual(['validation_error', 'status']);
    expect(code('payment_requests', { contact_pubkey_hash: 'z'.repeat(64) })).toEqual(['invalid_hash', 'contact_pubkey_hash']);
  });
});

describe('node-cli record counting', () => {
  it('CSV: records end at line feeds outside quotes; the header is not a row; a #ERROR last line is the failure', () => {
    const c = new RecordCounter(true);
    const body = Buffer.from('\uFEFFa,b\r\n1,"two\r\nlines"\r\n2,x\r\n#ERROR broke\r\n');
    // Chunk boundaries anywhere, even inside a quoted cell.
    for (let i = 0; i < body.length; i += 3) c.add(body.subarray(i, i + 3));
    expect(c.finish()).toEqual({ rows: 2, failure: 'broke' });
    const whole = new RecordCounter(true);
    whole.add(Buffer.from('\uFEFFa,b\r\n1,2\r\n'));
    expect(whole.finish()).toEqual({ rows: 1, failure: null });
  });

  it('NDJSON: one record per line; a last line with _partial true is the failure, a record mentioning it is not', () => {
    const c = new RecordCounter(false);
    c.add(Buffer.from('{"a":1}\n{"a":2}\n{"_error":"broke","_partial":true}\n'));
    expect(c.finish()).toEqual({ rows: 2, failure: 'broke' });
    const d = new RecordCounter(false);
    d.add(Buffer.from('{"description":"\\"_partial\\" is a word"}\n'));
    expect(d.finish()).toEqual({ rows: 1, failure: null });
  });
});
