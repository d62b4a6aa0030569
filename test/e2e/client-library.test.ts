/**
 * The README's example of `wallet-node/client`, run as written: extracted from README.md, saved inside the package
 * (so `wallet-node/client` resolves through package.json `exports` to the built dist/client) and run by node against
 * a test node that has Bob as a contact. It sends a payment, pages the sent transactions, and reports a refusal.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok, send, settled } from '../integration/ledger-support.js';

/** The first ```js block of the README's "A client library for scripts" section. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A client library for scripts'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md has no js example under "A client library for scripts"');
  return match[1]!;
}

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = '';
    const p = spawn(process.execPath, [script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (out += String(d)));
    p.once('exit', (code) => resolve({ code, out }));
  });
}

describe('README: the client library example', () => {
  let A: TestNode;
  let B: TestNode;
  let dir = '';

  beforeAll(async () => {
    requireBuild();
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B);
    // Earlier payments, so the listing spans more than one page of the example's 20.
    for (let i = 0; i < 21; i++) expect((await settled(A, await send(A, 'Bob', '0.1'))).status).toBe('completed');
    dir = mkdtempSync(join(ROOT, 'dist', 'readme-example-'));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships its types through package.json exports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const entry = pkg.exports['./client'];
    expect(existsSync(join(ROOT, entry.types))).toBe(true);
    expect(readFileSync(join(ROOT, entry.types), 'utf8')).toMatch(/NodeClient/);
  });

  it('sends a payment, pages the transactions, and reports a refusal with its code and request id', async () => {
    const script = join(dir, 'example.mjs');
    writeFileSync(script, readmeExample());
    const { code, out } = await run(script, { NODE_DATA_DIR: A.dataDir });
    expect(code, out).toBe(0);
    const lines = out.trim().split('\n');
    const txid = /^sent ([0-9a-f]{64})$/.exec(lines[0]!)?.[1];
    expect(txid, out).toBeDefined();
    const listed = lines.slice(1, -1);
    const sent = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'sent', limit: 100 });
    // The new payment may have been listed before it completed: its status is compared as a known one only.
    expect(listed.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual(sent.transactions.map((t: any) => `${t.txid} ${t.amount} ${t.currency}`));
    for (const l of listed) expect(['sending', 'sent', 'accepted', 'completed']).toContain(l.split(' ')[3]);
    expect(listed).toHaveLength(22);
    expect(listed.some((l) => l.startsWith(`${txid} 2.5 VWL`))).toBe(true);
    expect(lines.at(-1)).toMatch(/^refused: [a-z_]+ \(HTTP 4\d\d, request req_[0-9a-f]+\)$/);
  });
});
