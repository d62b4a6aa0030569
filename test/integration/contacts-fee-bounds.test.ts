/**
 * The minFee and maxFee settings bound every fee percent the operator sets for a contact: on add, update and accept
 * (Document 2: "fee floor and ceiling percent"). Each step would pass if the setting were ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, hashOf, ok, waitFor } from './ledger-support.js';

describe('contacts: fee percents within minFee..maxFee', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  const code = (res: { status: number; body: any }) => [res.status, res.body.error?.code];

  it('maxFee caps the fee on add; raising it lets the same add through', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 2 });
    const high = await call(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', fee_percent: 2.5 });
    expect(code(high)).toEqual([400, 'invalid_fee']);
    expect(high.body.error.message).toContain('between 0 and 2');
    expect((await call(A, 'GET', '/api/v1/contacts/Bob')).status).toBe(404);
    await ok(A, 'PUT', '/api/v1/system/settings', { max_fee: 3 });
    // The exponent rule of amounts holds for fees too, as a string or a number.
    expect((await call(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob', fee_percent: '25e-1' })).status).toBe(201);
    expect((await ok(A, 'GET', '/api/v1/contacts/Bob')).contact.currencies[0]).toMatchObject({ fee_percent: 2.5 });
  });

  it('minFee floors the fee on update and on accept', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { min_fee: 1 });
    await waitFor(() => call(B, 'GET', `/api/v1/contacts/${hashOf(A)}/currencies`), (r) => r.status === 200, 'the request on B');
    const low = await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/decisions`, {
      decisions: [{ currency: 'VWL', action: 'accept', fee: 0.5, credit: 10 }],
      is_new_contact: true,
      contact_address: A.node.baseUrl,
      contact_name: 'Alice',
    });
    expect(low).toMatchObject({ accepted: [], errors: [{ currency: 'VWL', code: 'invalid_fee' }] });
    // No fee given: defaultFee (0) is below the floor too, and says which setting is off.
    const unstated = await call(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'VWL', credit: 10 });
    expect(code(unstated)).toEqual([400, 'invalid_fee']);
    expect(unstated.body.error.message).toContain('defaultFee');
    await ok(B, 'POST', `/api/v1/contacts/${hashOf(A)}/currency-accept`, { currency: 'VWL', fee: 1, credit: 10, contact_name: 'Alice' });

    const update = await call(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', fee_percent: 0.25 });
    expect(code(update)).toEqual([400, 'invalid_fee']);
    await ok(B, 'PUT', '/api/v1/system/settings', { min_fee: 0 });
    expect((await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', fee_percent: 0.25 })).updated).toMatchObject({ fee_percent: 0.25 });
  });
});
