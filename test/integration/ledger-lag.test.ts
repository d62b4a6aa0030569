/**
 * A payment resent unchanged after a doubtful delivery, to a contact whose chain lags behind ours: the contact's own
 * last payment is settled here but not yet there (its answer is still on the way), so it names an earlier link of
 * our chain as its head. That is a lag, not a fork: the payment is re-signed onto our head, the contact answers
 * chain_busy until its own payment settles, then accepts it. Under load the concurrency test of ledger.test.ts meets
 * this; here the state is set up in the databases, as ledger-recovery.test.ts does.
 *
 * The same refusal reaches a sender whose head moved on while the contact's next payment overtook the answer: under
 * steady two-way load a payment with a high txid, which loses every tie on the chain, met it again and again and was
 * failed after MAX_REPOINTS (issue 27: `still refused after 3 re-pointings`, always a txid from e or f). Our head
 * moved since we signed, so each is progress: the second case starts with the re-pointings used up.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_REPOINTS } from '../../builtin-plugins/ledger/sender.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, connect, loseAnswer, ok, send, settled, sql, tx, waitFor } from './ledger-support.js';

const chain = async (t: TestNode): Promise<[string, string | null][]> =>
  ((await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100 })).transactions as any[])
    .filter((r) => r.status === 'completed')
    .map((r): [string, string | null] => [r.txid, r.previous_txid])
    .sort();

describe('ledger: a resend to a contact whose chain lags', () => {
  let A: TestNode;
  let E: TestNode;

  beforeEach(async () => {
    [A, E] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [A, E]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, E, { nameOfB: 'Erin' });
  }, 60_000);
  afterEach(async () => {
    await Promise.all([A, E].map((t) => t?.destroy()));
  });

  it.each([0, MAX_REPOINTS])('is re-signed onto our head and settles once the contact has caught up (%i re-pointings used)', async (used) => {
    const ports = { A: String(A.node.port), E: String(E.node.port) };
    const later = Date.now() + 3_600_000;

    // 1. Alice's payment z is signed on the empty chain while Erin is down; Alice stops before its next attempt.
    await E.stop();
    const z = await send(A, 'Erin', '1');
    await waitFor(() => tx(A, z), (v) => v?.status === 'pending' && /unreachable/.test(v.failure_reason ?? ''), 'a first delivery failure');
    await A.stop();
    sql(A, 'UPDATE ledger_tx SET next_attempt_at = ? WHERE txid = ?', later, z);
    await Promise.all([A.restart({ NODE_PORT: ports.A }), E.restart({ NODE_PORT: ports.E })]);

    // 2. Erin pays Alice twice. Alice holds both; Erin lost the answer to the second (its retry is an hour away).
    const w1 = await send(E, 'Alice', '2');
    expect((await settled(E, w1, A)).status).toBe('completed');
    const w2 = await send(E, 'Alice', '3');
    expect((await settled(E, w2, A)).status).toBe('completed');
    loseAnswer(E.dataDir, w2, 0);
    sql(E, `UPDATE ledger_tx SET status = 'pending', sending_started_at = NULL, next_attempt_at = ? WHERE txid = ?`, later, w2);
    expect((await tx(E, w2)).status).toBe('pending');

    // 3. Alice resends z as first signed (in doubt: previous null); Erin's head is w1, Alice's is w2.
    sql(A, 'UPDATE ledger_tx SET in_doubt = 1, next_attempt_at = 0, repoints = ? WHERE txid = ?', used, z);
    const z2 = await send(A, 'Erin', '0.5'); // wakes Alice's queue on this chain
    const done = await settled(A, z, E);
    expect(done).toMatchObject({ status: 'completed', previous_txid: w2, needs_review: false });
    expect(await settled(A, z2, E)).toMatchObject({ status: 'completed', previous_txid: z });
    expect(await settled(E, w2, A)).toMatchObject({ status: 'completed', previous_txid: w1 });

    expect(await balanceRow(A, E)).toMatchObject({ sent: '1.5', received: '5', net_balance: '3.5' });
    expect(await balanceRow(E, A)).toMatchObject({ sent: '5', received: '1.5', net_balance: '-3.5' });
    expect(await chain(A)).toEqual(await chain(E));
  }, 30_000);
});
