/**
 * autoAcceptRestoredContact (Document 2): a key this node has no contact for pings it, and the two share settled
 * history (here: Bob deleted his contact Alice, their payment stays in his ledger). On, Bob accepts Alice back at
 * once; off, she waits in his pending list and her ping is refused with unknown_contact until he decides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { call, hashOf, ok, quietPair, send, settled } from './ledger-support.js';

describe('a known key that comes back without a contact', () => {
  let A: TestNode;
  let B: TestNode;
  beforeAll(async () => {
    [A, B] = await quietPair();
    expect((await settled(A, await send(A, 'Bob', '2'), B)).status).toBe('completed');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  const comeBack = async (): Promise<{ ping: any; contact: any }> => {
    await ok(B, 'DELETE', `/api/v1/contacts/${hashOf(A)}`);
    expect((await call(B, 'GET', `/api/v1/contacts/${hashOf(A)}`)).status).toBe(404);
    const ping = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    return { ping, contact: (await ok(B, 'GET', `/api/v1/contacts/${hashOf(A)}`)).contact };
  };

  it('autoAcceptRestoredContact false: the returning key waits as a pending request and its ping is refused', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { auto_accept_restored_contact: false });
    const { ping, contact } = await comeBack();
    expect(ping.message).toMatch(/unknown_contact/);
    expect(contact).toMatchObject({ status: 'pending', restored: true });
    expect((await ok(B, 'GET', '/api/v1/contacts/pending')).pending.incoming.map((c: any) => c.pubkey_hash)).toEqual([hashOf(A)]);
  });

  it('autoAcceptRestoredContact true (the default): the shared history has it accepted back at once', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { auto_accept_restored_contact: true });
    const { ping, contact } = await comeBack();
    expect(ping.online_status).toBe('online');
    expect(ping.message).not.toMatch(/unknown_contact/);
    expect(contact).toMatchObject({ status: 'accepted', restored: true });
  });
});
