/**
 * The two export formats of Document 1, cell by cell and line by line.
 *
 * CSV: UTF-8 with a byte-order mark, a header row, RFC 4180 quoting, CRLF; text cells neutralised against formula
 * injection (sdk/csv.ts), signed content verbatim, numbers as they are. NDJSON: one JSON object per line with the
 * same keys in the same order; integers as JSON numbers written digit for digit (a whole part may pass 2^53: the
 * `_decimal` string holds the exact value for parsers that read numbers as doubles), absent values as null.
 */
import { CSV_BOM, CSV_EOL, csvRow, csvText, csvVerbatim } from '../../sdk/csv.js';
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const CSV_CELL = {
    text: (v) => csvText(String(v)),
    verbatim: (v) => csvVerbatim(String(v)),
    token: (v) => (BASE64URL.test(String(v)) ? String(v) : csvText(String(v))),
    int: String,
    decimal: String,
    date: String,
    bool: (v) => (v ? 'true' : 'false'),
};
const JSON_VALUE = {
    text: (v) => JSON.stringify(String(v)),
    verbatim: (v) => JSON.stringify(String(v)),
    token: (v) => JSON.stringify(String(v)),
    int: String,
    decimal: (v) => JSON.stringify(String(v)),
    date: (v) => JSON.stringify(String(v)),
    bool: (v) => (v ? 'true' : 'false'),
};
/** The CSV sentinel row is one unquoted cell starting `#ERROR `: nothing in it may need quoting. */
const sentinelText = (message) => message.replace(/[\r\n]+/g, ' ').replace(/[",]/g, ';');
export function csvEncoder(columns) {
    const write = columns.map((c) => CSV_CELL[c.kind]);
    const n = columns.length;
    return {
        prelude: CSV_BOM + csvRow(columns.map((c) => c.name)),
        row(r) {
            let line = '';
            for (let i = 0; i < n; i++) {
                const v = columns[i].get(r);
                if (i > 0)
                    line += ',';
                if (v !== null)
                    line += write[i](v);
            }
            return line + CSV_EOL;
        },
        failure: (message) => `#ERROR ${sentinelText(message)}${CSV_EOL}`,
    };
}
export function ndjsonEncoder(columns) {
    const keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
    const write = columns.map((c) => JSON_VALUE[c.kind]);
    const n = columns.length;
    return {
        prelude: '',
        row(r) {
            let line = '';
            for (let i = 0; i < n; i++) {
                const v = columns[i].get(r);
                line += keys[i] + (v === null ? 'null' : write[i](v));
            }
            return `${line}}\n`;
        },
        failure: (message) => `${JSON.stringify({ _error: message, _partial: true })}\n`,
    };
}
//# sourceMappingURL=encode.js.map