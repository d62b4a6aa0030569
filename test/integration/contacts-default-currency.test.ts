/**
 * defaultCurrency (Document 2): a contact request that names no currency asks in the node's default currency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { hashOf, ok, waitFor } from './ledger-support.js';

describe('a contact request without a currency', () => {
  let A: TestNode;
  let B: TestNode;
  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, allowed_currencies: ['VWL', 'USD'] });
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('defaultCurrency: asks in the default currency (USD here, not VWL)', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { default_currency: 'USD' });
    await ok(A, 'POST', '/api/v1/contacts', { address: B.node.baseUrl, name: 'Bob' });
    const mine = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}/currencies`)).currencies as any[];
    expect(mine.map((r) => [r.currency, r.status, r.direction])).toEqual([['USD', 'pending', 'outgoing']]);
    const theirs = await waitFor(() => ok(B, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'the request on Bob');
    expect(theirs.pending.incoming[0].currencies.map((r: any) => r.currency)).toEqual(['USD']);
  });
});
