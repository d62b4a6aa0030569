/**
 * CSV cells as RFC 4180 writes them and as spreadsheets read them: cells separated by commas, a cell quoted when it
 * holds a comma, a double quote, CR or LF (inner quotes doubled), rows ended by CRLF. A file starts with a UTF-8
 * byte-order mark (`CSV_BOM`) so that spreadsheet programs take the text as UTF-8 rather than a local code page.
 *
 * Formula injection (OWASP "CSV Injection", ASVS 1.2.10): a spreadsheet runs a cell that starts with `=`, `+`, `-`
 * or `@` as a formula, and some also when a tab, a carriage return, a line feed or a NUL comes first. Spreadsheets
 * also trim leading spaces and invisible characters (zero-width space and joiners, word joiner, a stray BOM) and fold
 * the full-width forms `＝＋－＠` to their ASCII twins, so a starter behind those counts as well. Text that
 * someone else wrote (descriptions, names, addresses) goes through `csvText`, which puts a single quote before such a
 * cell and quotes it: the spreadsheet shows the text, quote-prefixed, and runs nothing. Two kinds of cells are not
 * text and do not go through it:
 * - numbers the exporter formatted itself (amounts, counts): `-5` must stay the number -5;
 * - signed data whose bytes must stay verifiable (`csvVerbatim`): quoted per RFC 4180 only, so a cell that starts
 *   with `=` still does. Whoever opens such a column in a spreadsheet takes that risk (docs/api/exports.md).
 */

export const CSV_BOM = '\uFEFF';
export const CSV_EOL = '\r\n';

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;
/** What a spreadsheet skips before it looks for a formula: whitespace and zero-width characters. */
const LEADING = '[\\s\\u200B-\\u200D\\u2060\\uFEFF\\0]';
/** A formula starter, ASCII or full-width. */
const STARTER = '[=+\\-@\\uFF1D\\uFF0B\\uFF0D\\uFF20]';
/** The first characters after which a spreadsheet may evaluate the cell. */
const FORMULA_START = new RegExp(`^(?:[\\t\\r\\n\\0]|${LEADING}*${STARTER})`);

/** Whether a spreadsheet could take this text as a formula. */
export function looksLikeFormula(text: string): boolean {
  return FORMULA_START.test(text);
}

/** A cell holding exactly `text` (RFC 4180 quoting only). */
export function csvVerbatim(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** Whether a text cell needs anything done: one scan for the common case of plain text. */
const SPECIAL = new RegExp(`${FORMULA_START.source}|[",\\r\\n]`);

/** A cell of text someone else wrote: quoted as RFC 4180 requires, and neutralised when it could run as a formula. */
export function csvText(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return FORMULA_START.test(text) ? `"'${text.replace(QUOTE, '""')}"` : `"${text.replace(QUOTE, '""')}"`;
}

/** One row from cells already made with `csvText`, `csvVerbatim` or a formatted number. */
export function csvRow(cells: readonly string[]): string {
  return cells.join(',') + CSV_EOL;
}
