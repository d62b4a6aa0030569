/**
 * The Prometheus scrape endpoint through the real listener: who may read it (loopback by default, a listed address,
 * a bearer token; never an API key), and families that move with what the node does (a payment, a REST answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { scrape, sample } from '../support/metrics.js';
import { connect, ok, send, settled } from './ledger-support.js';

const TOKEN = 'scrape-token-0123456789abcdef';

describe('GET /metrics', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode({ env: { NODE_METRICS_TOKEN: TOKEN } }), startTestNode()]);
    await connect(A, B);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('a completed payment moves the payments counter and the amount per currency on both sides', async () => {
    const out = { direction: 'out', kind: 'direct', status: 'completed' };
    const before = sample((await scrape(A.node.baseUrl)).text, 'wallet_node_payments_total', out);
    const amountBefore = sample((await scrape(A.node.baseUrl)).text, 'wallet_node_payment_amount_total', { direction: 'out', kind: 'direct', currency: 'VWL' });
    expect((await settled(A, await send(A, 'Bob', '2.5'), B)).status).toBe('completed');

    const a = (await scrape(A.node.baseUrl)).text;
    expect(sample(a, 'wallet_node_payments_total', out)).toBe(before + 1);
    expect(sample(a, 'wallet_node_payment_amount_total', { direction: 'out', kind: 'direct', currency: 'VWL' })).toBeCloseTo(amountBefore + 2.5, 8);
    const b = (await scrape(B.node.baseUrl)).text;
    expect(sample(b, 'wallet_node_payments_total', { direction: 'in', kind: 'direct', status: 'completed' })).toBeGreaterThanOrEqual(1);
    // B extends 1000 to A, and A owes it what it paid: the line's utilisation on B.
    const line = { contact: A.node.identity.pubkeyHash.slice(0, 16), currency: 'VWL' };
    expect(sample(b, 'wallet_node_contact_line_utilisation_ratio', line)).toBeCloseTo(Number(amountBefore + 2.5) / 1000, 10);
  });

  it('plugins register their families: DLQ depth, backup age, route discoveries', async () => {
    const a = (await scrape(A.node.baseUrl)).text;
    expect(sample(a, 'wallet_node_dlq_pending')).toBe(0);
    expect(a).toMatch(/^# TYPE wallet_node_dlq_pending gauge$/m);
    expect(a).toMatch(/^# TYPE wallet_node_backup_last_success_timestamp_seconds gauge$/m);
    expect(a).toMatch(/^# TYPE wallet_node_route_discoveries_total counter$/m);
    expect(a).not.toMatch(/^wallet_node_backup_last_success_timestamp_seconds /m);
    await ok(A, 'POST', '/api/v1/backup/create', {});
    const newest = (await ok(A, 'GET', '/api/v1/backup/list')).backups[0];
    const after = sample((await scrape(A.node.baseUrl)).text, 'wallet_node_backup_last_success_timestamp_seconds');
    expect(after).toBe(Date.parse(newest.created_at) / 1000);
  });

  it('serves the text exposition with HTTP answers by route template, peer messages and process metrics', async () => {
    const list = await A.admin.get('/api/v1/wallet/transactions');
    expect(list.status).toBe(200);
    const res = await scrape(A.node.baseUrl);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'wallet_node_http_requests_total', { route: '/api/v1/wallet/transactions', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(res.text, 'wallet_node_http_request_duration_seconds_count', { route: '/api/v1/wallet/transactions', method: 'GET' })).toBeGreaterThanOrEqual(1);
    expect(res.text).toMatch(/^wallet_node_peer_messages_total\{direction="out",type="[a-z_.]+",result="ok"\} [1-9]/m);
    expect(res.text).toMatch(/^wallet_node_data_dir_free_bytes \d+/m);
    expect(res.text).toMatch(/^process_resident_memory_bytes \d+/m);
    // A transaction id is never a label: the route template stands for every id.
    expect(res.text).not.toMatch(/route="[^"]*[0-9a-f]{64}/);
  });

  it('refuses a client address that is not listed, and grants the bearer token from anywhere', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { metrics_allowed_addresses: ['192.0.2.1'] });
    try {
      const refused = await scrape(A.node.baseUrl);
      expect(refused.status).toBe(401);
      expect(refused.text).not.toMatch(/wallet_node_/);
      expect((await scrape(A.node.baseUrl, { Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
      // An API key's headers are no credential here.
      const signedOnly = await scrape(A.node.baseUrl, { 'X-API-Key': A.node.cliCredentials().key_id });
      expect(signedOnly.status).toBe(401);
      const granted = await scrape(A.node.baseUrl, { Authorization: `Bearer ${TOKEN}` });
      expect(granted.status).toBe(200);
      expect(granted.text).toMatch(/^wallet_node_payments_total/m);
    } finally {
      await ok(A, 'PUT', '/api/v1/system/settings', { metrics_allowed_addresses: ['127.0.0.1', '::1'] });
    }
  });

  it('without a token configured an unlisted address gets 403, and no bearer helps', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { metrics_allowed_addresses: [] });
    try {
      expect((await scrape(B.node.baseUrl)).status).toBe(403);
      expect((await scrape(B.node.baseUrl, { Authorization: `Bearer ${TOKEN}` })).status).toBe(403);
    } finally {
      await ok(B, 'PUT', '/api/v1/system/settings', { metrics_allowed_addresses: ['127.0.0.1', '::1'] });
    }
    expect((await scrape(B.node.baseUrl)).status).toBe(200);
  });

  it('the HMAC-signed system metrics route of Document 1 stays as it was', async () => {
    const res = await A.admin.get<{ data: Record<string, unknown> }>('/api/v1/system/metrics');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveProperty('plugins');
    expect((await fetch(`${A.node.baseUrl}/api/v1/system/metrics`)).status).toBe(401);
  });
});
