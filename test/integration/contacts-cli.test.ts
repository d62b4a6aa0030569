/**
 * node-cli `contact ...` and `dlq ...` against two real nodes, run in-process (runCli with the builtin
 * contributions, credentials from each node's cli.json): flags in any order, triplets, apply, JSON envelope.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { startTestNode, type TestNode } from '../support/node.js';

const scratch = mkdtempSync(join(tmpdir(), 'contacts-cli-'));

async function cli(t: TestNode, args: string[], rateFile = join(scratch, 'rate.json')): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    {
      argv: args,
      env: { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: rateFile },
      cwd: scratch,
      stdout: { write: (s: string) => void (stdout += s) },
      stderr: Object.assign(new PassThrough(), { write: (s: string) => ((stderr += s), true) }) as never,
      stdin: new PassThrough() as never,
    },
    { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode },
  );
  let json: any = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // human output
  }
  return { code, stdout, stderr, json };
}

/** Polls through REST (not the CLI, whose contact bucket allows 20 runs a minute). */
const rest = async (t: TestNode, path: string): Promise<any> => ((await t.admin.get(path)).body as any).data;

async function waitFor(probe: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 8000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('node-cli contact and dlq commands', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, B]) await t.admin.put('/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'] });
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('contact add with flags before and after the arguments', async () => {
    const r = await cli(A, ['contact', '--json', 'add', '--credit', '15', B.node.baseUrl, '--currency', 'VWL', 'Bob', '--fee', '0.25', '--message', 'hello from the CLI', '--requested-credit', '30']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ success: true, data: { status: 'pending', name: 'Bob', address: B.node.baseUrl }, metadata: { command: expect.any(String) } });
    const bad = await cli(A, ['contact', 'add', B.node.baseUrl, 'Bob2', '--enforce-requested-credit', '-j']);
    expect(bad.code).toBe(1);
    expect(bad.json.error.code).toBe('INVALID_PARAMS');
    await waitFor(async () => (await rest(B, '/api/v1/contacts/pending')).counts.incoming === 1, 'request on B');
    const pending = await cli(B, ['contact', 'pending']);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain('Incoming (1)');
    expect(pending.stdout).toContain('VWL');
    expect(pending.stdout).toContain('hello from the CLI');
  });

  it('contact accept with a triplet, then view, list, ping and update', async () => {
    const hashA = A.node.identity.pubkeyHash;
    const mismatch = await cli(B, ['contact', 'accept', hashA, '--currency', 'VWL', '--fee', '1', '-j']);
    expect(mismatch.json.error.code).toBe('INVALID_PARAMS');
    const r = await cli(B, ['contact', 'accept', '--currency', 'VWL', hashA, '--fee', '1', '--credit', '30', '--name', 'Alice', '-j']);
    expect(r.code).toBe(0);
    expect(r.json.data).toMatchObject({ accepted: ['VWL'], declined: [], errors: [] });
    await waitFor(async () => (await rest(A, '/api/v1/contacts/Bob')).contact.status === 'accepted', 'accepted on A');
    const view = await cli(A, ['contact', 'view', 'Bob']);
    expect(view.stdout).toContain('accepted');
    expect(view.stdout).toContain('30');
    const list = await cli(A, ['contact', 'list', '-j']);
    expect(list.json.data.contacts.map((c: any) => c.name)).toEqual(['Bob']);
    const ping = await cli(A, ['contact', 'ping', 'Bob', '-j']);
    expect(ping.json.data).toMatchObject({ online_status: 'online', chain_valid: true, my_available_credit: { VWL: '30' } });
    const upd = await cli(A, ['contact', 'update', '--fee', '2', 'Bob', '--currency', 'VWL', '-j']);
    expect(upd.json.data.updated).toMatchObject({ fee_percent: 2, currency: 'VWL' });
    const noCurrency = await cli(A, ['contact', 'update', 'Bob', '--fee', '2', '-j']);
    expect(noCurrency.json.error.code).toBe('INVALID_PARAMS');
    const missing = await cli(A, ['contact', 'view', 'Nobody', '-j']);
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('CONTACT_NOT_FOUND');
  });

  it('contact currency add, then apply with --from on the other side', async () => {
    // Document 2: `add <contact> <currency> --fee F --credit C`, both flags required (unlike `contact add`).
    const bare = await cli(A, ['contact', 'currency', 'add', 'Bob', 'USD', '--credit', '5', '-j']);
    expect([bare.code, bare.json.error.code]).toEqual([1, 'INVALID_PARAMS']);
    expect(bare.json.error.message).toContain('--fee');
    expect((await rest(A, `/api/v1/contacts/${B.node.identity.pubkeyHash}/currencies`)).currencies.map((r: any) => r.currency)).toEqual(['VWL']);
    const add = await cli(A, ['contact', 'currency', 'add', 'Bob', 'USD', '--fee', '0', '--credit', '5', '-j']);
    expect(add.json.data).toMatchObject({ currency: 'USD' });
    await waitFor(async () => (await rest(B, '/api/v1/contacts/pending')).counts.incoming === 1, 'USD request on B');
    const file = join(scratch, 'decisions.json');
    writeFileSync(file, JSON.stringify([{ currency: 'USD', action: 'accept', fee: 0.5, credit: '8' }]));
    const apply = await cli(B, ['contact', 'apply', 'Alice', '--from', file, '-j']);
    expect(apply.json.data).toMatchObject({ accepted: ['USD'] });
    await waitFor(async () => {
      const rows = (await rest(A, `/api/v1/contacts/${B.node.identity.pubkeyHash}/currencies`)).currencies;
      return rows.some((r: any) => r.currency === 'USD' && r.status === 'accepted' && r.my_available_credit === '8');
    }, 'USD accepted on A');
    const dup = await cli(A, ['contact', 'add', B.node.baseUrl, 'Bob', '--currency', 'USD', '-j']);
    expect(dup.json.error.code).toBe('CONTACT_EXISTS');
  });

  it('dlq list on an empty queue, and argument errors', async () => {
    const list = await cli(A, ['dlq', '-j']);
    expect(list.code).toBe(0);
    expect(list.json.data).toMatchObject({ items: [], count: 0, pending_count: 0 });
    const human = await cli(A, ['dlq', 'list', '--status', 'all']);
    expect(human.stdout).toContain('The dead letter queue is empty.');
    const bad = await cli(A, ['dlq', 'retry', 'x', '-j']);
    expect(bad.json.error.code).toBe('INVALID_PARAMS');
    const missing = await cli(A, ['dlq', 'abandon', '424242', '-j']);
    expect(missing.json.error.code).toBe('dlq_item_not_found');
  });

  it('every contact subcommand counts against the contact bucket: 20 per minute', async () => {
    const own = join(scratch, 'rate-bucket.json');
    for (let i = 0; i < 20; i++) expect((await cli(A, ['contact', 'list', '-j'], own)).code).toBe(0);
    const over = await cli(A, ['contact', 'pending', '-j'], own);
    expect(over.code).toBe(1);
    expect(over.json.error.code).toBe('RATE_LIMITED');
    // Other buckets are not affected.
    expect((await cli(A, ['dlq', '-j'], own)).code).toBe(0);
  });

  it('block, unblock and delete', async () => {
    expect((await cli(B, ['contact', 'block', 'Alice', '-j'])).json.data.message).toContain('blocked');
    expect((await cli(B, ['contact', 'list', '--status', 'blocked', '-j'])).json.data.count).toBe(1);
    expect((await cli(B, ['contact', 'unblock', 'Alice', '-j'])).json.data.status).toBe('accepted');
    const search = await cli(B, ['contact', 'search', 'ali', '-j']);
    expect(search.json.data.count).toBe(1);
    expect((await cli(B, ['contact', 'delete', 'Alice', '-j'])).code).toBe(0);
    expect((await cli(B, ['contact', 'list', '--status', 'all', '-j'])).json.data.count).toBe(0);
  });

  it('contact list shows every contact, past the REST page size', async () => {
    // More contacts than one page holds (100), written straight into the node's database: no peers needed.
    const db = new Database(join(A.dataDir, 'node.db'));
    try {
      const now = new Date().toISOString();
      const insert = db.prepare("INSERT INTO contacts (name, status, created_at, updated_at) VALUES (?, 'blocked', ?, ?)");
      for (let i = 0; i < 105; i++) insert.run(`Paged ${String(i).padStart(3, '0')}`, now, now);
    } finally {
      db.close();
    }
    const run = await cli(A, ['contact', 'list', '--status', 'blocked', '-j'], join(scratch, 'rate-paged.json'));
    expect(run.code).toBe(0);
    expect(run.json.data.count).toBe(105);
    expect(new Set(run.json.data.contacts.map((c: { name: string }) => c.name)).size).toBe(105);
    // And a search that matches them all finds them all, past its page too.
    const search = await cli(A, ['contact', 'search', 'Paged', '-j'], join(scratch, 'rate-paged.json'));
    expect(search.code).toBe(0);
    expect([search.json.data.search_term, search.json.data.count]).toEqual(['Paged', 105]);
  });
});
