/**
 * Crash recovery of the sender, in process: the database is put in the state a crash leaves (a payment in
 * `sending` whose answer was lost), then the node restarts on it. The receiver answers the resend from its record,
 * so the payment settles exactly once; after 3 recoveries a payment is failed and flagged, and the next ping (the
 * peer's chain head is that payment) revives and settles it. (test/e2e/wallet-cli-crash.test.ts does the same with
 * a real process and kill -9.)
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, call, connect, loseAnswer, ok, send, settled, tx, waitFor } from './ledger-support.js';

function rowOf(dataDir: string, txid: string): any {
  const db = new Database(`${dataDir}/node.db`, { readonly: true });
  const row = db.prepare('SELECT status, recovery_count, needs_review, in_doubt FROM ledger_tx WHERE txid = ?').get(txid);
  db.close();
  return row;
}

describe('ledger crash recovery', () => {
  let A: TestNode;
  let B: TestNode;
  let aPort: number;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '1000', creditBtoA: '1000' });
    aPort = A.node.port;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('a payment left in sending is resent at startup and settles exactly once on both sides', async () => {
    const first = await send(A, 'Bob', '5');
    await settled(A, first, B);
    const last = await send(A, 'Bob', '1.25');
    await settled(A, last, B);
    await A.stop();
    loseAnswer(A.dataDir, last, 0);
    await A.restart();
    const s = await settled(A, last, B);
    expect(s.status).toBe('completed');
    expect(rowOf(A.dataDir, last)).toMatchObject({ status: 'completed', recovery_count: 1, needs_review: 0 });
    expect(await balanceRow(A, B)).toMatchObject({ sent: '6.25', received: '0' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '6.25', sent: '0' });
    const onB = await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' });
    expect(onB.pagination.total).toBe(2);
    // The chain continues from it.
    const next = await send(A, 'Bob', '0.75');
    expect((await settled(A, next, B)).previous_txid).toBe(last);
  });

  it('after 3 recoveries the payment is failed and flagged; the next ping finds the peer holds it and settles it', async () => {
    const t = await send(A, 'Bob', '2');
    await settled(A, t, B);
    await A.stop();
    loseAnswer(A.dataDir, t, 3);
    await A.restart();
    const failed = await waitFor(() => tx(A, t), (v) => v?.status === 'failed', 'failure after 3 recoveries');
    expect(failed.needs_review).toBe(true);
    expect(failed.failure_reason).toMatch(/^recovery_exhausted/);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '7' });

    // Ping: Bob's chain head is this payment; Alice resends it, Bob answers from his record.
    expect((await call(A, 'POST', '/api/v1/contacts/ping/Bob')).status).toBe(200);
    const healed = await settled(A, t, B);
    expect(healed.status).toBe('completed');
    expect(await balanceRow(A, B)).toMatchObject({ sent: '9' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '9' });
    expect((await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' })).pagination.total).toBe(4);
  });

  it('sync: the balance audit rebuilds totals from the settled transactions; the chain audit reports each chain', async () => {
    const clean = await ok(A, 'POST', '/api/v1/system/sync', { type: 'balances' });
    expect(clean.results.balances).toEqual({ rebuilt: true, corrected: [] });
    const db = new Database(`${A.dataDir}/node.db`);
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE ledger_balances SET sent_whole = sent_whole + 1000').run();
    db.close();
    expect((await balanceRow(A, B))!.sent).toBe('1009');
    const fixed = await ok(A, 'POST', '/api/v1/system/sync', { type: 'balances' });
    expect(fixed.results.balances.corrected).toEqual([
      { pubkey_hash: B.node.identity.pubkeyHash, currency: 'VWL', before: { received: '0', sent: '1009' }, after: { received: '0', sent: '9' } },
    ]);
    expect((await balanceRow(A, B))!.sent).toBe('9');
    const chains = await ok(A, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    expect(chains.results.transactions).toMatchObject({ broken: 0, chains: [{ pubkey_hash: B.node.identity.pubkeyHash, currency: 'VWL', settled: 4, chain_ok: true }] });
  });

  it('a refund that failed in doubt still counts: the original cannot be refunded twice while that refund may complete', async () => {
    // A restarted on new ports above; Bob knows it at its first one.
    await A.restart({ NODE_PORT: String(aPort) });
    const received = await send(B, 'Alice', '4');
    expect((await settled(B, received, A)).status).toBe('completed');
    const refund = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: received });
    expect(refund).toMatchObject({ status: 'fully_refunded', amount: '4' });
    expect((await settled(A, refund.refund_txid, B)).status).toBe('completed');
    await A.stop();
    loseAnswer(A.dataDir, refund.refund_txid, 3);
    await A.restart();
    const failed = await waitFor(() => tx(A, refund.refund_txid), (v) => v?.status === 'failed', 'the refund failing in doubt');
    expect(failed).toMatchObject({ needs_review: true });

    // Bob holds that refund: refunding the original again would pay him twice.
    const again = await call(A, 'POST', '/api/v1/wallet/refund', { txid: received, amount: '0.00000001' });
    expect([again.status, again.body.error.code]).toEqual([400, 'invalid_refund']);
    expect(again.body.error.message).toMatch(/already fully refunded/);

    // The ping finds Bob's chain head is that refund: it settles, once.
    expect((await call(A, 'POST', '/api/v1/contacts/ping/Bob')).status).toBe(200);
    expect((await settled(A, refund.refund_txid, B)).status).toBe('completed');
    const refundsOnB = ((await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received', limit: 100 })).transactions as any[]).filter(
      (t) => t.description === `refund of ${received}`,
    );
    expect(refundsOnB.map((t) => [t.txid, t.amount])).toEqual([[refund.refund_txid, '4']]);
  });
});
