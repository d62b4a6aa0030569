/**
 * Direct payments in the dead letter queue (Document 2, "Dead letter queue item", message type `transaction`): a
 * payment whose delivery failed 5 times is failed and parked; `dlq retry` sends it once more (re-signed onto the
 * current chain head, or unchanged when it is in doubt) and resolves the item when it settles; a refusal resolves the
 * item with it; abandon leaves the payment failed; a revival by ping resolves the item too. Retries are shortened
 * with NODE_PEER_RETRY_BASE_MS; the contacts' status cycle is off, so only the pings of the tests run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealingSessions } from '../../kernel/crypto/seal.js';
import { buildEnvelope } from '../../kernel/peers/envelope.js';
import type { TestNode } from '../support/node.js';
import { balanceRow, call, fastRetryPair, loseAnswer, ok, send, settled, tx, waitFor } from './ledger-support.js';

const dlq = (t: TestNode, status?: string) => ok(t, 'GET', '/api/v1/system/dlq', undefined, status ? { status } : undefined);
const itemOf = async (t: TestNode, txid: string) => ((await dlq(t, 'all')).items as any[]).find((i) => i.message_id === txid);
const receivedCount = async (t: TestNode): Promise<number> =>
  (await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' })).pagination.total;

describe('direct payments in the dead letter queue', () => {
  let A: TestNode;
  let B: TestNode;
  let bPort: number;
  let head: string;
  let done: (() => Promise<void>) | undefined;

  /** With B stopped: a payment from A fails after 5 delivery attempts and waits in A's dead letter queue. */
  async function undeliverable(amount: string): Promise<{ txid: string; item: any }> {
    const txid = await send(A, 'Bob', amount);
    const failed = await settled(A, txid);
    expect(failed).toMatchObject({ status: 'failed', needs_review: false });
    expect(failed.failure_reason).toMatch(/^delivery_failed after 5 attempt\(s\): /);
    return { txid, item: await itemOf(A, txid) };
  }

  const restartB = async (): Promise<void> => {
    await B.restart({ NODE_PORT: String(bPort) });
    expect(B.node.port).toBe(bPort);
  };

  beforeAll(async () => {
    ({ A, B, done } = await fastRetryPair());
    bPort = B.node.port;
    head = await send(A, 'Bob', '2');
    expect((await settled(A, head, B)).status).toBe('completed');
  }, 60_000);
  afterAll(() => done?.());

  let parked: { txid: string; item: any };

  it('a payment that failed 5 deliveries is a pending `transaction` item; a retry while B is down answers 502', async () => {
    await B.stop();
    parked = await undeliverable('1.5');
    expect(await balanceRow(A, B)).toMatchObject({ sent: '2', received: '0' });
    const list = await dlq(A);
    expect(list).toMatchObject({ count: 1, pending_count: 1 });
    expect(list.items[0]).toMatchObject({
      id: parked.item.id,
      message_id: parked.txid,
      message_type: 'transaction',
      status: 'pending',
      retry_count: 5,
      retryable: true,
      recipient_address: expect.stringContaining(`127.0.0.1:${bPort}`),
    });
    expect(list.items[0].failure_reason).toMatch(/unreachable|ECONNREFUSED/i);
    expect(list.items[0].failure_reason).not.toMatch(/^delivery_failed/);

    const again = await call(A, 'POST', `/api/v1/system/dlq/${parked.item.id}/retry`);
    expect([again.status, again.body.error.code]).toEqual([502, 'dlq_retry_failed']);
    expect(await itemOf(A, parked.txid)).toMatchObject({ status: 'pending', retry_count: 6, failure_reason: expect.stringMatching(/unreachable|ECONNREFUSED/i) });
    const still = await tx(A, parked.txid);
    expect(still.status).toBe('failed');
    expect(still.failure_reason).toMatch(/^delivery_failed after 6 attempt\(s\): /);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '2' });
  });

  it('after B returns and the chain moved on, dlq retry re-signs the payment onto the new head and settles it once', async () => {
    await restartB();
    const other = await send(A, 'Bob', '0.25');
    const otherDone = await settled(A, other, B);
    expect(otherDone).toMatchObject({ status: 'completed', previous_txid: head });
    expect((await tx(A, parked.txid)).previous_txid).toBe(head); // as first signed

    const res = await ok(A, 'POST', `/api/v1/system/dlq/${parked.item.id}/retry`);
    expect(res.item).toMatchObject({ id: parked.item.id, status: 'resolved', retry_count: 7, failure_reason: null });
    expect(res.message).toMatch(/delivered/);
    for (const t of [A, B]) {
      expect(await tx(t, parked.txid)).toMatchObject({ status: 'completed', amount: '1.5', previous_txid: other });
    }
    expect(await balanceRow(A, B)).toMatchObject({ sent: '3.75', received: '0' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '3.75', sent: '0' });
    expect(await receivedCount(B)).toBe(3);
    expect(await dlq(A)).toMatchObject({ count: 0, pending_count: 0 });

    const twice = await call(A, 'POST', `/api/v1/system/dlq/${parked.item.id}/retry`);
    expect([twice.status, twice.body.error.code]).toEqual([400, 'dlq_invalid_status']);
    head = parked.txid;
    const next = await send(A, 'Bob', '0.5');
    expect(await settled(A, next, B)).toMatchObject({ status: 'completed', previous_txid: head });
    head = next;
  });

  it('a retry the peer refuses resolves the item with the refusal and leaves the payment rejected', async () => {
    await B.stop();
    const { txid, item } = await undeliverable('3');
    await restartB();
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '1' });
    try {
      const res = await ok(A, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
      expect(res.item).toMatchObject({ status: 'resolved', failure_reason: 'refused: insufficient_credit' });
      expect(res.message).toMatch(/refused/);
    } finally {
      await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '100' });
    }
    // The refusal told A that B extends it nothing more; a ping tells it B's line is back.
    const line = async (): Promise<string> => (await ok(A, 'GET', '/api/v1/contacts/Bob')).contact.currencies.find((r: any) => r.currency === 'VWL').my_available_credit;
    expect(await line()).toBe('0');
    await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(await line()).toBe('95.75');
    const rejected = await tx(A, txid);
    expect(rejected.status).toBe('rejected');
    expect(rejected.failure_reason).toMatch(/^insufficient_credit/);
    expect(await tx(B, txid)).toBeNull();
    expect(await balanceRow(A, B)).toMatchObject({ sent: '4.25' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '4.25' });
  });

  it('abandon: the item is abandoned, the payment stays failed and never reaches B once it is back', async () => {
    await B.stop();
    const { txid, item } = await undeliverable('1');
    const res = await ok(A, 'POST', `/api/v1/system/dlq/${item.id}/abandon`);
    expect(res.item).toMatchObject({ id: item.id, status: 'abandoned', message_type: 'transaction' });
    expect(await dlq(A)).toMatchObject({ count: 0, pending_count: 0 });

    await restartB();
    expect(await ok(A, 'POST', '/api/v1/contacts/ping/Bob')).toMatchObject({ online_status: 'online' });
    const next = await send(A, 'Bob', '0.1');
    expect(await settled(A, next, B)).toMatchObject({ status: 'completed', previous_txid: head });
    head = next;
    expect(await tx(A, txid)).toMatchObject({ status: 'failed' });
    expect(await tx(B, txid)).toBeNull();
    const retry = await call(A, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect([retry.status, retry.body.error.code]).toEqual([400, 'dlq_invalid_status']);
    expect(await itemOf(A, txid)).toMatchObject({ status: 'abandoned' });
    expect(await balanceRow(A, B)).toMatchObject({ sent: '4.35' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '4.35' });
  });

  /**
   * B holds a payment whose answer A lost (a crash); A restarts while B is down: the resend fails its last attempt,
   * and the payment is failed in doubt (needs_review) and parked.
   */
  async function heldByBButFailedOnA(amount: string): Promise<{ txid: string; prev: string; item: any }> {
    const txid = await send(A, 'Bob', amount);
    const done = await settled(A, txid, B);
    await Promise.all([A.stop(), B.stop()]);
    loseAnswer(A.dataDir, txid, 0, 4);
    await A.restart();
    const failed = await waitFor(() => tx(A, txid), (v) => v?.status === 'failed', 'the resend failing');
    expect(failed).toMatchObject({ needs_review: true, failure_reason: expect.stringMatching(/^delivery_failed after 5 attempt\(s\): /) });
    const item = await itemOf(A, txid);
    expect(item).toMatchObject({ status: 'pending', message_type: 'transaction', retry_count: 5 });
    await restartB();
    return { txid, prev: done.previous_txid, item };
  }

  it('a payment in doubt is resent unchanged by dlq retry; the peer answers from its record', async () => {
    const { txid, prev, item } = await heldByBButFailedOnA('0.4');
    const before = await receivedCount(B);
    expect(prev).toBe(head);
    const res = await ok(A, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect(res.item).toMatchObject({ status: 'resolved', failure_reason: null, retry_count: 6 });
    expect(await tx(A, txid)).toMatchObject({ status: 'completed', previous_txid: prev });
    expect(await receivedCount(B)).toBe(before);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '4.75' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '4.75' });
    head = txid;
  });

  it('a parked payment that a ping revives resolves its item when it completes', async () => {
    const { txid, item } = await heldByBButFailedOnA('0.6');
    const before = await receivedCount(B);
    // Bob's chain head is this payment: the ping revives it, Bob answers the resend from his record.
    expect(await ok(A, 'POST', '/api/v1/contacts/ping/Bob')).toMatchObject({ online_status: 'online' });
    expect(await settled(A, txid, B)).toMatchObject({ status: 'completed' });
    expect(await waitFor(() => itemOf(A, txid), (i) => i.status === 'resolved', 'the item resolved')).toMatchObject({
      id: item.id,
      failure_reason: null,
    });
    expect(await dlq(A)).toMatchObject({ count: 0, pending_count: 0 });
    expect(await receivedCount(B)).toBe(before);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '5.35' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '5.35' });
    const retry = await call(A, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect([retry.status, retry.body.error.code]).toEqual([400, 'dlq_invalid_status']);
  });

  it('a contact naming a failed payment it does not hold as its chain head does not make A send it again', async () => {
    await B.stop();
    const { txid } = await undeliverable('0.9');
    await restartB();
    const before = await receivedCount(B);
    // Bob (his own key, a signed ping) claims the failed payment is his chain head, which he never received.
    const { wire } = buildEnvelope(
      B.node.identity,
      B.node.addresses(),
      { pubkeyHash: A.node.identity.pubkeyHash, sealingKey: A.node.identity.sealingPublicKey },
      { type: 'contact.ping', heads: { VWL: txid }, known_currencies: ['VWL'] },
      { mid: `forged-${txid}`, repeatable: false },
      Date.now(),
      new SealingSessions(),
    );
    const res = await fetch(`${A.node.baseUrl}/peer/v1/message`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(wire) });
    expect(res.status).toBe(200);
    // A asks Bob for his record of it (held_only); Bob has none, so A keeps it failed for the operator.
    const kept = await waitFor(() => tx(A, txid), (v) => v?.status === 'failed' && /^not_held/.test(v.failure_reason ?? ''), 'the payment failed as not held');
    expect(kept).toMatchObject({ needs_review: true });
    expect(await receivedCount(B)).toBe(before);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '5.35' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '5.35' });
  });
});
