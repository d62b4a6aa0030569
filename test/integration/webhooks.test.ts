/**
 * Signed webhooks between real nodes: a receiver on loopback (allowed by the setting) gets payment.received signed
 * with the secret, fast; an unreachable receiver gets it later from the retry, once; after every attempt failed the
 * delivery waits in the dead letter queue and `dlq retry` delivers it. The receiver checks the signature with its
 * own HMAC, not the plugin's helper.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, nodeCli, nodeCliHuman, ok, send, waitFor } from './ledger-support.js';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** An HTTP receiver that records every post and answers 204; it can go away and come back on the same port. */
class Receiver {
  readonly hits: Hit[] = [];
  #server: Server | null = null;
  port = 0;

  async up(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async down(): Promise<void> {
    const server = this.#server!;
    this.#server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  of(event: string): Hit[] {
    return this.hits.filter((h) => h.headers['x-webhook-event'] === event);
  }
}

const SECRET = 'a-receiver-secret-of-32-characters';

/** The receiver's own check of X-Webhook-Signature (docs/api/webhooks.md): t=<s>,v1=<hex HMAC-SHA256(secret, "t.body")>. */
function signatureValid(hit: Hit, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers['x-webhook-signature']));
  if (!m) return false;
  const mac = createHmac('sha256', secret).update(`${m[1]}.${hit.body}`).digest('hex');
  return mac === m[2] && Math.abs(Number(m[1]) - hit.at / 1000) < 60;
}

async function webhookOf(t: TestNode, id: string): Promise<any> {
  const data = await ok(t, 'GET', '/api/v1/webhooks');
  return (data.webhooks as any[]).find((w) => w.id === id);
}

