/**
 * Must-arrive notices toward a node that is down: they retry with backoff, land in the dead letter queue, and
 * an operator retry delivers them once the node is back; nothing arrives twice. Retries are shortened with
 * NODE_PEER_RETRY_BASE_MS (kernel/peers/outbox.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok, waitFor, hashOf } from '../support/api.js';
import { queryCount } from '../support/db.js';
import { startTestNode, type TestNode } from '../support/node.js';

process.env.NODE_PEER_RETRY_BASE_MS = '10';

const listRow = async (t: TestNode, hash: string, currency: string) =>
  (await ok(t, 'GET', `/api/v1/contacts/${hash}/currencies`)).currencies.find((r: any) => r.currency.toLowerCase() === currency.toLowerCase());
const dlqItems = (t: TestNode, status?: string) => ok(t, 'GET', '/api/v1/system/dlq', undefined, status ? { status } : undefined);

/** The node's clock, real time from wherever a test moves it. */
let offset = 0;
const clock = { now: () => Date.now() + offset };

describe('dead letter queue of contact notices', () => {
  let A: TestNode;
  let B: TestNode;
  let bPort: number;

  beforeAll(async () => {
    // A's clock is movable: the retention of resolved dead letters is tested by moving it days ahead.
    [A, B] = await Promise.all([startTestNode({ clock }), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD', 'Hours'] });
    await ok(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', credit_limit: 50 });
    await waitFor(() => ok(B, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'request on B');
    await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: 40 }],
      is_new_contact: true,
      contact_address: A.node.baseUrl,
      contact_name: 'Alice',
    });
    await waitFor(() => listRow(A, hashOf(B), 'VWL'), (r) => r.status === 'accepted', 'accepted on A');
    // B asks A for a second currency; A will decline it while B is down.
    await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currencies`, { currency: 'Hours', fee: 0, credit: 1 });
    await waitFor(() => listRow(A, hashOf(B), 'Hours'), (r) => r?.status === 'pending', 'Hours on A');
    bPort = B.node.port;
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('notices to a stopped node retry, then land in the DLQ; ping reports it offline', async () => {
    await B.stop();
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currency-decline`, { currency: 'Hours' });
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'USD', fee: 1, credit: 12 });
    const list = await waitFor(() => dlqItems(A), (d) => d.count === 2, 'two dead letters');
    expect(list.pending_count).toBe(2);
    for (const item of list.items) {
      expect(item).toMatchObject({
        message_type: 'contact',
        status: 'pending',
        retry_count: 5,
        retryable: true,
        recipient_address: expect.stringContaining(`127.0.0.1:${bPort}`),
      });
      expect(item.failure_reason).toMatch(/unreachable|refused|ECONNREFUSED/i);
      expect(item.added_at).toMatch(/Z$/);
      expect(Number.isInteger(item.id)).toBe(true);
    }
    const metrics = await ok(A, 'GET', '/api/v1/system/metrics');
    expect(metrics.plugins.dlq).toEqual({ pending_count: 2 });

    const ping = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(ping).toMatchObject({ contact_name: 'Bob', online_status: 'offline' });
    // The local changes stand meanwhile.
    expect((await listRow(A, hashOf(B), 'Hours')).status).toBe('declined');
    expect((await listRow(A, hashOf(B), 'USD')).status).toBe('pending');
  });

  it('after B restarts on its port, dlq retry delivers each notice exactly once', async () => {
    await B.restart({ NODE_PORT: String(bPort) });
    expect(B.node.port).toBe(bPort);
    const { items } = await dlqItems(A);
    for (const item of items) {
      const res = await ok(A, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
      expect(res.item).toMatchObject({ id: item.id, status: 'resolved', retry_count: 6 });
      expect(typeof res.message).toBe('string');
    }
    expect((await dlqItems(A)).count).toBe(0);
    expect((await dlqItems(A)).pending_count).toBe(0);
    const resolved = await dlqItems(A, 'resolved');
    expect(resolved.count).toBe(2);

    // B saw each notice once: the Hours request declined, one pending USD request.
    expect(await listRow(B, hashOf(A), 'Hours')).toMatchObject({ status: 'declined', decline_reason: 'declined_by_peer' });
    const pending = await ok(B, 'GET', '/api/v1/contacts/pending');
    expect(pending.counts).toEqual({ incoming: 1, outgoing: 0, total: 1 });
    expect(pending.pending.incoming[0].currencies.map((c: any) => c.currency)).toEqual(['USD']);
    const outgoing = await ok(A, 'GET', '/api/v1/contacts/pending');
    expect(outgoing.pending.outgoing[0].currencies[0]).toMatchObject({ currency: 'USD', delivered: true });

    // A resolved item cannot be retried or abandoned again.
    const again = await call(A, 'POST', `/api/v1/system/dlq/${items[0].id}/retry`);
    expect([again.status, again.body.error.code]).toEqual([400, 'dlq_invalid_status']);
    const abandon = await call(A, 'POST', `/api/v1/system/dlq/${items[0].id}/abandon`);
    expect([abandon.status, abandon.body.error.code]).toEqual([400, 'dlq_invalid_status']);
    // The accept that follows still works end to end.
    await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'USD', fee: 0, credit: 7 });
    await waitFor(() => listRow(A, hashOf(B), 'USD'), (r) => r.status === 'accepted' && r.my_available_credit === '7', 'USD accepted');
  });

  it('abandon, status filters and errors', async () => {
    await B.stop();
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'Hours', fee: 0, credit: 2 });
    const { items } = await waitFor(() => dlqItems(A), (d) => d.count === 1, 'one dead letter');
    const res = await ok(A, 'POST', `/api/v1/system/dlq/${items[0].id}/abandon`);
    expect(res.item).toMatchObject({ id: items[0].id, status: 'abandoned' });
    expect((await dlqItems(A)).count).toBe(0);
    expect((await dlqItems(A, 'abandoned')).items.map((i: any) => i.id)).toEqual([items[0].id]);
    expect((await dlqItems(A, 'all')).count).toBe(3);
    expect((await dlqItems(A, 'resolved,abandoned')).count).toBe(3);
    const bad = await call(A, 'GET', '/api/v1/system/dlq', undefined, { status: 'lost' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_status']);
    const missing = await call(A, 'POST', '/api/v1/system/dlq/99999/retry');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'dlq_item_not_found']);
    const badId = await call(A, 'POST', '/api/v1/system/dlq/abc/abandon');
    expect([badId.status, badId.body.error.code]).toEqual([400, 'invalid_id']);
    const one = await ok(A, 'GET', `/api/v1/system/dlq/${items[0].id}`);
    expect(one.item.status).toBe('abandoned');
  });

  it('cleanupDlqRetentionDays: resolved and abandoned dead letters older than it are deleted', async () => {
    const settled = (await dlqItems(A, 'resolved,abandoned')).count;
    expect(settled).toBe(3);
    // A day old at a retention of 2 days: kept (changing the setting runs the retention job at once).
    offset = 86_400_000 + 60_000;
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_dlq_retention_days: 2 });
    expect((await dlqItems(A, 'resolved,abandoned')).count).toBe(settled);
    // At a retention of 1 day they go (the default, 90 days, would keep them).
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_dlq_retention_days: 1 });
    await waitFor(() => dlqItems(A, 'resolved,abandoned'), (d) => d.count === 0, 'the old dead letters deleted');
    offset = 0;
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_dlq_retention_days: 90 });
  });

  it('cleanupDeliveryRetentionDays: delivered messages and stored replies older than it are deleted', async () => {
    const rows = (): { sent: number; replies: number } => ({
      sent: queryCount(A.dataDir, `SELECT COUNT(*) FROM peer_outbox WHERE status IN ('delivered', 'refused', 'dead')`),
      replies: queryCount(A.dataDir, 'SELECT COUNT(*) FROM peer_seen'),
    });
    const before = rows();
    expect(before.sent).toBeGreaterThan(0);
    expect(before.replies).toBeGreaterThan(0);
    // Two days on (the default keeps them 30 days): a retention of 1 day deletes them, at once.
    offset = 2 * 86_400_000;
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_delivery_retention_days: 1 });
    await waitFor(async () => rows(), (r) => r.sent === 0 && r.replies === 0, 'the old deliveries deleted');
    offset = 0;
    await ok(A, 'PUT', '/api/v1/system/settings', { cleanup_delivery_retention_days: 30 });
  });

  it('a request queued while the peer is down and a crossing request from it accept each other', async () => {
    const C = await startTestNode();
    const D = await startTestNode();
    const dPort = D.node.port;
    try {
      await D.stop();
      const add = await call(C, 'POST', '/api/v1/contacts', { address: `http://127.0.0.1:${dPort}`, name: 'Dora', credit_limit: 11 });
      expect(add.status).toBe(201);
      expect(add.body.data).toMatchObject({ status: 'pending', name: 'Dora' });
      expect(add.body.data.message).toContain('queued');
      // Unknown key so far: no hash yet, reachable by name or address.
      expect((await ok(C, 'GET', '/api/v1/contacts/Dora')).contact.pubkey_hash).toBeNull();
      const dead = await waitFor(() => dlqItems(C), (d) => d.count === 1, 'request in the DLQ');

      await D.restart({ NODE_PORT: String(dPort) });
      await ok(D, 'POST', '/api/v1/contacts', { address: C.node.baseUrl, name: 'Carl', credit_limit: 22 });
      const dora = await waitFor(() => ok(C, 'GET', '/api/v1/contacts/Dora'), (v) => v.contact.status === 'accepted', 'crossing accept on C');
      expect(dora.contact.pubkey_hash).toBe(hashOf(D));
      expect(dora.contact.currencies[0]).toMatchObject({ status: 'accepted', credit_limit: '11' });
      await waitFor(() => ok(D, 'GET', '/api/v1/contacts/Carl'), (v) => v.contact.currencies[0].my_available_credit === '11', 'credit on D');

      const retried = await ok(C, 'POST', `/api/v1/system/dlq/${dead.items[0].id}/retry`);
      expect(retried.item.status).toBe('resolved');
      const carl = (await ok(D, 'GET', '/api/v1/contacts/Carl')).contact;
      expect(carl.status).toBe('accepted');
      expect(carl.currencies).toHaveLength(1);
      expect(carl.currencies[0]).toMatchObject({ status: 'accepted', credit_limit: '22', my_available_credit: '11' });
      const doraAfter = (await ok(C, 'GET', '/api/v1/contacts/Dora')).contact;
      expect(doraAfter.currencies[0].my_available_credit).toBe('22');
      expect((await ok(C, 'GET', '/api/v1/contacts', undefined, { status: 'all' })).count).toBe(1);
    } finally {
      await Promise.all([C.destroy(), D.destroy()]);
    }
  });
});
