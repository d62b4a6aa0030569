/**
 * node-cli export (Document 2): the file it writes is the node's export byte for byte, for every entity, format,
 * view and filter flag; --contact takes a name; flags that do not apply are refused; the default file name is the
 * one the node suggests; the file is private to its owner.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, nodeCli, send, settledAll } from './ledger-support.js';
import { download, pythonCsv } from './exports-support.js';

describe('node-cli export', () => {
  let A: TestNode;
  let B: TestNode;
  const dir = mkdtempSync(join(tmpdir(), 'export-cli-'));

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B);
    const txids = [await send(A, 'Bob', '3', 'VWL', '=2*3'), await send(A, 'Bob', '1.5'), await send(B, 'Alice', '0.25', 'VWL', 'back')];
    await settledAll(A, txids.slice(0, 2), B);
    await settledAll(B, txids.slice(2), A);
    const res = await call(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '2', currency: 'VWL', description: 'tea' });
    expect(res.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, string[], Record<string, string>][] = [
    ['transactions', [], {}],
    ['transactions', ['--format', 'json', '--view', 'full'], { format: 'json', view: 'full' }],
    ['transactions', ['--contact', 'Bob', '--type', 'sent', '--status', 'completed'], { type: 'sent', status: 'completed' }],
    ['payment_requests', ['--direction', 'outgoing', '--view', 'full'], { direction: 'outgoing', view: 'full' }],
    ['contacts', ['--status', 'accepted', '--format', 'json'], { status: 'accepted', format: 'json' }],
    ['balances', ['--currency', 'vwl', '--view', 'full'], { currency: 'vwl', view: 'full' }],
  ];

  it.each(cases)('%s %j: the file is the REST export byte for byte', async (entity, flags, query) => {
    const file = join(dir, `${entity}-${flags.join('')}`);
    const { code, body } = await nodeCli(A, ['export', entity, ...flags, '-o', file]);
    expect(code).toBe(0);
    const rest = await download(A, entity, { ...query, ...(flags.includes('--contact') ? { contact_pubkey_hash: hashOf(B) } : {}) });
    const written = readFileSync(file);
    expect(written.equals(rest.bytes)).toBe(true);
    const json = query.format === 'json';
    const rows = json ? rest.text.split('\n').filter(Boolean).length : pythonCsv(rest.bytes).length - 1;
    expect(rows).toBeGreaterThan(0);
    expect(body.data).toEqual({ entity, format: json ? 'json' : 'csv', view: query.view ?? 'slim', file, rows, bytes: written.length, complete: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the filters reach the node: --from and --to, a contact by name', async () => {
    const file = join(dir, 'later.csv');
    expect((await nodeCli(A, ['export', 'transactions', '--from', '2999-01-01', '-o', file])).body.data.rows).toBe(0);
    expect(pythonCsv(readFileSync(file))).toHaveLength(1);
    const day = (await download(A, 'transactions', { format: 'json' })).text.match(/"date_utc":"(\d{4}-\d{2}-\d{2})/)![1]!;
    expect((await nodeCli(A, ['export', 'transactions', '--from', day, '--to', day, '--contact', 'Bob', '-o', file])).body.data.rows).toBe(3);
  });

  it('refusals: an unknown entity, a flag that does not apply, an unknown contact, a value the node refuses', async () => {
    const file = join(dir, 'refused.csv');
    const unknown = await nodeCli(A, ['export', 'widgets', '-o', file]);
    expect([unknown.code, unknown.body.error.code]).toEqual([1, 'INVALID_PARAMS']);
    const misplaced = await nodeCli(A, ['export', 'contacts', '--type', 'sent', '-o', file]);
    expect([misplaced.code, misplaced.body.error.code]).toEqual([1, 'INVALID_PARAMS']);
    expect(misplaced.body.error.message).toBe('--type does not apply to contacts (it takes --status)');
    const nobody = await nodeCli(A, ['export', 'balances', '--contact', 'Nobody', '-o', file]);
    expect([nobody.code, nobody.body.error.code]).toEqual([1, 'CONTACT_NOT_FOUND']);
    const format = await nodeCli(A, ['export', 'transactions', '--format', 'xml', '-o', file]);
    expect([format.code, format.body.error.code, format.body.error.status, format.body.error.field]).toEqual([1, 'validation_error', 400, 'format']);
    expect(readdirSync(dir)).not.toContain('refused.csv');
    const nowhere = await nodeCli(A, ['export', 'contacts', '-o', join(dir, 'missing', 'contacts.csv')]);
    expect([nowhere.code, nowhere.body.error.code]).toEqual([1, 'INVALID_PARAMS']);
    expect(nowhere.body.error.message).toMatch(/^cannot write .*missing\/contacts\.csv: ENOENT/);
  });

  it('without -o: the name the node suggests, in the current directory', async () => {
    const here = mkdtempSync(join(dir, 'cwd-'));
    const previous = process.cwd();
    process.chdir(here);
    try {
      const { code, body } = await nodeCli(A, ['export', 'payment_requests', '--format', 'json']);
      expect(code).toBe(0);
      const [name] = readdirSync(here);
      expect(name).toMatch(new RegExp(`^node-payment-requests-${hashOf(A).slice(0, 8)}-\\d{4}-\\d{2}-\\d{2}\\.ndjson$`));
      expect(body.data.file).toBe(join(here, name!));
    } finally {
      process.chdir(previous);
    }
  });
});