describe('signed webhooks', () => {
  let A: TestNode;
  let B: TestNode;
  const receiver = new Receiver();
  let hookId = '';

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
    await receiver.up();
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t.destroy()));
    await receiver.down().catch(() => undefined);
  });

  it('refuses a loopback target unless the setting allows it, and unknown events', async () => {
    const refused = await call(B, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['payment.received'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('webhook_target_refused');
    await ok(B, 'PUT', '/api/v1/system/settings', { webhooks_private_targets_allowed: true });
    const unknown = await call(B, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['payment.received', 'payment.teleported'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_events');
    // An unknown field named like an object member is refused with a code like any other (it had no code).
    const member = await call(B, 'POST', '/api/v1/webhooks', JSON.parse(`{"url": "${receiver.url}", "events": ["payment.received"], "constructor": 1}`));
    expect([member.status, member.body.error.code, member.body.error.field]).toEqual([400, 'validation_error', 'constructor']);
    const created = await call(B, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['payment.received'], secret: SECRET });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: receiver.url, events: ['payment.received'], secret: SECRET });
    hookId = created.body.data.id;
    const listed = await webhookOf(B, hookId);
    expect(listed).not.toHaveProperty('secret');
    expect(listed.deliveries).toEqual({ pending: 0, delivered: 0, dead: 0, last_error: null });
  });

  it('needs webhooks:write (or admin)', async () => {
    const reader = await ok(B, 'POST', '/api/v1/keys', { name: 'reader', permissions: ['wallet:read'] });
    const writer = await ok(B, 'POST', '/api/v1/keys', { name: 'hooks', permissions: ['webhooks:write'] });
    expect((await clientWithKey(B.node, reader.key_id, reader.secret).request('GET', '/api/v1/webhooks')).status).toBe(403);
    expect((await clientWithKey(B.node, writer.key_id, writer.secret).request('GET', '/api/v1/webhooks')).status).toBe(200);
  });

  it('the receiver gets payment.received, signed, within a second of the payment completing', async () => {
    const txid = await send(A, B.node.baseUrl, '7.5', 'VWL', 'for the hook');
    const [hit] = await waitFor(async () => receiver.of('payment.received'), (h) => h.length === 1, 'payment.received at the receiver');
    const body = JSON.parse(hit!.body);
    expect(body).toMatchObject({
      event: 'payment.received',
      data: { txid, type: 'received', status: 'completed', amount: '7.5', currency: 'VWL', counterparty_hash: hashOf(A), description: 'for the hook' },
    });
    expect(hit!.headers['x-webhook-id']).toBe(body.id);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(signatureValid(hit!, SECRET)).toBe(true);
    expect(signatureValid(hit!, 'another-secret-of-enough-length')).toBe(false);
    const latency = hit!.at - Date.parse(body.data.completed_at);
    expect(latency).toBeLessThan(1000);
    await waitFor(() => webhookOf(B, hookId), (w) => w.deliveries.delivered === 1, 'the delivery recorded');
  });

  it('an unreachable receiver gets the event later from the retry, once', async () => {
    await receiver.down();
    const txid = await send(A, B.node.baseUrl, '1', 'VWL');
    const failed = await waitFor(() => webhookOf(B, hookId), (w) => w.deliveries.pending === 1 && w.deliveries.last_error !== null, 'a failed first attempt');
    expect(failed.deliveries.last_error).toMatch(/unreachable|refused|ECONNREFUSED/i);
    await receiver.up();
    const hits = await waitFor(async () => receiver.of('payment.received').filter((h) => JSON.parse(h.body).data.txid === txid), (h) => h.length >= 1, 'the retried delivery', 15_000);
    expect(signatureValid(hits[0]!, SECRET)).toBe(true);
    await waitFor(() => webhookOf(B, hookId), (w) => w.deliveries.delivered === 2 && w.deliveries.pending === 0, 'the retry recorded as delivered');
    expect(receiver.of('payment.received').filter((h) => JSON.parse(h.body).data.txid === txid)).toHaveLength(1);
  }, 30_000);

  it('node-cli webhook add, list, test and remove, human and --json', async () => {
    const added = await nodeCli(B, ['webhook', 'add', receiver.url, '--events', 'payment.sent,payment.failed']);
    expect(added.code).toBe(0);
    expect(added.body.data).toMatchObject({ url: receiver.url, events: ['payment.sent', 'payment.failed'] });
    expect(added.body.data.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const id = added.body.data.id as string;

    const listed = await nodeCli(B, ['webhook', 'list']);
    expect((listed.body.data.webhooks as any[]).map((w) => w.id)).toEqual([hookId, id]);
    const human = await nodeCliHuman(B, ['webhook']);
    expect(human.code).toBe(0);
    expect(human.out).toContain('Webhooks: 2');
    expect(human.out).toContain(id);

    const tested = await nodeCli(B, ['webhook', 'test', id]);
    expect(tested.body.data.delivery).toMatchObject({ event: 'webhook.test', status: 'delivered', attempts: 1, last_error: null });
    const hit = receiver.of('webhook.test').at(-1)!;
    expect(signatureValid(hit, added.body.data.secret)).toBe(true);
    expect((await nodeCliHuman(B, ['webhook', 'test', id])).out).toContain('Delivered');

    expect((await nodeCli(B, ['webhook', 'remove', id])).body.data).toEqual({ id, removed: true });
    const gone = await nodeCli(B, ['webhook', 'remove', id]);
    expect(gone.code).not.toBe(0);
    expect(gone.body.error.code).toBe('webhook_not_found');
  });
  it('payment.sent and payment.failed at the payer, line.threshold and contact.request at the payee', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { webhooks_private_targets_allowed: true });
    await ok(A, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['payment.sent', 'payment.failed'], secret: SECRET });
    await ok(B, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['line.threshold', 'contact.request'], secret: SECRET });
    const data = (event: string): any[] => receiver.of(event).map((h) => JSON.parse(h.body).data);

    // B extends 100 to A, which owes 8.5 so far. webhookLineThresholdPercent 84: 75 more (83.5 used) stays under it,
    // where the default 80 would fire; 1 more (84.5) crosses it.
    await ok(B, 'PUT', '/api/v1/system/settings', { webhook_line_threshold_percent: 84 });
    const under = await send(A, B.node.baseUrl, '75', 'VWL');
    const over = await send(A, B.node.baseUrl, '1', 'VWL');
    await waitFor(async () => data('line.threshold'), (d) => d.length === 1, 'line.threshold');
    expect(data('line.threshold')[0]).toEqual({
      counterparty_hash: hashOf(A), currency: 'VWL', credit_limit: '100', used: '84.5', threshold_percent: 84, txid: over,
    });
    await waitFor(async () => data('payment.sent'), (d) => d.some((x) => x.txid === over), 'payment.sent of the second payment');
    expect(data('payment.sent').map((x) => x.txid)).toEqual([under, over]);
    expect(data('line.threshold')).toHaveLength(1);

    // Beyond the credit B extends: B refuses, A's payment fails.
    const refused = await send(A, B.node.baseUrl, '50', 'VWL');
    const [failed] = await waitFor(async () => data('payment.failed'), (d) => d.length === 1, 'payment.failed');
    expect(failed).toMatchObject({ txid: refused, type: 'sent', status: 'rejected', amount: '50', counterparty_hash: hashOf(B) });
    expect(failed.failure_reason).toMatch(/insufficient_credit/);

    const C = await startTestNode();
    try {
      await ok(C, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'nB', fee_percent: 0, credit_limit: '10', currency: 'VWL' });
      const [request] = await waitFor(async () => data('contact.request'), (d) => d.length === 1, 'contact.request');
      expect(request).toEqual({ pubkey_hash: hashOf(C), currency: 'VWL' });
    } finally {
      await C.destroy();
    }
    for (const h of receiver.hits) expect(signatureValid(h, SECRET) || h.headers['x-webhook-event'] === 'webhook.test').toBe(true);
  }, 30_000);
});

