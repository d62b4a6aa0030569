/**
 * Peer-supplied text is harmless in node-cli's output (issue 9 scope 5, issue 10 scope 4): a payment, a payment
 * request and a contact request whose descriptions carry terminal escapes (clear screen, set the window title,
 * 8-bit CSI) and invisible bidirectional and zero-width characters reach the operator's terminal only as visible
 * escapes. node-cli runs as a real process from dist/ against nodes in this process. Names refuse such characters
 * at input (REST).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, ok, send, settled, waitFor } from './ledger-support.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CLI = join(ROOT, 'bin/node-cli.js');

/** Clear the screen, set the window title (OSC ... BEL), right-to-left override, zero-width space, 8-bit CSI. */
const HOSTILE = '\x1b[2J\x1b]0;t\x07\u202e\u200b\u009bX';
const SHOWN = ['\\x1b[2J', '\\x1b]0;t\\x07', '\\u202e', '\\u200b', '\\x9bX'];
/** Anything a terminal could act on, except the line breaks between lines. */
const RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const rawIn = (text: string): boolean => RAW.test(text.replace(/\n/g, ''));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(t: TestNode, args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('NODE_') && k !== 'NODE_OPTIONS') delete env[k];
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...env, NODE_DATA_DIR: t.dataDir }, timeout: 20_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('node-cli shows peer-supplied text harmlessly', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/app/node-cli.js'))) throw new Error('dist/ is missing: run `npm run build` first (CI builds first)');
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
    expect((await settled(B, await send(B, 'Alice', '3', 'VWL', HOSTILE), A)).status).toBe('completed');
    await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount: '2', currency: 'VWL', description: HOSTILE });
    await waitFor(() => ok(A, 'GET', '/api/v1/requests'), (d) => d.incoming.length === 1, 'the payment request on A');
    await ok(C, 'PUT', '/api/v1/system/settings', { name: 'Carol' });
    await ok(C, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'Alice', fee_percent: 0, credit_limit: '0', currency: 'VWL', description: HOSTILE });
    await waitFor(() => ok(A, 'GET', '/api/v1/contacts/pending'), (d) => d.counts.incoming === 1, 'the contact request on A');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it.each(['history', 'overview', 'request list', 'contact pending'])('%s: escapes shown, none sent raw', async (line) => {
    const run = await cli(A, line.split(' '));
    expect(run.code, run.stderr).toBe(0);
    expect(rawIn(run.stdout)).toBe(false);
    expect(rawIn(run.stderr)).toBe(false);
    for (const shown of SHOWN) expect(run.stdout).toContain(shown);
  });

  it('contact pending shows who asks: the suggested name and the address, besides the key', async () => {
    const asked = (await ok(A, 'GET', '/api/v1/contacts/pending')).pending.incoming[0];
    const address: string = asked.addresses.tor ?? asked.addresses.https ?? asked.addresses.http;
    expect(address).toMatch(/^https?:\/\/127\.0\.0\.1:\d+$/);
    const run = await cli(A, ['contact', 'pending']);
    const row = run.stdout.split('\n').find((l) => l.includes('Carol'));
    expect(row).toBeDefined();
    expect(row).toContain(address);
    expect(row).toContain(hashOf(C).slice(0, 12));
    expect(run.stdout).toMatch(/NAME\s+SUGGESTED NAME\s+ADDRESS\s+KEY HASH/);
  });

  it('--json keeps the exact text, with the dangerous characters as \\u escapes', async () => {
    const run = await cli(A, ['history', '--json']);
    expect(run.code).toBe(0);
    expect(rawIn(run.stdout)).toBe(false);
    expect(run.stdout).toContain('\\u202e');
    expect(JSON.parse(run.stdout).data.transactions[0].description).toBe(HOSTILE);
  });

  it('contact names refuse control, bidirectional and zero-width characters, also where trimming used to hide them', async () => {
    const invalid = (res: { status: number; body: any }): void => {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_name');
    };
    for (const name of ['\ufeffDave', 'Dave\u2028', '\tDave', 'Da\u202eve', 'Dave\u200b']) {
      invalid(await call(A, 'POST', '/api/v1/contacts', { address: 'http://127.0.0.1:9', name, fee_percent: 0, credit_limit: '0', currency: 'VWL' }));
    }
    invalid(await call(A, 'PUT', '/api/v1/contacts/Bob', { name: 'Bobby\ufeff' }));
    invalid(
      await call(A, 'POST', `/api/v1/contacts/${hashOf(C)}/decisions`, {
        decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '1' }],
        is_new_contact: true,
        contact_address: C.node.baseUrl,
        contact_name: 'Carol\u2029',
      }),
    );
    expect((await ok(A, 'GET', '/api/v1/contacts/Bob')).contact.name).toBe('Bob');
    expect((await ok(A, 'GET', '/api/v1/contacts/pending')).counts.incoming).toBe(1);
    expect((await ok(A, 'GET', '/api/v1/contacts', undefined, { status: 'all' })).contacts.map((c: any) => c.name)).not.toContain('Dave');
  });

  it('API key names refuse them too', async () => {
    for (const name of ['ops\u202ekey', 'ops\u009b', '\u200bops', 'ops\u2028', ' ops\ufeff']) {
      const res = await call(A, 'POST', '/api/v1/keys', { name });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.error.code).toBe('invalid_name');
    }
    expect((await call(A, 'POST', '/api/v1/keys', { name: 'Zoë ops' })).status).toBe(201);
  });
});
