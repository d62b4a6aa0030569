/**
 * Exports of routed payments (A pays C over the relay B): a relay's legs export as type relay, the type filter finds
 * them, every row is the listing's; the route's ends are filled where the node is one of them (the originator sends,
 * the destination receives and its router knows the origin) and left empty at the relay, which is told neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { legsSettled, line, ok, routedSend } from './routing-support.js';
import { download, exportDate, ndjson } from './exports-support.js';

async function listing(t: TestNode, query: Record<string, string> = {}): Promise<any[]> {
  return ((await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100, ...query })).transactions as any[]).reverse();
}

describe('exports of routed payments', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let hash: string;

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode()]);
    for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false });
    await line([A, B, C], { credit: '1000' });
    const sent = await routedSend(A, C, '10', { description: '=routed' });
    hash = sent.p2p_hash;
    await legsSettled([A, B, C], hash);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it('the relay: two legs of type relay, found by the type filter, no route ends', async () => {
    const rows = ndjson((await download(B, 'transactions', { format: 'json', view: 'full', type: 'relay' })).text);
    const relayed = await listing(B, { type: 'relay' });
    expect(relayed).toHaveLength(2);
    expect(rows.map((r) => [r.txid, r.direction, r.date_utc, r.routing_marker])).toEqual(relayed.map((l) => [l.txid, 'relay', exportDate(l.timestamp), hash]));
    for (const r of rows) expect(r).toMatchObject({ initial_sender_address: null, end_recipient_address: null, description: null });
    expect(ndjson((await download(B, 'transactions', { format: 'json', type: 'sent' })).text)).toEqual([]);
    expect(ndjson((await download(B, 'transactions', { format: 'json', type: 'received' })).text)).toEqual([]);
  });

  it('the originator and the destination: their own end, and the origin the destination was told', async () => {
    const [first] = ndjson((await download(A, 'transactions', { format: 'json', view: 'full' })).text).filter((r) => r.routing_marker === hash);
    const [atA] = (await listing(A)).filter((l) => l.memo === hash);
    expect(first).toMatchObject({ txid: atA.txid, direction: 'sent', description: '=routed', initial_sender_address: atA.sender_address, end_recipient_address: null });
    const [last] = ndjson((await download(C, 'transactions', { format: 'json', view: 'full' })).text).filter((r) => r.routing_marker === hash);
    const [atC] = (await listing(C)).filter((l) => l.memo === hash);
    expect(last).toMatchObject({ txid: atC.txid, direction: 'received', amount_decimal: '10.00000000', end_recipient_address: atC.receiver_address });
    expect(Object.values(A.node.addresses())).toContain(last!.initial_sender_address);
  });
});
