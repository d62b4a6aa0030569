/**
 * Payment requests between real nodes: create and deliver, approve through the payment pipeline with the exact
 * description rule, decline and cancel reaching the other side, retry after a failed payment, delivery later when
 * the peer was down, expiry, listing shapes and errors.
 */
import { createServer } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, ok, settled, tx, waitFor } from './ledger-support.js';

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const list = (t: TestNode) => ok(t, 'GET', '/api/v1/requests');
const find = async (t: TestNode, direction: 'incoming' | 'outgoing', id: string) =>
  ((await list(t))[direction] as any[]).find((r) => r.request_id === id) ?? null;
const waitStatus = (t: TestNode, direction: 'incoming' | 'outgoing', id: string, status: string) =>
  waitFor(() => find(t, direction, id), (r) => r?.status === status, `${direction} ${id.slice(0, 8)} ${status}`);

async function request(from: TestNode, contact: string, amount: string, description?: string): Promise<string> {
  const res = await call(from, 'POST', '/api/v1/requests', { contact, amount, currency: 'VWL', ...(description !== undefined ? { description } : {}) });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.request_id;
}

describe('payment requests', () => {
  let A: TestNode; // requester
  let B: TestNode; // payer

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    // Alice extends Bob 100: Bob may owe Alice up to 100, so Bob's payments to Alice are capped there.
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('create: 201 with request_id and message, stored outgoing/pending at once and delivered incoming/pending', async () => {
    const res = await call(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '12.5', currency: 'VWL', description: 'March rent' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    const id = res.body.data.request_id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const out = await find(A, 'outgoing', id);
    expect(out).toMatchObject({ request_id: id, direction: 'outgoing', status: 'pending', contact_name: 'Bob', amount: '12.5', currency: 'VWL', description: 'March rent' });
    expect(out.created_at).toMatch(TIME);
    expect(typeof out.id).toBe('number');
    const incoming = await waitStatus(B, 'incoming', id, 'pending');
    expect(incoming).toMatchObject({ direction: 'incoming', contact_name: 'Alice', amount: '12.5', description: 'March rent', requester_address: A.node.addresses().https });
    expect(incoming).not.toHaveProperty('resulting_txid');
  });

  it('approve with a note pays through the pipeline with the exact description; the requester learns it on completion', async () => {
    const id = await request(A, 'Bob', '7.25', 'March rent');
    await waitStatus(B, 'incoming', id, 'pending');
    const res = await call(B, 'POST', '/api/v1/requests/approve', { request_id: id, payer_note: 'paid early' });
    expect(res.status).toBe(200);
    expect(typeof res.body.message).toBe('string');
    const txid = res.body.data.txid;
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    await settled(B, txid, A);
    const paid = await waitStatus(B, 'incoming', id, 'approved');
    expect(paid).toMatchObject({ resulting_txid: txid });
    expect(paid.responded_at).toMatch(TIME);
    const out = await waitStatus(A, 'outgoing', id, 'approved');
    expect(out.resulting_txid).toBe(txid);
    expect((await tx(A, txid)).description).toBe('payment: March rent | paid early');
    expect((await tx(B, txid)).description).toBe('payment: March rent | paid early');
    expect((await tx(A, txid)).amount).toBe('7.25');

    const again = await call(B, 'POST', '/api/v1/requests/approve', { request_id: id });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_request');
  });

  it('the prefix is dropped past 255 characters; a note over the cap is payer_note_too_long; blank notes count as none', async () => {
    const desc = 'd'.repeat(240);
    const long = await request(A, 'Bob', '0.01', desc);
    await waitStatus(B, 'incoming', long, 'pending');
    const tooLong = await call(B, 'POST', '/api/v1/requests/approve', { request_id: long, payer_note: 'n'.repeat(13) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('payer_note_too_long');
    expect((await find(B, 'incoming', long)).status).toBe('pending');
    const okRes = await ok(B, 'POST', '/api/v1/requests/approve', { request_id: long, payer_note: 'n'.repeat(12) });
    await settled(B, okRes.txid, A);
    expect((await tx(B, okRes.txid)).description).toBe(`${desc} | ${'n'.repeat(12)}`);

    const full = await request(A, 'Bob', '0.01', 'f'.repeat(253));
    await waitStatus(B, 'incoming', full, 'pending');
    const noRoom = await call(B, 'POST', '/api/v1/requests/approve', { request_id: full, payer_note: 'x' });
    expect(noRoom.body.error.code).toBe('payer_note_too_long');
    expect(noRoom.body.error.message).toMatch(/leaves no room/);

    const blank = await ok(B, 'POST', '/api/v1/requests/approve', { request_id: full, payer_note: '   ' });
    await settled(B, blank.txid, A);
    expect((await tx(B, blank.txid)).description).toBe('f'.repeat(253));
  });

  it('decline reaches the requester', async () => {
    const id = await request(A, 'Bob', '3');
    await waitStatus(B, 'incoming', id, 'pending');
    const res = await call(B, 'POST', '/api/v1/requests/decline', { request_id: id });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(typeof res.body.message).toBe('string');
    expect((await find(B, 'incoming', id)).status).toBe('declined');
    const out = await waitStatus(A, 'outgoing', id, 'declined');
    expect(out.responded_at).toMatch(TIME);
    expect((await call(B, 'POST', '/api/v1/requests/decline', { request_id: id })).body.error.code).toBe('invalid_request');
  });

  it('cancel reaches the recipient; only the requester cancels, only while pending', async () => {
    const id = await request(A, 'Bob', '4');
    await waitStatus(B, 'incoming', id, 'pending');
    const wrongSide = await call(B, 'DELETE', `/api/v1/requests/${id}`);
    expect(wrongSide.status).toBe(400);
    const res = await call(A, 'DELETE', `/api/v1/requests/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(typeof res.body.message).toBe('string');
    await waitStatus(B, 'incoming', id, 'cancelled');
    expect((await call(A, 'DELETE', `/api/v1/requests/${id}`)).body.error.code).toBe('invalid_request');
    expect((await call(B, 'POST', '/api/v1/requests/approve', { request_id: id })).body.error.code).toBe('invalid_request');
    expect((await call(A, 'DELETE', `/api/v1/requests/${'9'.repeat(32)}`)).status).toBe(404);
  });

  it('a failed payment fails the request; retry pays it again with a fresh payment once it can succeed', async () => {
    // Bob may owe Alice at most 100: ask for more than is left of that line.
    const id = await request(A, 'Bob', '150', 'too much for the line');
    await waitStatus(B, 'incoming', id, 'pending');
    const first = await ok(B, 'POST', '/api/v1/requests/approve', { request_id: id, payer_note: 'trying' });
    expect((await settled(B, first.txid)).status).toBe('rejected');
    const failed = await waitStatus(B, 'incoming', id, 'failed');
    expect(failed.failure_reason).toMatch(/insufficient_credit/);
    expect((await find(A, 'outgoing', id)).status).toBe('pending');

    expect((await call(B, 'POST', '/api/v1/requests/retry', { request_id: 'nope-nope-nope' })).body.error.code).toBe('retry_failed');
    const pendingOne = await request(A, 'Bob', '1');
    await waitStatus(B, 'incoming', pendingOne, 'pending');
    expect((await call(B, 'POST', '/api/v1/requests/retry', { request_id: pendingOne })).body.error.code).toBe('retry_failed');
    expect((await call(A, 'POST', '/api/v1/requests/retry', { request_id: pendingOne })).body.error.code).toBe('retry_failed');

    // Alice raises the line; the retry goes through.
    await ok(A, 'PUT', '/api/v1/contacts/Bob', { currency: 'VWL', credit_limit: '1000' });
    const second = await call(B, 'POST', '/api/v1/requests/retry', { request_id: id });
    expect(second.status).toBe(200);
    expect(typeof second.body.message).toBe('string');
    expect(second.body.data.txid).not.toBe(first.txid);
    expect((await settled(B, second.body.data.txid, A)).status).toBe('completed');
    expect((await waitStatus(B, 'incoming', id, 'approved')).resulting_txid).toBe(second.body.data.txid);
    expect((await waitStatus(A, 'outgoing', id, 'approved')).resulting_txid).toBe(second.body.data.txid);
    expect((await tx(A, second.body.data.txid)).description).toBe('payment: too much for the line | trying');
  });

  it('errors: unknown request, wrong direction, bad input', async () => {
    const unknown = await call(B, 'POST', '/api/v1/requests/approve', { request_id: 'f'.repeat(32) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('request_not_found');
    const id = await request(A, 'Bob', '1');
    const own = await call(A, 'POST', '/api/v1/requests/approve', { request_id: id });
    expect(own.status).toBe(400);
    expect(own.body.error.code).toBe('invalid_request');
    expect((await call(A, 'POST', '/api/v1/requests/decline', { request_id: id })).body.error.code).toBe('invalid_request');
    expect((await call(A, 'POST', '/api/v1/requests/approve', {})).body.error.code).toBe('missing_field');

    const bad = (body: Record<string, unknown>) => call(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '1', currency: 'VWL', ...body });
    expect((await bad({ amount: '-1' })).body.error.code).toBe('invalid_amount');
    expect((await bad({ amount: '1.000000001' })).body.error.code).toBe('invalid_amount');
    expect((await bad({ currency: 'EUR' })).body.error.code).toBe('invalid_currency');
    expect((await bad({ description: 'x'.repeat(256) })).body.error.code).toBe('invalid_description');
    const nobody = await bad({ contact: 'Nobody' });
    expect([nobody.status, nobody.body.error.code]).toEqual([404, 'contact_not_found']);
    // contact_not_found is a 404 (Document 1, Errors): an empty name is not found either; a non-string is malformed.
    const empty = await bad({ contact: '' });
    expect([empty.status, empty.body.error.code]).toEqual([404, 'contact_not_found']);
    const number = await bad({ contact: 5 });
    expect([number.status, number.body.error.code]).toEqual([400, 'validation_error']);
    expect((await bad({ address_type: 'pigeon' })).body.error.code).toBe('invalid_address');
    expect((await bad({ address_type: 'tor' })).body.error.code).toBe('invalid_address');
    expect((await call(A, 'POST', '/api/v1/requests', { contact: 'Bob', currency: 'VWL' })).body.error.code).toBe('missing_field');
  });

  it('list: both directions, newest first, limit per direction (default 50, cap 200)', async () => {
    const l = await list(A);
    expect(Array.isArray(l.incoming)).toBe(true);
    expect(l.outgoing.length).toBeGreaterThan(3);
    expect(l.outgoing[0].id).toBeGreaterThan(l.outgoing[1].id);
    const two = await ok(A, 'GET', '/api/v1/requests', undefined, { limit: 2 });
    expect(two.outgoing.length).toBe(2);
    // offset (Document 1, common query parameters) pages each direction.
    const next = await ok(A, 'GET', '/api/v1/requests', undefined, { limit: 2, offset: 2 });
    expect(next.outgoing.map((r: any) => r.request_id)).toEqual(l.outgoing.slice(2, 4).map((r: any) => r.request_id));
    expect((await ok(A, 'GET', '/api/v1/requests', undefined, { offset: 100_000 })).outgoing).toEqual([]);
    expect((await call(A, 'GET', '/api/v1/requests', undefined, { offset: -1 })).status).toBe(400);
    expect((await call(A, 'GET', '/api/v1/requests', undefined, { limit: 1000 })).status).toBe(200);
  });

  it('a pending request past its expiry becomes expired on each side', async () => {
    const id = await request(A, 'Bob', '2');
    await waitStatus(B, 'incoming', id, 'pending');
    for (const t of [A, B]) {
      const db = new Database(`${t.dataDir}/node.db`);
      db.pragma('busy_timeout = 5000');
      db.prepare('UPDATE payment_requests SET expires_at = ? WHERE request_id = ?').run(Date.now() - 1000, id);
      db.close();
    }
    expect((await find(A, 'outgoing', id)).status).toBe('expired');
    expect((await find(B, 'incoming', id)).status).toBe('expired');
    expect((await call(B, 'POST', '/api/v1/requests/approve', { request_id: id })).body.error.code).toBe('invalid_request');
  });

  it('a request to a node that is down stays stored and is delivered when it is back', async () => {
    const port = await freePort();
    const env = { NODE_PORT: String(port) };
    const C = await startTestNode({ env });
    try {
      await connect(A, C, { nameOfB: 'Carol' });
      await C.stop();
      const id = await request(A, 'Carol', '5', 'while you were away');
      expect((await find(A, 'outgoing', id)).status).toBe('pending');
      await C.restart(env);
      const incoming = await waitStatus(C, 'incoming', id, 'pending');
      expect(incoming).toMatchObject({ amount: '5', description: 'while you were away', contact_name: 'Alice' });
      expect(hashOf(C)).toBeTruthy();
    } finally {
      await C.destroy();
    }
  }, 30_000);
});
