/**
 * The listings search on the node (issue 31, scope 3). GET /wallet/transactions: description, txid prefix, amount range,
 * days, sort and order combine with Document 1's filters, and pagination.total counts what they match; GET /requests
 * and GET /contacts filter and count the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, ok, send, settledAll } from './ledger-support.js';

let A: TestNode;
let B: TestNode;
const sent: Record<string, string> = {};

const list = async (query: Record<string, string | number>): Promise<{ txids: string[]; total: number }> => {
  const r = await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, query);
  return { txids: r.transactions.map((t: any) => t.txid), total: r.pagination.total };
};

beforeAll(async () => {
  [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  await connect(A, B);
  for (const [amount, description] of [
    ['1', 'Coffee beans'],
    ['2.5', 'coffee 100%_pure'],
    ['10', 'rent'],
    ['0.25', 'tea'],
  ] as const) {
    sent[description] = await send(A, 'Bob', amount, 'VWL', description);
  }
  await settledAll(A, Object.values(sent), B);
}, 60_000);
afterAll(async () => {
  await Promise.all([A, B].map((t) => t?.destroy()));
});

describe('GET /wallet/transactions search', () => {
  it('q finds descriptions case-insensitively and takes % and _ literally', async () => {
    expect(await list({ q: 'COFFEE' })).toEqual({ txids: [sent['coffee 100%_pure'], sent['Coffee beans']], total: 2 });
    expect(await list({ q: '%_' })).toEqual({ txids: [sent['coffee 100%_pure']], total: 1 });
    expect(await list({ q: '_' })).toEqual({ txids: [sent['coffee 100%_pure']], total: 1 });
  });

  it('txid matches a prefix', async () => {
    const txid = sent.rent!;
    expect((await list({ txid: txid.slice(0, 10).toUpperCase() })).txids).toEqual([txid]);
  });

  it('amount_min and amount_max bound the amount, both inclusive; a bad bound is refused', async () => {
    expect(await list({ amount_min: '1', amount_max: '2.5' })).toEqual({ txids: [sent['coffee 100%_pure'], sent['Coffee beans']], total: 2 });
    expect((await list({ amount_min: '2.50000001' })).txids).toEqual([sent.rent]);
    const bad = await call(A, 'GET', '/api/v1/wallet/transactions?amount_min=abc');
    expect({ status: bad.status, code: bad.body.error.code }).toEqual({ status: 400, code: 'invalid_amount' });
  });

  it('from and to are UTC days, both included', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect((await list({ from: today, to: today })).total).toBe(4);
    expect((await list({ to: '2020-01-01' })).total).toBe(0);
    const bad = await call(A, 'GET', '/api/v1/wallet/transactions?from=2026-02-30');
    expect(bad.status).toBe(400);
  });

  it('sorts by amount either way, and pages what the filters match', async () => {
    expect((await list({ sort: 'amount', order: 'asc' })).txids).toEqual([sent.tea, sent['Coffee beans'], sent['coffee 100%_pure'], sent.rent]);
    expect((await list({ sort: 'amount' })).txids).toEqual([sent.rent, sent['coffee 100%_pure'], sent['Coffee beans'], sent.tea]);
    expect((await list({ order: 'asc', limit: 2, offset: 1 }))).toEqual({ txids: [sent['coffee 100%_pure'], sent.rent], total: 4 });
    expect(await list({ q: 'coffee', contact: 'Bob', type: 'sent', status: 'completed', limit: 1 })).toEqual({ txids: [sent['coffee 100%_pure']], total: 2 });
  });
});

describe('GET /requests filters', () => {
  it('status, q and days narrow each direction, and pagination gives each direction its total', async () => {
    const ids: string[] = [];
    for (const description of ['March rent', 'april RENT', 'books']) {
      ids.push((await ok(A, 'POST', '/api/v1/requests', { contact: 'Bob', amount: '1', currency: 'VWL', description })).request_id);
    }
    await ok(A, 'DELETE', `/api/v1/requests/${ids[2]}`);
    const q = async (query: Record<string, string | number>) => {
      const r = await ok(A, 'GET', '/api/v1/requests', undefined, query);
      return { ids: r.outgoing.map((x: any) => x.request_id), total: r.pagination.outgoing_total, incoming: r.pagination.incoming_total };
    };
    expect(await q({})).toEqual({ ids: [ids[2], ids[1], ids[0]], total: 3, incoming: 0 });
    expect(await q({ q: 'rent' })).toEqual({ ids: [ids[1], ids[0]], total: 2, incoming: 0 });
    expect(await q({ status: 'cancelled' })).toEqual({ ids: [ids[2]], total: 1, incoming: 0 });
    expect(await q({ limit: 1, offset: 1 })).toEqual({ ids: [ids[1]], total: 3, incoming: 0 });
    expect(await q({ to: '2020-01-01' })).toEqual({ ids: [], total: 0, incoming: 0 });
  });
});

describe('GET /contacts q', () => {
  it('matches a name, an address or a key hash prefix within the status, and counts them', async () => {
    await ok(A, 'POST', '/api/v1/contacts', { address: 'http://127.0.0.1:9', name: 'Nobody', credit_limit: '1' });
    const names = async (query: Record<string, string>) => {
      const r = await ok(A, 'GET', '/api/v1/contacts', undefined, query);
      return { names: r.contacts.map((c: any) => c.name), total: r.total };
    };
    expect(await names({ q: 'BO', status: 'all' })).toEqual({ names: ['Bob', 'Nobody'], total: 2 });
    expect(await names({ q: 'bo' })).toEqual({ names: ['Bob'], total: 1 });
    expect(await names({ q: hashOf(B).slice(0, 6), status: 'all' })).toEqual({ names: ['Bob'], total: 1 });
    expect(await names({ q: '127.0.0.1:9', status: 'pending' })).toEqual({ names: ['Nobody'], total: 1 });
    expect(await names({ q: 'zzz', status: 'all' })).toEqual({ names: [], total: 0 });
  });
});
