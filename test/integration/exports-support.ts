/**
 * Helpers of the export tests: the raw bytes of an export (the BOM included, which `Response.text()` would drop),
 * and the two readers Document 1's formats must satisfy outside our own code: Python's `csv` module and `jq`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import type { TestNode } from '../support/node.js';

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The body as UTF-8 text, a leading BOM kept. */
  text: string;
}

export async function download(t: TestNode, entity: string, query: Record<string, string> = {}): Promise<Download> {
  const res = await t.admin.open('GET', `/api/v1/export/${entity}`, { query });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

/** Runs a reader on the bytes written to a temporary file; returns its standard output. */
function withFile<T>(bytes: Buffer, run: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'export-test-'));
  const file = join(dir, 'export');
  try {
    writeFileSync(file, bytes);
    return run(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PYTHON_CSV = `
import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8-sig') as f:
    print(json.dumps(list(csv.reader(f, strict=True))))
`;

/** Every record as Python's csv module (the excel dialect, strict) reads it, header first. */
export function pythonCsv(bytes: Buffer): string[][] {
  return withFile(bytes, (file) => JSON.parse(execFileSync('python3', ['-c', PYTHON_CSV, file], { encoding: 'utf8' })) as string[][]);
}

/** CSV records as objects keyed by the header (as Python read them). */
export function csvObjects(bytes: Buffer): Record<string, string>[] {
  const [header, ...rows] = pythonCsv(bytes);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** Every line through jq (which fails on any line that is not one JSON value), compacted, one per line. */
export function jqLines(bytes: Buffer): string[] {
  if (bytes.length === 0) return [];
  return withFile(bytes, (file) => execFileSync('jq', ['-c', '.', file], { encoding: 'utf8' }))
    .split('\n')
    .filter((l) => l !== '');
}

/** Every NDJSON line through JSON.parse, one by one; the body must end with a line feed. */
export function ndjson(text: string): Record<string, unknown>[] {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('NDJSON body does not end with a line feed');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What a CSV cell of someone's text holds: a formula-looking text gets the single quote (OWASP). */
export const csvText = (text: string | null): string => (text === null ? '' : /^[=+\-@\t\r\n\0]/.test(text) ? `'${text}` : text);

/** `YYYY-MM-DDTHH:MM:SSZ` of an ISO 8601 or `YYYY-MM-DD HH:MM:SS` (UTC) time of a listing. */
export const exportDate = (time: string | null): string | null => (time === null ? null : `${time.replace(' ', 'T').slice(0, 19)}Z`);

/** The three amount columns of a trimmed decimal string: 8 decimals, whole (floor) and fraction (never negative). */
export function amountParts(value: string): { decimal: string; whole: string; frac: string } {
  const d = new Decimal(value);
  const whole = d.floor();
  return { decimal: d.toFixed(8), whole: whole.toFixed(0), frac: d.minus(whole).times(1e8).toFixed(0) };
}

/** A description as the export shows it: control, format and separator characters removed. */
export const displayed = (text: string | null): string | null => (text === null ? null : text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ''));
