/**
 * The mid-stream error contract of Document 1: an export whose source fails after it began streaming ends with the
 * sentinel (a `#ERROR ` row in CSV, an `_error`/`_partial` line in NDJSON) after the rows it did write, and node-cli
 * exits 1 with it. The fault is real: one transaction of the node's own database is corrupted through a second
 * connection (its amount is no longer an integer), as a damaged record would be; the ledger refuses to write it out.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, nodeCli, ok, send, settledAll } from './ledger-support.js';
import { csvObjects, download, jqLines, ndjson, pythonCsv } from './exports-support.js';

const SENTINEL = /^export interrupted after 4 rows by an internal error \(request (req_[0-9a-f]{16})\); this file is incomplete$/;

/** Runs SQL on a node's database through a second connection, as an operator's sqlite3 shell would. */
function onDatabase<T>(t: TestNode, run: (db: Database.Database) => T): T {
  const db = new Database(join(t.dataDir, 'node.db'));
  try {
    db.pragma('busy_timeout = 5000');
    return run(db);
  } finally {
    db.close();
  }
}

const corruptRow = (t: TestNode, offset: number): void =>
  onDatabase(t, (db) => {
    const { seq } = db.prepare('SELECT seq FROM ledger_tx ORDER BY seq LIMIT 1 OFFSET ?').get(offset) as { seq: number };
    db.prepare(`UPDATE ledger_tx SET amount_whole = 'corrupt' WHERE seq = ?`).run(seq);
  });

describe('exports: a source that fails after the first rows', () => {
  let A: TestNode;
  let B: TestNode;
  let before: Record<string, string>[];
  let beforeJson: Record<string, unknown>[];
  const dir = mkdtempSync(join(tmpdir(), 'export-failure-'));

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B);
    const txids: string[] = [];
    for (let i = 1; i <= 6; i++) txids.push(await send(A, 'Bob', String(i), 'VWL', `payment ${i}`));
    await settledAll(A, txids, B);
    before = csvObjects((await download(A, 'transactions')).bytes);
    beforeJson = ndjson((await download(A, 'transactions', { format: 'json', view: 'full' })).text);
    expect(before).toHaveLength(6);
    corruptRow(A, 4);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('CSV: status 200, the four rows before the fault, then one #ERROR row; the cause is in the log', async () => {
    const res = await download(A, 'transactions');
    expect(res.status).toBe(200);
    const records = pythonCsv(res.bytes);
    expect(records).toHaveLength(1 + 4 + 1);
    expect(csvObjects(res.bytes).slice(0, 4)).toEqual(before.slice(0, 4));
    const last = records.at(-1)!;
    expect(last).toHaveLength(1);
    expect(last[0]!.startsWith('#ERROR ')).toBe(true);
    const requestId = last[0]!.slice('#ERROR '.length).match(SENTINEL)![1];
    expect(requestId).toBe(res.headers.get('x-request-id'));
    expect(res.text.endsWith(`${last[0]}\r\n`)).toBe(true);
    const log = readFileSync(join(A.dataDir, 'node.log'), 'utf8');
    expect(log).toMatch(new RegExp(`ERROR \\[exports\\] an export broke off \\{"request_id":"${requestId}","entity":"transactions","rows_written":4,"error":"Error: ledger_tx row \\d+ \\(live\\): the amount is not a whole and fraction pair`));
  });

  it('NDJSON: four lines, then a line with _error and _partial true; every line parses (jq, JSON.parse)', async () => {
    const res = await download(A, 'transactions', { format: 'json', view: 'full' });
    expect(res.status).toBe(200);
    const lines = ndjson(res.text);
    expect(jqLines(res.bytes)).toHaveLength(5);
    expect(lines.slice(0, 4)).toEqual(beforeJson.slice(0, 4));
    expect(Object.keys(lines[4]!)).toEqual(['_error', '_partial']);
    expect(lines[4]!._partial).toBe(true);
    expect(lines[4]!._error).toMatch(SENTINEL);
  });

  it('node-cli export: exit 1 with the sentinel; the file keeps the rows and ends with it', async () => {
    const file = join(dir, 'tx.csv');
    const { code, body } = await nodeCli(A, ['export', 'transactions', '-o', file]);
    expect(code).toBe(1);
    expect(body.success).toBe(false);
    expect(body.error).toMatchObject({ code: 'EXPORT_INCOMPLETE', file, rows: 4 });
    expect(body.error.sentinel).toMatch(SENTINEL);
    expect(body.error.message).toContain('export interrupted after 4 rows');
    const records = pythonCsv(readFileSync(file));
    expect(records).toHaveLength(6);
    expect(records.at(-1)![0]).toMatch(/^#ERROR export interrupted after 4 rows/);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const json = join(dir, 'tx.ndjson');
    const failed = await nodeCli(A, ['export', 'transactions', '--format', 'json', '-o', json]);
    expect(failed.code).toBe(1);
    expect(failed.body.error).toMatchObject({ code: 'EXPORT_INCOMPLETE', rows: 4 });
    expect(ndjson(readFileSync(json, 'utf8')).at(-1)).toMatchObject({ _partial: true });
  });

  it('a filter that leaves the damaged row out streams whole; one that meets it at once answers 500 before any byte', async () => {
    const bob = before[0]!.counterparty_pubkey_hash!;
    const whole = await download(A, 'transactions', { contact_pubkey_hash: bob, to: '2000-01-01' });
    expect(whole.status).toBe(200);
    expect(pythonCsv(whole.bytes)).toHaveLength(1);
    corruptRow(A, 0);
    const res = await call(A, 'GET', '/api/v1/export/transactions');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, error: { code: 'internal_error', message: 'The export could not be read' } });
    const log = readFileSync(join(A.dataDir, 'node.log'), 'utf8');
    expect(log).toMatch(/ERROR \[exports\] an export could not start \{"request_id":"req_[0-9a-f]{16}","entity":"transactions"/);
    // The other exports do not read transactions: they still work.
    expect((await download(A, 'contacts')).status).toBe(200);
    await ok(A, 'GET', '/api/v1/system/status');
  });
});
