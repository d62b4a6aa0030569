/**
 * node-cli `payback ...` against real nodes, run in-process (runCli with the builtin contributions, credentials
 * from each node's cli.json): add with --field/--row/--fields-json (inline and @file) and with prompts, list, view, reveal, update,
 * share-policy, delete, payload, types, and fetch/contact between two accepted contacts; human and --json output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { startTestNode, type TestNode } from '../support/node.js';

const scratch = mkdtempSync(join(tmpdir(), 'payback-cli-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

async function cli(t: TestNode, args: string[], options: { input?: string; tty?: boolean } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  if (options.input !== undefined) stdin.end(options.input);
  const errStream = Object.assign(new PassThrough(), { isTTY: options.tty ?? false, write: (s: string) => ((stderr += s), true) });
  const code = await runCli(
    {
      argv: args,
      env: { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: join(scratch, `rate-${t.node.port}.json`) },
      cwd: scratch,
      stdout: { write: (s: string) => void (stdout += s) },
      stderr: errStream as never,
      stdin: stdin as never,
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

async function ok(t: TestNode, args: string[], options?: { input?: string; tty?: boolean }): Promise<Run> {
  const run = await cli(t, args, options);
  if (run.code !== 0) throw new Error(`node-cli ${args.join(' ')} → ${run.code}\n${run.stdout}\n${run.stderr}`);
  return run;
}

async function waitFor<T>(probe: () => Promise<T>, accept: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 8000;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await probe();
  }
  return last;
}

const IBAN = 'DE89370400440532013000';
const BTC = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';

describe('node-cli payback commands', () => {
  let A: TestNode;
  let B: TestNode;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('types lists the rails', async () => {
    const run = await ok(A, ['payback', 'types', '--json']);
    // Document 2's command-line JSON envelope.
    expect(Object.keys(run.json)).toEqual(['success', 'data', 'metadata']);
    expect(run.json.success).toBe(true);
    expect(run.json.metadata).toMatchObject({ timestamp: expect.any(String), node_id: A.node.identity.pubkeyHash, command: expect.stringContaining('payback') });
    expect(run.json.data.count).toBe(29);
    expect(run.json.data.types.map((t: any) => t.id)).toContain('mercado_pago');
    const human = await ok(A, ['payback', 'types']);
    expect(human.stdout).toContain('Payback rails: 29');
    expect(human.stdout).toMatch(/bank_wire\s+Bank transfer/);
  });

  it('add takes fields from --field, --row and --fields-json', async () => {
    const sepa = await ok(A, ['payback', 'add', 'bank_wire', 'Main account', 'eur', '--field', 'rail=sepa', '--field', 'recipient_name=Jane Doe', '--field', `iban=${IBAN}`]);
    const match = /Payback method added: (pbm_[0-9a-f]{24})/.exec(sepa.stdout);
    expect(match).not.toBeNull();
    ids.sepa = match![1]!;

    const custom = await ok(A, ['payback', 'add', 'custom', 'Time bank', 'Hours', '--row', 'Bank=Commons', '--row', 'Reference=a=b', '--priority', '20', '--json']);
    expect(custom.json).toMatchObject({ success: true, data: { method_id: expect.stringMatching(/^pbm_/) } });
    ids.custom = custom.json.data.method_id;

    const btc = await ok(A, ['payback', 'add', 'btc', 'Cold wallet', 'BTC', '--fields-json', JSON.stringify({ address: BTC }), '--share', 'never', '--priority', '5', '--json']);
    ids.btc = btc.json.data.method_id;

    const file = join(scratch, 'upi.json');
    writeFileSync(file, JSON.stringify({ vpa: 'someone@okaxis' }));
    const fromFile = await ok(A, ['payback', 'add', 'upi', 'UPI', 'INR', '--fields-json', `@${file}`, '--json']);
    ids.upi = fromFile.json.data.method_id;
    const badFile = await cli(A, ['payback', 'add', 'upi', 'UPI', 'INR', '--fields-json', '@/nonexistent/upi.json', '--json']);
    expect(badFile.json.error.code).toBe('INVALID_PARAMS');

    const reveal = await ok(A, ['payback', 'reveal', ids.custom, '--json']);
    expect(reveal.json.data.method.fields).toEqual({ rows: [{ key: 'Bank', value: 'Commons' }, { key: 'Reference', value: 'a=b' }] });
  });

  it('add on a terminal without field options asks for each field of the rail', async () => {
    const run = await ok(A, ['payback', 'add', 'bank_wire', 'Prompted', 'EUR', '--json'], { tty: true, input: `sepa\nJohn Roe\nNL91 ABNA 0417 1643 00\n` });
    const id = run.json.data.method_id;
    expect((await ok(A, ['payback', 'reveal', id, '--json'])).json.data.method.fields).toEqual({ rail: 'sepa', recipient_name: 'John Roe', iban: 'NL91ABNA0417164300' });
    await ok(A, ['payback', 'delete', id, '--yes']);
  });

  it('add without fields and without a terminal fails with INVALID_PARAMS', async () => {
    const run = await cli(A, ['payback', 'add', 'btc', 'x', 'BTC', '--json']);
    expect(run.code).toBe(1);
    expect(run.json.error.code).toBe('INVALID_PARAMS');
  });

  it('validation failures list every field (JSON: error.errors; human: one line each)', async () => {
    const run = await cli(A, ['payback', 'add', 'bank_wire', 'x'.repeat(129), 'EUR', '--field', 'rail=sepa', '--field', 'iban=DE89370400440532013001', '--json']);
    expect(run.code).toBe(1);
    expect(run.json.success).toBe(false);
    expect(run.json.error).toMatchObject({ code: 'validation_error', message: expect.any(String), status: 400 });
    expect(run.json.error.errors.map((e: any) => [e.field, e.code])).toEqual([
      ['label', 'too_long'],
      ['fields.recipient_name', 'required'],
      ['fields.iban', 'invalid_checksum'],
    ]);
    const human = await cli(A, ['payback', 'update', ids.sepa, '--field', `iban=${IBAN}`]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('Error: Validation failed');
    expect(human.stderr).toContain('fields.rail: rail is required (required)');
  });

  it('list shows enabled methods by priority, --currency filters, --all adds disabled ones', async () => {
    const list = await ok(A, ['payback', 'list', '--json']);
    expect(list.json.data.methods.map((m: any) => m.method_id)).toEqual([ids.btc, ids.custom, ids.upi, ids.sepa]);
    const eur = await ok(A, ['payback', 'list', '--currency', 'eur', '--json']);
    expect(eur.json.data.methods.map((m: any) => m.method_id)).toEqual([ids.sepa]);
    await ok(A, ['payback', 'update', ids.upi, '--disable']);
    expect((await ok(A, ['payback', 'list', '--json'])).json.data.count).toBe(3);
    expect((await ok(A, ['payback', 'list', '--all', '--json'])).json.data.count).toBe(4);
    const human = await ok(A, ['payback', 'list']);
    expect(human.stdout).toContain('Payback methods: 3');
    expect(human.stdout).toContain('SEPA •••• 3000 (J. Doe)');
    expect(human.stdout).not.toContain(IBAN);
  });

  it('view masks, reveal shows the fields', async () => {
    const view = await ok(A, ['payback', 'view', ids.sepa]);
    expect(view.stdout).toContain('SEPA •••• 3000 (J. Doe)');
    expect(view.stdout).toContain('1 × 10^-2');
    expect(view.stdout).not.toContain(IBAN);
    const reveal = await ok(A, ['payback', 'reveal', ids.sepa]);
    expect(reveal.stdout).toContain(IBAN);
    expect(reveal.stdout).toContain('Jane Doe');
  });

  it('update, share-policy, payload and delete', async () => {
    const upd = await ok(A, ['payback', 'update', ids.sepa, '--label', 'Euro', '--priority', '1', '--json']);
    expect(upd.json.data).toEqual({ method_id: ids.sepa });
    expect((await ok(A, ['payback', 'view', ids.sepa, '--json'])).json.data.method).toMatchObject({ label: 'Euro', priority: 1 });
    const nothing = await cli(A, ['payback', 'update', ids.sepa, '--json']);
    expect(nothing.json.error.code).toBe('INVALID_PARAMS');

    const share = await ok(A, ['payback', 'share-policy', ids.sepa, 'never', '--json']);
    expect(share.json.data).toEqual({ method_id: ids.sepa, share_policy: 'never' });
    expect((await cli(A, ['payback', 'share-policy', ids.sepa, 'prompt', '--json'])).json.error.code).toBe('INVALID_PARAMS');
    await ok(A, ['payback', 'share-policy', ids.sepa, 'auto']);

    const payload = await ok(A, ['payback', 'payload', ids.btc, '--amount', '0.5']);
    expect(payload.stdout.trim()).toBe(`bitcoin:${BTC}?amount=0.5`);

    const refused = await cli(A, ['payback', 'delete', ids.upi, '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('CONFIRMATION_REQUIRED');
    const del = await ok(A, ['payback', 'delete', ids.upi, '--yes', '--json']);
    expect(del.json.data).toEqual({ method_id: ids.upi, deleted: true });
    const gone = await cli(A, ['payback', 'view', ids.upi, '--json']);
    expect(gone.json.error).toMatchObject({ code: 'payback_method_not_found', status: 404 });
  });

  it('fetch and contact: the methods an accepted contact shares', async () => {
    // B asks A to connect (A saved as "Alice"); A accepts.
    await B.admin.post('/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice', currency: 'VWL' });
    const hashA = A.node.identity.pubkeyHash;
    const hashB = B.node.identity.pubkeyHash;
    await waitFor(() => A.admin.get(`/api/v1/contacts/${hashB}`).then((r) => r.status), (s) => s === 200, 'the request');
    await A.admin.post(`/api/v1/contacts/${hashB}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: 10 }],
      is_new_contact: true,
      contact_address: B.node.baseUrl,
      contact_name: 'Bob',
    });
    await waitFor(() => B.admin.get<any>(`/api/v1/contacts/${hashA}`).then((r) => r.body.data?.contact?.status), (s) => s === 'accepted', 'the acceptance');

    const before = await ok(B, ['payback', 'contact', 'Alice']);
    expect(before.stdout).toContain('No payback methods of Alice are known');

    const fetched = await ok(B, ['payback', 'fetch', 'Alice', '--json']);
    expect(fetched.json.data.contact).toEqual({ name: 'Alice', pubkey_hash: hashA });
    // btc is `never`: only the custom and sepa methods travel.
    expect(fetched.json.data.methods.map((m: any) => m.method_id)).toEqual([ids.sepa, ids.custom]);
    expect(fetched.json.data.methods[0].fields).toEqual({ rail: 'sepa', recipient_name: 'Jane Doe', iban: IBAN });

    const human = await ok(B, ['payback', 'contact', 'Alice']);
    expect(human.stdout).toContain('Known 2 payback method(s) of Alice');
    expect(human.stdout).toContain(IBAN);
    expect(human.stdout).not.toContain(BTC);

    const eur = await ok(B, ['payback', 'contact', 'Alice', '--currency', 'EUR', '--json']);
    expect(eur.json.data.methods.map((m: any) => m.method_id)).toEqual([ids.sepa]);

    // Document 2's observed command-line code for an unknown contact, as the contact commands report it.
    for (const verb of ['fetch', 'contact']) {
      const nobody = await cli(B, ['payback', verb, 'Nobody', '--json']);
      expect(nobody.code).toBe(1);
      expect(nobody.json).toMatchObject({ success: false, error: { code: 'CONTACT_NOT_FOUND', message: expect.any(String), node_code: 'contact_not_found', status: 404 } });
    }
  });
});
