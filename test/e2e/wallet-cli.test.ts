/**
 * node-cli payment commands end to end: `send`, `refund`, `viewbalances`, `history`, `overview`, `info detail` and the
 * `request` family, run as processes against two nodes (in this process) that are contacts of each other.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, waitFor } from '../integration/ledger-support.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CLI = join(ROOT, 'bin/node-cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  body: any;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('NODE_') && k !== 'NODE_OPTIONS') delete env[k];
  return { ...env, ...extra };
}

function cli(t: TestNode, args: string[], json = true): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args, ...(json ? ['--json'] : [])],
      { env: cleanEnv({ NODE_DATA_DIR: t.dataDir }), timeout: 20_000 },
      (err, stdout, stderr) => {
        let body: unknown = null;
        if (json) {
          try {
            body = JSON.parse(stdout);
          } catch {
            body = null;
          }
        }
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, body });
      },
    );
  });
}

describe('node-cli payments', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/app/node-cli.js'))) throw new Error('dist/ is missing: run `npm run build` first (CI builds first)');
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('send reports the completed payment; a payment over the line fails with exit 1 and the send-failure fields', async () => {
    const r = await cli(A, ['send', 'Bob', '12.5', 'VWL', 'lunch money']);
    expect(r.code).toBe(0);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toMatchObject({ status: 'sent', recipient: 'Bob', amount: '12.5', currency: 'VWL', type: 'standard', payment_status: 'completed' });
    expect(r.body.metadata.command).toBe('send');

    const human = await cli(A, ['send', 'Bob', '0.5', 'VWL'], false);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Paid 0.5 VWL to Bob.');

    const over = await cli(A, ['send', 'Bob', '1000', 'VWL']);
    expect(over.code).toBe(1);
    expect(over.body.success).toBe(false);
    expect(over.body.error).toMatchObject({ code: 'INSUFFICIENT_FUNDS', status: 'rejected', title: 'Payment rejected' });
    expect(over.body.error.detail).toMatch(/insufficient_credit/);

    const bad = await cli(A, ['send', 'Bob', 'abc', 'VWL']);
    expect(bad.code).toBe(1);
    expect(bad.body.error).toMatchObject({ code: 'invalid_amount', title: 'Send failed' });
  });

  it('refund returns part, then the rest', async () => {
    const paid = await cli(B, ['send', 'Alice', '4', 'VWL']);
    expect(paid.body.data.payment_status).toBe('completed');
    const part = await cli(A, ['refund', paid.body.data.txid, '1.5']);
    expect(part.code).toBe(0);
    expect(part.body.data).toMatchObject({ ok: true, original_txid: paid.body.data.txid, amount: '1.5', original_amount: '4', already_refunded: '0', remaining: '2.5', fully_refunded: false });
    const rest = await cli(A, ['refund', paid.body.data.txid]);
    expect(rest.body.data).toMatchObject({ amount: '2.5', remaining: '0', fully_refunded: true });
    const none = await cli(A, ['refund', paid.body.data.txid]);
    expect(none.code).toBe(1);
    expect(none.body.error.code).toBe('invalid_refund');
  });

  it('viewbalances, history (contact, limit, 0 = all) and overview', async () => {
    const vb = await cli(A, ['viewbalances']);
    expect(vb.body.data.balances).toEqual([expect.objectContaining({ contact_name: 'Bob', currency: 'VWL', sent: '17', received: '4', net_balance: '-13' })]);
    const one = await cli(A, ['viewbalances', 'Bob']);
    expect(one.body.data.balances.length).toBe(1);
    const unknown = await cli(A, ['viewbalances', 'Nobody']);
    expect(unknown.code).toBe(1);

    const all = await cli(A, ['history', '0']);
    expect(all.body.data.total).toBe(6); // 3 sent (one rejected), 1 received, 2 refunds
    expect(all.body.data.transactions.length).toBe(6);
    const two = await cli(A, ['history', 'Bob', '2']);
    expect(two.body.data.transactions.length).toBe(2);
    const byDefault = await cli(A, ['history']);
    expect(byDefault.body.data.transactions.length).toBe(5); // maxOutput default 5
    const text = await cli(A, ['history', 'Bob', '3'], false);
    expect(text.stdout).toMatch(/TIME\s+TYPE\s+STATUS\s+AMOUNT/);
    expect(text.stdout).toContain('3 more');

    const ov = await cli(A, ['overview', '3']);
    expect(ov.body.data.recent_transactions.length).toBe(3);
    expect(ov.body.data.balances).toEqual([{ currency: 'VWL', total_balance: '-13' }]);
    const info = await cli(A, ['info', 'detail']);
    expect(info.body.data.balances[0]).toMatchObject({ contact_name: 'Bob', net_balance: '-13' });
  });

  it('request family: create, list, approve with a note, decline, cancel, retry errors', async () => {
    const created = await cli(A, ['request', 'create', 'Bob', '3', 'VWL', 'tickets']);
    expect(created.code).toBe(0);
    const id = created.body.data.request_id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(() => cli(B, ['request', 'list']), (r) => r.body.data.incoming.some((x: any) => x.request_id === id), 'request on Bob');
    const approved = await cli(B, ['request', 'approve', id, 'see you there']);
    expect(approved.code).toBe(0);
    expect(approved.body.data.txid).toMatch(/^[0-9a-f]{64}$/);
    const out = await waitFor(
      () => cli(A, ['request', 'list']),
      (r) => r.body.data.outgoing.find((x: any) => x.request_id === id)?.status === 'approved',
      'approval on Alice',
    );
    expect(out.body.data.outgoing[0].resulting_txid).toBe(approved.body.data.txid);

    const second = (await cli(A, ['request', 'create', 'Bob', '1', 'VWL'])).body.data.request_id;
    await waitFor(() => cli(B, ['request']), (r) => r.body.data.incoming.some((x: any) => x.request_id === second), 'second request');
    expect((await cli(B, ['request', 'decline', second])).code).toBe(0);
    const third = (await cli(A, ['request', 'create', 'Bob', '1', 'VWL'])).body.data.request_id;
    expect((await cli(A, ['request', 'cancel', third])).code).toBe(0);
    const retry = await cli(B, ['request', 'retry', second]);
    expect(retry.code).toBe(1);
    expect(retry.body.error.code).toBe('retry_failed');
  });
});