describe('a webhook delivery that fails every attempt', () => {
  let A: TestNode;
  let B: TestNode;
  const receiver = new Receiver();
  const previous = process.env.NODE_PEER_RETRY_BASE_MS;

  beforeAll(async () => {
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
    [A, B] = await Promise.all([startTestNode(), startTestNode({ env: { NODE_WEBHOOKS_PRIVATE_TARGETS: 'true' } })]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
    await receiver.up();
  }, 60_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previous;
    await Promise.all([A, B].map((t) => t.destroy()));
    await receiver.down().catch(() => undefined);
  });

  it('waits in the dead letter queue (no dead_letter.added about itself), and dlq retry delivers it once', async () => {
    const { id } = await ok(B, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['payment.received', 'dead_letter.added'], secret: SECRET });
    await receiver.down();
    const txid = await send(A, B.node.baseUrl, '2', 'VWL');
    const dead = await waitFor(() => ok(B, 'GET', '/api/v1/system/dlq'), (d) => (d.items as any[]).some((i) => i.message_type === 'webhook'), 'the dead letter');
    const item = (dead.items as any[]).find((i) => i.message_type === 'webhook');
    expect(item).toMatchObject({ status: 'pending', retry_count: 5, recipient_address: receiver.url, retryable: true });
    expect((await webhookOf(B, id)).deliveries).toMatchObject({ pending: 0, dead: 1 });

    await receiver.up();
    const retried = await ok(B, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect(retried.item.status).toBe('resolved');
    const hits = receiver.of('payment.received');
    expect(hits).toHaveLength(1);
    expect(JSON.parse(hits[0]!.body).data.txid).toBe(txid);
    expect(signatureValid(hits[0]!, SECRET)).toBe(true);
    expect((await webhookOf(B, id)).deliveries).toMatchObject({ pending: 0, dead: 0, delivered: 1 });
    expect(receiver.of('dead_letter.added')).toHaveLength(0);
  }, 30_000);

  it('dead_letter.added when a payment to an unreachable contact is parked (the webhook above subscribed to it)', async () => {
    await ok(A, 'POST', '/api/v1/system/out');
    try {
      const txid = await send(B, A.node.baseUrl, '1', 'VWL');
      const [added] = await waitFor(async () => receiver.of('dead_letter.added'), (h) => h.length === 1, 'dead_letter.added', 15_000);
      expect(signatureValid(added!, SECRET)).toBe(true);
      const item = (await ok(B, 'GET', '/api/v1/system/dlq')).items.find((i: any) => i.message_type === 'transaction');
      expect(JSON.parse(added!.body).data).toMatchObject({ id: item.id, message_type: 'transaction', retry_count: 5 });
      expect(item.message_id).toBe(txid);
    } finally {
      await ok(A, 'POST', '/api/v1/system/in');
    }
  }, 30_000);
});
