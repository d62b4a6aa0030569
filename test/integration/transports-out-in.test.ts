/**
 * node-cli out / in (Document 2: test-mode only): the node's peer transports go down and up. While down, peers
 * cannot reach the node and it reaches none; queued messages wait without spending retries and go out at once
 * when the transports come back. Without NODE_TEST_MODE the routes refuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, nodeCli, ok, waitFor } from './ledger-support.js';

describe('out and in', () => {
  let A: TestNode;
  let B: TestNode;
  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, allowed_currencies: ['VWL', 'USD'] });
    await connect(A, B);
  }, 60_000);
  afterAll(() => Promise.all([A, B].map((t) => t?.destroy())));

  it('out: peers cannot reach the node and a queued request waits; in: it is delivered at once', async () => {
    const out = await nodeCli(A, ['out']);
    expect(out).toMatchObject({ code: 0, body: { success: true, data: { transports: 'down', message: 'Peer transports down' } } });
    expect((await ok(B, 'POST', '/api/v1/contacts/ping/Alice')).online_status).toBe('offline');
    const hello = await fetch(`${A.node.baseUrl}/peer/v1/hello`);
    expect([hello.status, ((await hello.json()) as any).error.code]).toEqual([503, 'transports_down']);

    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'USD', fee: 0, credit: 5 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(B, 'GET', `/api/v1/contacts/${hashOf(A)}/currencies`)).body.data.currencies.map((c: any) => c.currency)).toEqual(['VWL']);
    expect((await ok(A, 'GET', '/api/v1/system/dlq')).count).toBe(0);

    expect((await nodeCli(A, ['in'])).body.data).toEqual({ transports: 'up', message: 'Peer transports up' });
    await waitFor(
      () => ok(B, 'GET', `/api/v1/contacts/${hashOf(A)}/currencies`),
      (d) => (d.currencies as any[]).some((c) => c.currency === 'USD' && c.status === 'pending'),
      'the USD request on B',
    );
    expect((await ok(B, 'POST', '/api/v1/contacts/ping/Alice')).online_status).toBe('online');
    expect((await nodeCli(A, ['in'])).body.data.message).toBe('Peer transports were already up');
  });

  it('outside test mode out and in are refused with test_mode_only', async () => {
    const prod = await startTestNode({ env: { NODE_TEST_MODE: 'false' } });
    try {
      for (const path of ['/api/v1/system/out', '/api/v1/system/in']) {
        const res = await call(prod, 'POST', path, {});
        expect([res.status, res.body.error.code]).toEqual([403, 'test_mode_only']);
      }
    } finally {
      await prod.destroy();
    }
  });
});
