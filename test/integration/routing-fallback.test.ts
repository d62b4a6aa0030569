/**
 * Payments a direct line cannot carry go over a route (issue 11). A payment request paid over a route (Document 1: approve "sends the payment through the full transaction pipeline
 * (P2P routing, ...)"): the requester C and the payer A are contacts, but the credit C extends to A (1 VWL) cannot
 * carry the 50 VWL asked; A and C are also linked through B, who charges 1 %. Approving pays over A → B → C: the
 * request ends approved on both sides, C receives exactly 50 from B, A pays 50.5, B earns 0.5, and the direct line
 * between A and C is untouched. A plain send to the contact does the same when the amount is above the credit it
 * last reported, and goes straight over the line when it fits; a refusal for want of credit updates what it last
 * reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { settled } from './ledger-support.js';
import { call, connect, dec, feeEarnings, hashOf, legsSettled, line, netOf, ok, setFee, waitFor } from './routing-support.js';

let A: TestNode;
let B: TestNode;
let C: TestNode;

beforeAll(async () => {
  [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
  for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { hop_budget_randomized: false, contact_status_enabled: false });
  await line([A, B, C]);
  await setFee(B, A, '1');
  await connect(C, A, { creditAtoB: '1', creditBtoA: '1', nameOfB: 'payer', nameOfA: 'requester' });
});

afterAll(async () => {
  await Promise.all([A, B, C].map((t) => t?.destroy()));
});

async function request(t: TestNode, direction: 'incoming' | 'outgoing', id: string): Promise<any> {
  const data = await ok(t, 'GET', '/api/v1/requests');
  return (data[direction] as any[]).find((r) => r.request_id === id);
}

describe('a payment request the direct line cannot carry', () => {
  it('is paid over a route: approved on both sides, the requester gets exactly the amount, the payer pays the fee on top', async () => {
    const direct = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(C)}`)).contact.currencies.find((r: any) => r.currency === 'VWL');
    expect(direct.my_available_credit).toBe('1');
    const created = await ok(C, 'POST', '/api/v1/requests', { contact: 'payer', amount: '50', currency: 'VWL', description: 'rent' });
    const id = created.request_id as string;
    await waitFor(() => request(A, 'incoming', id), (r) => r?.status === 'pending', 'the request at the payer');

    const approved = await call(A, 'POST', '/api/v1/requests/approve', { request_id: id, payer_note: 'March' });
    expect(approved.status).toBe(200);
    expect(approved.body.message).toMatch(/over a route/);
    const hash = approved.body.data.p2p_hash as string;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);

    const [[first], , [last]] = await legsSettled([A, B, C], hash);
    expect(first).toMatchObject({ status: 'completed', amount: '50.5' });
    expect(last).toMatchObject({ status: 'completed', amount: '50', description: 'payment: rent | March' });
    const payer = await waitFor(() => request(A, 'incoming', id), (r) => r?.status === 'approved', 'approved at the payer');
    expect(payer.resulting_txid).toBe(first.txid);
    const requester = await waitFor(() => request(C, 'outgoing', id), (r) => r?.status === 'approved', 'approved at the requester');
    expect(requester.resulting_txid).toBe(last.txid);

    expect((await netOf(A)).toFixed()).toBe('-50.5');
    expect((await netOf(C)).toFixed()).toBe('50');
    expect(await feeEarnings(B)).toBe('0.5');
    // Nothing moved on the direct line between them.
    const rowsOfA = (await ok(A, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100 })).transactions as any[];
    expect(rowsOfA.map((t) => t.counterparty_pubkey_hash)).toEqual([hashOf(B)]);
    expect(dec((await ok(A, 'GET', `/api/v1/contacts/${hashOf(C)}`)).contact.balance.net).toFixed()).toBe('0');
  });

  it('a second approval of the same request is refused and pays nothing', async () => {
    const created = await ok(C, 'POST', '/api/v1/requests', { contact: 'payer', amount: '20', currency: 'VWL' });
    const id = created.request_id as string;
    await waitFor(() => request(A, 'incoming', id), (r) => r?.status === 'pending', 'the request at the payer');
    const [one, two] = await Promise.all([
      call(A, 'POST', '/api/v1/requests/approve', { request_id: id }),
      call(A, 'POST', '/api/v1/requests/approve', { request_id: id }),
    ]);
    expect([one.status, two.status].sort()).toEqual([200, 400]);
    const refused = one.status === 400 ? one : two;
    expect(refused.body.error.code).toBe('invalid_request');
    const hash = (one.status === 200 ? one : two).body.data.p2p_hash as string;
    await legsSettled([A, B, C], hash);
    await waitFor(() => request(C, 'outgoing', id), (r) => r?.status === 'approved', 'approved at the requester');
    expect((await netOf(C)).toFixed()).toBe('70');
    expect((await netOf(A)).toFixed()).toBe('-70.7');
  });
});

describe('a send the direct line cannot carry', () => {
  it('goes over a route when the amount passes the credit the contact reported; straight over the line when it fits', async () => {
    const before = { A: await netOf(A), C: await netOf(C) };
    const routed = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'requester', amount: '5', currency: 'VWL' });
    expect(routed).toMatchObject({ type: 'p2p', recipient: 'requester', amount: '5', total: '5.05', fee: '0.05' });
    await legsSettled([A, B, C], routed.p2p_hash);
    const direct = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'requester', amount: '0.5', currency: 'VWL' });
    expect(direct).toMatchObject({ type: 'standard', recipient: 'requester' });
    expect((await settled(A, direct.txid, C)).status).toBe('completed');
    expect((await netOf(C)).minus(before.C).toFixed()).toBe('5.5');
    expect((await netOf(A)).minus(before.A).toFixed()).toBe('-5.55');
    expect(dec((await ok(C, 'GET', `/api/v1/contacts/${hashOf(A)}`)).contact.balance.net).toFixed()).toBe('0.5');
  });

  const available = async (): Promise<string> =>
    (await ok(A, 'GET', `/api/v1/contacts/${hashOf(C)}`)).contact.currencies.find((r: any) => r.currency === 'VWL').my_available_credit;

  it('a refusal for want of credit tells the node what the line carries: the next send goes over a route', async () => {
    // C lowers the credit it extends to A without telling it: A owes it 0.5, so 0.45 is left where A counts 0.5.
    expect(await available()).toBe('0.5');
    await ok(C, 'PUT', `/api/v1/contacts/${hashOf(A)}`, { currency: 'VWL', credit_limit: '0.95' });
    const refused = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'requester', amount: '0.48', currency: 'VWL' });
    expect(refused.type).toBe('standard');
    const row = await settled(A, refused.txid);
    expect(row.status).toBe('rejected');
    expect(row.failure_reason).toMatch(/^insufficient_credit/);
    expect(await available()).toBe('0.45');
    // Over B, who charges 1%: the direct line is left alone.
    const again = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'requester', amount: '0.48', currency: 'VWL' });
    expect(again).toMatchObject({ type: 'p2p', amount: '0.48', total: '0.4848', fee: '0.0048' });
    await legsSettled([A, B, C], again.p2p_hash);
    expect(dec((await ok(C, 'GET', `/api/v1/contacts/${hashOf(A)}`)).contact.balance.net).toFixed()).toBe('0.5');
  });
});
