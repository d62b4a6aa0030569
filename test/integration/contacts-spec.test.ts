/**
 * Contacts against the letter of Document 1 where an audit found the node answering otherwise: the ping route's
 * `chain_valid` is a boolean, and an accept that gives no credit takes the requester's suggested credit
 * (`requested_credit_limit`, "shown pre-filled to the recipient"), the recipient's default only without one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hashOf, ok, waitFor } from '../support/api.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';

/** The row of a currency in `t`'s currency listing of `peer`. */
const rowOn = async (t: TestNode, peer: TestNode, currency: string): Promise<Record<string, unknown> | undefined> =>
  ((await ok(t, 'GET', `/api/v1/contacts/${hashOf(peer)}/currencies`)).currencies as Record<string, unknown>[]).find((r) => r.currency === currency);

/** Waits until `peer`'s request in `currency` is pending on `t`. */
const requestArrives = (t: TestNode, peer: TestNode, currency: string): Promise<unknown> =>
  waitFor(
    async () => (await call(t, 'GET', `/api/v1/contacts/${hashOf(peer)}/currencies`)).body.data?.currencies ?? [],
    (rows) => (rows as { currency: string; status: string }[]).some((r) => r.currency === currency && r.status === 'pending'),
    `the ${currency} request on the recipient`,
  );

describe('contacts: Document 1 details', () => {
  // A asks B (and D); C asks B too. D is stopped by the ping test.
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode;

  beforeAll(async () => {
    [A, B, C, D] = await Promise.all(Array.from({ length: 4 }, () => startTestNode()));
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD', 'EUR'] });
  });
  afterAll(() => Promise.all([A, B, C, D].map((t) => t?.destroy())));

  it('POST /contacts/ping/:address: chain_valid is a boolean even when no pong ever verified the chains', async () => {
    // An accepted contact never pinged, whose node is down (nothing left queued toward it).
    await connect(A, D, { nameOfB: 'Dora' });
    expect((await ok(A, 'GET', '/api/v1/contacts/Dora')).contact.chain_valid).toBeNull();
    await D.stop();
    const res = await call(A, 'POST', '/api/v1/contacts/ping/Dora');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ contact_name: 'Dora', online_status: 'offline', chain_valid: false, message: expect.any(String) });
    // The contact record itself still says the verdict is unknown.
    expect((await ok(A, 'GET', '/api/v1/contacts/Dora')).contact).toMatchObject({ online_status: 'offline', chain_valid: null });
  });

  it('an accept without credit takes the requested credit limit (a suggestion)', async () => {
    await ok(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', currency: 'VWL', requested_credit_limit: 40 });
    await requestArrives(B, A, 'VWL');
    const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0 }],
      is_new_contact: true,
      contact_address: A.node.baseUrl,
      contact_name: 'Alice',
    });
    expect(res).toMatchObject({ accepted: ['VWL'], errors: [] });
    expect(await rowOn(B, A, 'VWL')).toMatchObject({ status: 'accepted', credit_limit: '40' });
    // The requester learns what it was granted.
    await waitFor(() => rowOn(A, B, 'VWL'), (r) => r?.status === 'accepted' && r.my_available_credit === '40', 'the acceptance on A');
  });

  it('an accept without credit never takes a suggestion above the default; an enforced minimum above it needs an explicit credit (currency-accept)', async () => {
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'USD', fee: 0, credit: 5, requested_credit_limit: '250.5', requested_credit_enforced: true });
    await requestArrives(B, A, 'USD');
    // The requester may not choose its own limit: without a credit the default (100) applies, below its minimum.
    const unstated = await call(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'USD', fee: 1 });
    expect([unstated.status, unstated.body.error?.code]).toEqual([400, 'requested_minimum_unmet']);
    expect(await rowOn(B, A, 'USD')).toMatchObject({ status: 'pending' });
    const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'USD', fee: 1, credit: '250.5' });
    expect(res).toEqual({ accepted: ['USD'], declined: [], errors: [] });
    expect(await rowOn(B, A, 'USD')).toMatchObject({ status: 'accepted', fee_percent: 1, credit_limit: '250.5' });
    await waitFor(() => rowOn(A, B, 'USD'), (r) => r?.status === 'accepted' && r.my_available_credit === '250.5', 'the USD acceptance on A');
    // An explicit credit is still the operator's word: below the enforced minimum it is refused.
    await ok(A, 'POST', `/api/v1/contacts/${hashOf(B)}/currencies`, { currency: 'EUR', requested_credit_limit: 30, requested_credit_enforced: true });
    await requestArrives(B, A, 'EUR');
    const low = await call(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'EUR', fee: 0, credit: 10 });
    expect([low.status, low.body.error?.code]).toEqual([400, 'requested_minimum_unmet']);
  });

  it('an accept without credit and without a requested credit takes the default credit limit (100)', async () => {
    await ok(C, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', currency: 'VWL' });
    await requestArrives(B, C, 'VWL');
    const res = await ok(B, 'POST', `/api/v1/contacts/${hashOf(C)}/currency-accept`, { currency: 'VWL' });
    expect(res).toEqual({ accepted: ['VWL'], declined: [], errors: [] });
    expect(await rowOn(B, C, 'VWL')).toMatchObject({ status: 'accepted', fee_percent: 0, credit_limit: '100' });
    await waitFor(() => rowOn(C, B, 'VWL'), (r) => r?.status === 'accepted' && r.my_available_credit === '100', 'the acceptance on C');
  });

  it('adding a known contact again: a new currency is "sent" (the peer is up), a pending one keeps its terms', async () => {
    // C and B are contacts (VWL); C asks for USD through POST /contacts again.
    const usd = await ok(C, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', currency: 'USD', fee_percent: 1, credit_limit: '20' });
    expect(usd.message).toBe('Contact request sent to Bob in USD');
    await requestArrives(B, C, 'USD');
    // Asked again with other terms: resent as it stands, the stored terms kept and named.
    const again = await call(C, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', currency: 'USD', fee_percent: 3, credit_limit: '999' });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ status: 'pending', name: 'Bob' });
    expect(again.body.data.message).toMatch(/sent again with the terms already stored \(fee 1%, credit 20\)/);
    expect(await rowOn(C, B, 'USD')).toMatchObject({ status: 'pending', fee_percent: 1, credit_limit: '20' });
  });
});
