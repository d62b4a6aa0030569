/**
 * A leg is `completed` at its payee when the payee fulfils it (issue 11: "`completed` when fulfilled"), not when the
 * payer's chain entry arrives: the preimage the payee gives away is the payer's proof that it owes the leg. The entry
 * comes after and only places the leg in their chain. Here Carol, the destination of A → B → C, refuses Bob's chain
 * entries for a while (a filter of a test plugin on her node), as a payee whose payer's entry is late would see it:
 * - Carol's leg is completed with the balances at once, and her chain with Bob has not moved;
 * - Bob, who was paid upstream, owes the entry whatever Carol answers: it is parked in his dead letter queue and kept
 *   `pending`, never failed;
 * - once Carol takes entries again, the operator's dlq retry sends it; it takes its chain position at Carol's, and both
 *   chains verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, PeerRefusal, type BuiltinPlugin } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, tx } from './ledger-support.js';
import { hashOf, legsOf, line, ok, routedSend, waitFor } from './routing-support.js';

let refuseEntriesFrom: string | null = null;

const lateEntries: BuiltinPlugin = {
  manifest: { name: 'late-entries', version: '0.0.0', enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      ctx.peer.filter((sender, type) =>
        type === 'ledger.send' && sender.pubkeyHash === refuseEntriesFrom ? new PeerRefusal('paused', 'this node takes no chain entries from you now') : null,
      );
    },
  }),
};

let A: TestNode;
let B: TestNode;
let C: TestNode;

beforeAll(async () => {
  [A, B, C] = await Promise.all([startTestNode(), startTestNode(), startTestNode({ extraBuiltins: [lateEntries] })]);
  await line([A, B, C]);
}, 60_000);

afterAll(async () => {
  await Promise.all([A, B, C].map((t) => t?.destroy()));
});

const chainOf = async (t: TestNode, peer: TestNode): Promise<any> =>
  ((await ok(t, 'GET', '/api/v1/chain/verify')).chains as any[]).find((c) => c.contact_pubkey_hash === hashOf(peer)) ?? null;

describe('a routed leg completes at its payee when it is fulfilled', () => {
  it('completed with the balances before the chain entry comes; the late entry only places it in the chain', async () => {
    // One direct payment first, so that Carol's chain with Bob has a head the leg must not displace early.
    const direct = await ok(B, 'POST', '/api/v1/wallet/send', { address: C.node.baseUrl, amount: '1', currency: 'VWL' });
    await waitFor(() => tx(C, direct.txid), (t) => t?.status === 'completed', 'the direct payment at Carol');

    refuseEntriesFrom = hashOf(B);
    const sent = await routedSend(A, C, '10');
    const hash = sent.p2p_hash as string;
    const [atC] = await waitFor(() => legsOf(C, hash), (l) => l.length === 1 && l[0].status === 'completed', "Carol's leg completed");
    expect(atC).toMatchObject({ type: 'received', amount: '10', previous_txid: null });
    expect(await balanceRow(C, B)).toMatchObject({ received: '11', sent: '0' });
    // Bob's outgoing leg is owed: parked for the operator, still pending (not failed, not rejected).
    const item = await waitFor(
      async () => ((await ok(B, 'GET', '/api/v1/system/dlq')).items as any[]).find((i) => i.message_id === atC.txid),
      (i) => i !== undefined,
      "Bob's parked chain entry",
    );
    expect(item).toMatchObject({ status: 'pending', message_type: 'transaction' });
    expect(item.failure_reason).toMatch(/^paused: /);
    expect(await tx(B, atC.txid)).toMatchObject({ status: 'pending', type: 'relay' });
    // Carol's chain with Bob is still the direct payment alone: the leg has no place in it yet.
    expect(await chainOf(C, B)).toMatchObject({ status: 'ok', settled_count: 1 });

    refuseEntriesFrom = null;
    const retried = await ok(B, 'POST', `/api/v1/system/dlq/${item.id}/retry`);
    expect(retried.item).toMatchObject({ id: item.id, status: 'resolved' });
    for (const t of [B, C]) expect(await tx(t, atC.txid)).toMatchObject({ status: 'completed', previous_txid: direct.txid });
    expect(await balanceRow(C, B)).toMatchObject({ received: '11', sent: '0' });
    expect(await balanceRow(B, C)).toMatchObject({ received: '0', sent: '11' });
    for (const [t, peer] of [[B, C], [C, B]] as const) expect(await chainOf(t, peer)).toMatchObject({ status: 'ok', settled_count: 2, findings: 0 });
  });
});
