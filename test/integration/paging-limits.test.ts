/**
 * Paging bounds on every list route of the REST API: `limit` and `offset` far beyond any list (a 64-bit maximum,
 * 1e30, a value a double cannot hold) answer 400 validation_error, never a 500 from the database; the largest
 * accepted offset answers an empty page. And GET /payback-methods pages like every Document 1 listing (default 50,
 * cap 100), with node-cli `payback list` still showing every method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { call, ok } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';

/** Each list route with what its rows are called, and a query it needs besides paging. */
const LISTS: { path: string; rows: string; query?: Record<string, string> }[] = [
  { path: '/api/v1/wallet/transactions', rows: 'transactions' },
  { path: '/api/v1/contacts', rows: 'contacts' },
  { path: '/api/v1/contacts/search', rows: 'contacts', query: { q: 'someone' } },
  { path: '/api/v1/requests', rows: 'incoming' },
  { path: '/api/v1/keys', rows: 'keys' },
  { path: '/api/v1/plugins', rows: 'plugins' },
  { path: '/api/v1/payback-methods', rows: 'methods' },
];

/** Far beyond any list; the last one reads as 9007199254740992 in a double, one past the largest exact integer. */
const OUT_OF_RANGE: Record<string, string>[] = [
  { offset: '9223372036854775807' },
  { offset: '9007199254740993' },
  { offset: '1e30' },
  { limit: '1e30' },
  { limit: '9223372036854775807' },
];

describe('paging bounds', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it.each(LISTS)('GET $path: out-of-range paging → 400 validation_error; the largest offset is an empty page', async ({ path, rows, query }) => {
    for (const paging of OUT_OF_RANGE) {
      const res = await call(t, 'GET', path, undefined, { ...query, ...paging });
      expect(res.status, JSON.stringify(paging)).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'validation_error', field: Object.keys(paging)[0] } });
    }
    const data = await ok(t, 'GET', path, undefined, { ...query, offset: '9007199254740991', limit: '1000000' });
    expect(data[rows]).toEqual([]);
  });

  it('bounds the overview transaction_limit the same way', async () => {
    const res = await call(t, 'GET', '/api/v1/wallet/overview', undefined, { transaction_limit: '1e30' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', field: 'transaction_limit' });
    expect((await ok(t, 'GET', '/api/v1/wallet/overview', undefined, { transaction_limit: '1000000' })).recent_transactions).toEqual([]);
  });
});

/** The method ids `node-cli payback list --json` prints, run in-process against the node. */
async function cliList(t: TestNode): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'paging-cli-'));
  try {
    let stdout = '';
    const code = await runCli(
      {
        argv: ['payback', 'list', '--json'],
        env: { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: join(scratch, 'rate.json') },
        cwd: scratch,
        stdout: { write: (s: string) => void (stdout += s) },
        stderr: Object.assign(new PassThrough(), { isTTY: false }) as never,
        stdin: Object.assign(new PassThrough(), { isTTY: false }) as never,
      },
      { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode },
    );
    expect(code).toBe(0);
    return (JSON.parse(stdout).data.methods as { method_id: string }[]).map((m) => m.method_id);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe('GET /payback-methods paging', () => {
  const BASE = '/api/v1/payback-methods';
  const COUNT = 52;
  let t: TestNode;
  let ids: string[];
  beforeAll(async () => {
    t = await startTestNode();
    // priority i orders the list: the method with priority 0 first
    ids = [];
    for (let i = 0; i < COUNT; i++) {
      const body = { type: 'custom', label: `Method ${i}`, currency: 'EUR', priority: i, fields: { rows: [{ key: 'Bank', value: `account ${i}` }] } };
      ids.push((await ok(t, 'POST', BASE, body)).method_id);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.destroy();
  });

  const idsOf = (data: { methods: { method_id: string }[] }): string[] => data.methods.map((m) => m.method_id);

  it('answers 50 by default, with the total; node-cli payback list still shows them all', async () => {
    const data = await ok(t, 'GET', BASE);
    expect(idsOf(data)).toEqual(ids.slice(0, 50));
    expect(data).toMatchObject({ count: 50, total: COUNT, limit: 50, offset: 0 });
    expect(await cliList(t)).toEqual(ids);
  });

  it('honours limit and offset', async () => {
    const data = await ok(t, 'GET', BASE, undefined, { limit: 3, offset: 10 });
    expect(idsOf(data)).toEqual(ids.slice(10, 13));
    expect(data).toMatchObject({ count: 3, total: COUNT, limit: 3, offset: 10 });
    const tail = await ok(t, 'GET', BASE, undefined, { limit: 10, offset: 50 });
    expect(idsOf(tail)).toEqual(ids.slice(50));
  });

  it('cuts limit to 100', async () => {
    const data = await ok(t, 'GET', BASE, undefined, { limit: 500 });
    expect(data).toMatchObject({ count: COUNT, total: COUNT, limit: 100 });
  });

  it('pages after the currency filter', async () => {
    await ok(t, 'POST', BASE, { type: 'custom', label: 'Dollars', currency: 'USD', priority: 0, fields: { rows: [{ key: 'Bank', value: 'usd' }] } });
    const data = await ok(t, 'GET', BASE, undefined, { currency: 'usd', limit: 5 });
    expect(data.methods.map((m: { label: string }) => m.label)).toEqual(['Dollars']);
    expect(data).toMatchObject({ count: 1, total: 1 });
  });

  it('refuses a limit below 1 or a negative offset', async () => {
    for (const q of [{ limit: '0' }, { offset: '-1' }, { limit: 'ten' }] as Record<string, string>[]) {
      const res = await call(t, 'GET', BASE, undefined, q);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});
