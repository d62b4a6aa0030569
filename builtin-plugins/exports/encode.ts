/**
 * The two export formats of Document 1, cell by cell and line by line.
 *
 * CSV: UTF-8 with a byte-order mark, a header row, RFC 4180 quoting, CRLF; text cells neutralised against formula
 * injection (sdk/csv.ts), signed content verbatim, numbers as they are. NDJSON: one JSON object per line with the
 * same keys in the same order; integers as JSON numbers written digit for digit (a whole part may pass 2^53: the
 * `_decimal` string holds the exact value for parsers that read numbers as doubles), absent values as null.
 */
import { CSV_BOM, CSV_EOL, csvRow, csvText, csvVerbatim } from '../../sdk/csv.js';

/**
 * How a column's values are written. `text`: someone's words, neutralised in CSV. `verbatim`: signed bytes, only
 * quoted. `token`: a key or signature in base64url, which may start with "-" and must stay exact: written as it is
 * while it is base64url (that alphabet cannot spell a function call), neutralised like text otherwise. `int`,
 * `decimal`, `date`, `bool`: values the exporter formatted itself.
 */
export type Kind = 'text' | 'verbatim' | 'token' | 'int' | 'decimal' | 'date' | 'bool';

const BASE64URL = /^[A-Za-z0-9_-]*$/;
export type Cell = string | number | bigint | boolean | null;

export interface Column<R> {
  name: string;
  kind: Kind;
  get(row: R): Cell;
}

export interface Encoder<R> {
  /** What comes before the first row (CSV: the byte-order mark and the header). */
  readonly prelude: string;
  row(row: R): string;
  /** The last line of an export that broke off (Document 1, mid-stream error contract). */
  failure(message: string): string;
}

const CSV_CELL: Record<Kind, (v: Exclude<Cell, null>) => string> = {
  text: (v) => csvText(String(v)),
  verbatim: (v) => csvVerbatim(String(v)),
  token: (v) => (BASE64URL.test(String(v)) ? String(v) : csvText(String(v))),
  int: String,
  decimal: String,
  date: String,
  bool: (v) => (v ? 'true' : 'false'),
};

const JSON_VALUE: Record<Kind, (v: Exclude<Cell, null>) => string> = {
  text: (v) => JSON.stringify(String(v)),
  verbatim: (v) => JSON.stringify(String(v)),
  token: (v) => JSON.stringify(String(v)),
  int: String,
  decimal: (v) => JSON.stringify(String(v)),
  date: (v) => JSON.stringify(String(v)),
  bool: (v) => (v ? 'true' : 'false'),
};

/** The CSV sentinel row is one unquoted cell starting `#ERROR `: nothing in it may need quoting. */
const sentinelText = (message: string): string => message.replace(/[\r\n]+/g, ' ').replace(/[",]/g, ';');

export function csvEncoder<R>(columns: readonly Column<R>[]): Encoder<R> {
  const write = columns.map((c) => CSV_CELL[c.kind]);
  const n = columns.length;
  return {
    prelude: CSV_BOM + csvRow(columns.map((c) => c.name)),
    row(r) {
      let line = '';
      for (let i = 0; i < n; i++) {
        const v = columns[i]!.get(r);
        if (i > 0) line += ',';
        if (v !== null) line += write[i]!(v);
      }
      return line + CSV_EOL;
    },
    failure: (message) => `#ERROR ${sentinelText(message)}${CSV_EOL}`,
  };
}

export function ndjsonEncoder<R>(columns: readonly Column<R>[]): Encoder<R> {
  const keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
  const write = columns.map((c) => JSON_VALUE[c.kind]);
  const n = columns.length;
  return {
    prelude: '',
    row(r) {
      let line = '';
      for (let i = 0; i < n; i++) {
        const v = columns[i]!.get(r);
        line += keys[i]! + (v === null ? 'null' : write[i]!(v));
      }
      return `${line}}\n`;
    },
    failure: (message) => `${JSON.stringify({ _error: message, _partial: true })}\n`,
  };
}
