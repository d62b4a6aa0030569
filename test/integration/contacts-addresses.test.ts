/**
 * A node whose hostname setting changes tells its contacts (`contact.addresses`, queued): each replaces the addresses
 * it stores for that node with the ones of the signed envelope, and reaches it there from then on. Without the notice a
 * known address is never overwritten by what a message announces (a node without a hostname announces its loopback URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok, waitFor } from './ledger-support.js';

describe('contacts: a node announces its new addresses', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    await connect(A, B, { nameOfB: 'Bob', nameOfA: 'Alice' });
    await connect(C, B, { nameOfB: 'Bob', nameOfA: 'Carol' });
    // Carol blocks Bob: her node refuses whatever Bob's sends.
    await ok(C, 'POST', '/api/v1/contacts/block/Bob');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  const addressesOfBob = async (t: TestNode) => (await ok(t, 'GET', '/api/v1/contacts/Bob')).contact.addresses;

  it('after a hostname change each contact stores the new addresses and reaches the node there; one that blocked it does not', async () => {
    const port = B.node.port;
    expect(await addressesOfBob(A)).toMatchObject({ http: `http://127.0.0.1:${port}` });
    const carolBefore = await addressesOfBob(C);

    await ok(B, 'PUT', '/api/v1/system/settings', { hostname: `http://localhost:${port}` });
    expect(B.node.addresses()).toMatchObject({ http: `http://localhost:${port}`, https: `https://localhost:${port}` });
    // Each announced address is verified on its own (a hello there), so the two kinds may land one after the other.
    const updated = await waitFor(
      () => addressesOfBob(A),
      (a) => a.http === `http://localhost:${port}` && a.https === `https://localhost:${port}`,
      'the new addresses on Alice',
    );
    expect(updated).toEqual({ http: `http://localhost:${port}`, https: `https://localhost:${port}`, tor: null });

    const pong = await ok(A, 'POST', '/api/v1/contacts/ping/Bob');
    expect(pong.online_status).toBe('online');
    // Carol's node refused the notice (she blocked Bob): her copy is as it was; a refusal is final, so nothing waits in
    // Bob's dead letter queue.
    expect(await addressesOfBob(C)).toEqual(carolBefore);
    expect((await ok(B, 'GET', '/api/v1/system/dlq', undefined, { status: 'all' })).items).toEqual([]);
  });
});
