/**
 * A payment to a node whose disk refuses writes (issue 28): the payee's handler rolls back and answers the peer 507
 * `insufficient_storage` (not an unexplained 500), the payer keeps the payment pending with that reason and retries on
 * its schedule, and once the payee's disk takes writes again the payment completes, once, on both sides. The payee's
 * disk is made to fail with the node's storage fault seam (NODE_TEST_STORAGE_FAULT_FILE).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageFaultSeam } from '../../kernel/db/fault-seam.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, call, connect, ok, send, settled, tx, waitFor } from './ledger-support.js';

describe('a payment to a node whose disk refuses writes', () => {
  let A: TestNode;
  let B: TestNode;
  let dir = '';
  let flag = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-disk-'));
    flag = join(dir, 'fault');
    [A, B] = await Promise.all([startTestNode({ env: { NODE_TEST_STORAGE_FAULT_FILE: flag } }), startTestNode()]);
    await connect(A, B);
  });
  afterAll(async () => {
    rmSync(flag, { force: true });
    storageFaultSeam.flagFile = null;
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused with insufficient_storage while the disk fails, then completes once', async () => {
    writeFileSync(flag, 'full');
    const txid = await send(B, 'Alice', '5');
    const held = await waitFor(() => tx(B, txid), (t) => /insufficient_storage/.test(t?.failure_reason ?? ''), 'the refusal on the payer');
    expect(held.status).toBe('pending');
    expect(await tx(A, txid)).toBeNull();
    const health = (await (await fetch(`${A.node.baseUrl}/healthz`)).json()) as { data: unknown };
    expect(health.data).toMatchObject({ status: 'degraded', reason: 'disk full' });

    rmSync(flag);
    // The payer's next retry is due two seconds after the refusal (the outbox schedule).
    expect((await settled(B, txid, A, 15_000)).status).toBe('completed');
    expect(await balanceRow(A, B)).toMatchObject({ received: '5', sent: '0' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '0', sent: '5' });
    for (const t of [A, B]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
    expect((await call(A, 'GET', '/api/v1/wallet/transactions')).body.data.transactions).toHaveLength(1);
  }, 30_000);
});
