/**
 * A fulfilled routed leg is owed: its payee holds the preimage and the relay was paid upstream with it, so the relay
 * never gives its entry up. The chain-mismatch refusal used to be a way round that rule: a relay whose chain with the
 * payee lacks its head (the row lost here, as a restore from an older backup loses it) signed the leg onto the older
 * head, the payee refused it naming a head the relay did not know, and the leg was failed while the payee counted it.
 * Now the leg is parked, chain sync fetches the missing head, and the leg is re-signed onto it and completes.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { send, settled } from './ledger-support.js';
import { hashOf, legsSettled, line, ok, routedSend } from './routing-support.js';

describe('ledger: a fulfilled routed leg refused for a chain mismatch', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  const previous = process.env.NODE_PEER_RETRY_BASE_MS;

  beforeAll(async () => {
    // The parked leg's next attempt comes after the longest delivery backoff: 16 x the base.
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await line([A, B, C]);
  }, 60_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previous;
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it('is parked, not failed, and completes on the head chain sync brings back', async () => {
    // B's chain with C gets a head, which B then loses.
    const head = await send(B, 'n2', '1');
    expect((await settled(B, head, C)).status).toBe('completed');
    const port = String(B.node.port);
    await B.stop();
    const db = new Database(`${B.dataDir}/node.db`);
    db.prepare('DELETE FROM ledger_tx WHERE txid = ?').run(head);
    db.close();
    await B.restart({ NODE_PORT: port });

    const sent = await routedSend(A, C, '5');
    const [a, b, c] = await legsSettled([A, B, C], sent.p2p_hash, 30_000);
    const toC = b!.find((l) => l.counterparty_pubkey_hash === hashOf(C));
    expect(toC).toMatchObject({ status: 'completed', previous_txid: head });
    expect([...a!, ...b!, ...c!].map((l) => l.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect((await ok(B, 'GET', '/api/v1/chain/verify')).ok).toBe(true);
  }, 60_000);
});
