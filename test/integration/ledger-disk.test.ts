/**
 * A payment to a node whose disk refuses writes (issue 28): the payee's handler rolls back and answers the peer 507
 * `insufficient_storage` (not an unexplained 500), the payer keeps the payment pending with that reason and sends it
 * again at its first retry's pace without counting those answers against its retries (as long as the outage lasts, up
 * to a day), and once the payee's disk takes writes again the payment completes, once, on both sides. The payee's disk
 * is made to fail with the node's storage fault seam (NODE_TEST_STORAGE_FAULT_FILE).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageFaultSeam } from '../../kernel/db/fault-seam.js';
import { sample, scrape } from '../support/metrics.js';
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
    const held = await waitFor(() => tx(B, txid), (t) => t?.status !== 'sending' && /insufficient_storage/.test(t?.failure_reason ?? ''), 'the refusal on the payer');
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

  it('waits for a payee whose disk stays full past the retries a payee that is down gets, then completes once', async () => {
    // Five counted failures take the payer about 3 s at this pace (0.1 + 0.2 + 0.4 + 0.8 + 1.6 s), then fail the payment.
    process.env.NODE_PEER_RETRY_BASE_MS = '100';
    try {
      writeFileSync(flag, 'full');
      const txid = await send(B, 'Alice', '7');
      // A message of the node's outbox (a payment request) waits the same way.
      await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount: '3', currency: 'VWL', description: 'Lunch' });
      await new Promise((r) => setTimeout(r, 5000));
      // Between two refusals the payment is pending; during an attempt (a few ms of every ~0.1 s) it is sending.
      // Failed is final, so seeing it pending again after 5 s shows it was never failed.
      const waiting = await waitFor(() => tx(B, txid), (t) => t?.status !== 'sending', 'the payment between two attempts', 2_000);
      expect(waiting).toMatchObject({ status: 'pending' });
      expect(waiting.failure_reason).toMatch(/^insufficient_storage: /);
      // The payee refused it many more times than the five a delivery failure counts, every ~0.1 s.
      const refusals = sample((await scrape(B.node.baseUrl)).text, 'wallet_node_peer_messages_total', { direction: 'out', type: 'ledger.send', result: 'insufficient_storage' });
      expect(refusals).toBeGreaterThan(20);
      rmSync(flag);
      expect((await settled(B, txid, A, 3_000)).status).toBe('completed');
      await waitFor(() => ok(A, 'GET', '/api/v1/requests'), (r) => JSON.stringify(r).includes('Lunch'), 'the payment request on the payee', 3_000);
    } finally {
      delete process.env.NODE_PEER_RETRY_BASE_MS;
    }
    expect(await balanceRow(A, B)).toMatchObject({ received: '12', sent: '0' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '0', sent: '12' });
    expect((await ok(B, 'GET', '/api/v1/system/dlq', undefined, { status: 'all' })).items).toEqual([]);
    for (const t of [A, B]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 30_000);
});
