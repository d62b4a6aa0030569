import { expect } from 'vitest';
import { waitFor } from './api.js';
/**
 * Makes A and B accepted contacts in VWL over a chosen transport: A adds B at `address` (named peer-b on A), B
 * accepts naming A's `acceptAddress` (named peer-a on B).
 */
export async function connectOver(a, b, address, acceptAddress) {
    const add = await a.admin.post('/api/v1/contacts', { address, name: 'peer-b', credit_limit: '10', currency: 'VWL' });
    expect(add.status).toBe(201);
    const hashA = a.node.identity.pubkeyHash;
    await waitFor(async () => (await b.admin.get('/api/v1/contacts/pending')).body.data, (d) => d.counts.incoming === 1, 'the request on B');
    const decided = await b.admin.post(`/api/v1/contacts/${hashA}/decisions`, {
        decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '20' }],
        is_new_contact: true,
        contact_address: acceptAddress,
        contact_name: 'peer-a',
    });
    expect(decided.body.data).toMatchObject({ accepted: ['VWL'], errors: [] });
    await waitFor(async () => (await a.admin.get(`/api/v1/contacts/${encodeURIComponent('peer-b')}`)).body.data.contact?.status, (s) => s === 'accepted', 'acceptance on A');
}
//# sourceMappingURL=contacts.js.map