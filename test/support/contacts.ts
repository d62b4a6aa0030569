import { expect } from 'vitest';
import { waitFor, type Envelope } from './api.js';
import type { TestNode } from './node.js';

/**
 * Makes A and B accepted contacts in VWL over a chosen transport: A adds B at `address` (named peer-b on A), B
 * accepts naming A's `acceptAddress` (named peer-a on B).
 */
export async function connectOver(a: TestNode, b: TestNode, address: string, acceptAddress: string): Promise<void> {
  const add = await a.admin.post<Envelope>('/api/v1/contacts', { address, name: 'peer-b', credit_limit: '10', currency: 'VWL' });
  expect(add.status).toBe(201);
  const hashA = a.node.identity.pubkeyHash;
  await waitFor(
    async () => (await b.admin.get<Envelope>('/api/v1/contacts/pending')).body.data,
    (d) => (d.counts as { incoming: number }).incoming === 1,
    'the request on B',
  );
  const decided = await b.admin.post<Envelope>(`/api/v1/contacts/${hashA}/decisions`, {
    decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '20' }],
    is_new_contact: true,
    contact_address: acceptAddress,
    contact_name: 'peer-a',
  });
  expect(decided.body.data).toMatchObject({ accepted: ['VWL'], errors: [] });
  await waitFor(
    async () => (await a.admin.get<Envelope>(`/api/v1/contacts/${encodeURIComponent('peer-b')}`)).body.data.contact?.status,
    (s) => s === 'accepted',
    'acceptance on A',
  );
}
