/**
 * A payment request whose payment failed for delivery (the requester was down: 5 attempts, then the dead letter
 * queue) and then completes after all (`dlq retry` once the requester is back): Document 1's "sending → payment
 * completes → approved" still holds, the requester learns of the payment, and the request cannot be paid twice.
 * Retries are shortened with NODE_PEER_RETRY_BASE_MS; the contacts' status cycle is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import Database from 'better-sqlite3';
import { balanceRow, call, dec, fastRetryPair, loseAnswer, ok, settled, tx, waitFor } from './ledger-support.js';

const find = async (t: TestNode, direction: 'incoming' | 'outgoing', id: string) =>
  ((await ok(t, 'GET', '/api/v1/requests'))[direction] as any[]).find((r) => r.request_id === id) ?? null;
const waitStatus = (t: TestNode, direction: 'incoming' | 'outgoing', id: string, status: string) =>
  waitFor(() => find(t, direction, id), (r) => r?.status === status, `${direction} ${id.slice(0, 8)} ${status}`);

describe('payment requests: a failed payment that completes later', () => {
  let A: TestNode; // requester
  let B: TestNode; // payer
  let aPort: number;
  let done: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ A, B, done } = await fastRetryPair());
    aPort = A.node.port;
  }, 60_000);
  afterAll(() => done?.());

  /** Alice asks Bob for `amount`; Bob approves while Alice is down, so the payment fails for delivery; Alice returns. */
  async function failedWhileAway(amount: string): Promise<{ id: string; txid: string; item: any }> {
    const created = await ok(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount, currency: 'VWL', description: 'tickets' });
    const id = created.request_id as string;
    await waitStatus(B, 'incoming', id, 'pending');
    await A.stop();
    const { txid } = await ok(B, 'POST', '/api/v1/requests/approve', { request_id: id });
    expect((await settled(B, txid)).status).toBe('failed');
    const failed = await waitStatus(B, 'incoming', id, 'failed');
    expect(failed.failure_reason).toMatch(/^delivery_failed/);
    await A.restart({ NODE_PORT: String(aPort) });
    const item = ((await ok(B, 'GET', '/api/v1/system/dlq')).items as any[]).find((i) => i.message_id === txid);
    expect(item).toMatchObject({ message_type: 'transaction', status: 'pending' });
    return { id, txid, item };
  }

  it('failed for delivery, then delivered by dlq retry: the request becomes approved on both sides and retry is refused', async () => {
    const { id, txid, item } = await failedWhileAway('4.5');
    await ok(B, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect((await settled(B, txid, A)).status).toBe('completed');

    const paid = await waitStatus(B, 'incoming', id, 'approved');
    expect(paid.resulting_txid).toBe(txid);
    expect(paid).not.toHaveProperty('failure_reason');
    const out = await waitStatus(A, 'outgoing', id, 'approved');
    expect(out.resulting_txid).toBe(txid);
    expect(await tx(A, txid)).toMatchObject({ status: 'completed', amount: '4.5', description: 'tickets' });

    const again = await call(B, 'POST', '/api/v1/requests/retry', { request_id: id });
    expect([again.status, again.body.error.code]).toEqual([400, 'retry_failed']);
  }, 30_000);

  it('cancelled by the requester after the payment failed, then paid after all: the payment takes priority on both sides', async () => {
    const { id, txid, item } = await failedWhileAway('1.5');
    await ok(A, 'DELETE', `/api/v1/requests/${id}`);
    await waitStatus(B, 'incoming', id, 'cancelled');

    await ok(B, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect((await settled(B, txid, A)).status).toBe('completed');
    expect((await waitStatus(B, 'incoming', id, 'approved')).resulting_txid).toBe(txid);
    expect((await waitStatus(A, 'outgoing', id, 'approved')).resulting_txid).toBe(txid);
  }, 30_000);

  it('retry of a request whose payment failed for delivery sends that same payment again: paid once, its dead letter resolved', async () => {
    const before = (await balanceRow(A, B))!.received;
    const { id, txid, item } = await failedWhileAway('2.25');
    const retried = await ok(B, 'POST', '/api/v1/requests/retry', { request_id: id });
    expect(retried.txid).toBe(txid);
    expect((await settled(B, txid, A)).status).toBe('completed');
    expect((await waitStatus(B, 'incoming', id, 'approved')).resulting_txid).toBe(txid);
    expect((await waitStatus(A, 'outgoing', id, 'approved')).resulting_txid).toBe(txid);
    const items = (await ok(B, 'GET', '/api/v1/system/dlq', undefined, { status: 'all' })).items as any[];
    expect(items.find((i) => i.id === item.id)).toMatchObject({ status: 'resolved', failure_reason: null });
    expect((await balanceRow(A, B))!.received).toBe(dec(before).plus('2.25').toFixed());
  }, 30_000);

  it('retry after a payment that reached the requester but whose answer was lost: the requester answers from its record, paid once', async () => {
    const created = await ok(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '3', currency: 'VWL', description: 'rent' });
    const id = created.request_id as string;
    await waitStatus(B, 'incoming', id, 'pending');
    const { txid } = await ok(B, 'POST', '/api/v1/requests/approve', { request_id: id });
    expect((await settled(B, txid, A)).status).toBe('completed');
    await waitStatus(A, 'outgoing', id, 'approved');
    const receivedBefore = (await balanceRow(A, B))!.received;
    // Bob crashed after sending: his payment is back in `sending` with its answer lost (4 transport failures so far),
    // his request still `sending`; Alice, who holds the payment, is down when Bob restarts.
    await B.stop();
    loseAnswer(B.dataDir, txid, 0, 4);
    const db = new Database(`${B.dataDir}/node.db`);
    db.prepare(`UPDATE payment_requests SET status = 'sending' WHERE resulting_txid = ?`).run(txid);
    db.close();
    await A.stop();
    await B.restart();
    const failed = await waitFor(() => tx(B, txid), (v) => v?.status === 'failed', 'the in-doubt payment failing');
    expect(failed).toMatchObject({ needs_review: true });
    expect(failed.failure_reason).toMatch(/^delivery_failed/);
    expect((await waitStatus(B, 'incoming', id, 'failed')).resulting_txid).toBe(txid);

    await A.restart({ NODE_PORT: String(aPort) });
    const retried = await ok(B, 'POST', '/api/v1/requests/retry', { request_id: id });
    expect(retried.txid).toBe(txid);
    expect((await settled(B, txid, A)).status).toBe('completed');
    expect((await waitStatus(B, 'incoming', id, 'approved')).resulting_txid).toBe(txid);
    expect((await balanceRow(A, B))!.received).toBe(receivedBefore);
    expect((await balanceRow(B, A))!.sent).toBe(receivedBefore);
  }, 30_000);
});
