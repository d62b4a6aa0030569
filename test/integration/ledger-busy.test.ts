/**
 * `chain_busy` under a backlog both ways (issue 27's soak). Two payments signed onto the same head at once: the lower
 * txid goes first, the contact answers the other `chain_busy` while it settles its own (receiver.ts, the chain rule).
 * Meanwhile the contact's payment lands here and our head moves: the busy answer is progress, not a stuck chain. Every
 * busy answer used to count toward MAX_BUSY_RETRIES, so a payment with a high txid, which loses every tie, failed
 * after 61 of them while the contact's own payments kept landing (10 of 20,000 in the soak, every txid from fb to ff).
 * The simulator never met it, so the state is set up in the databases, as ledger-lag.test.ts does: the payment has
 * used up its busy answers and meets one more, once with our head moved (it is re-signed and completes), once with
 * it standing still (the limit still fails it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BUSY_RETRIES } from '../../builtin-plugins/ledger/sender.js';
import type { Clock } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, connect, loseAnswer, ok, send, settled, sql, tx, waitFor } from './ledger-support.js';

/** A node's clock that can be stopped: while it is held, the node's retries (due in its time) wait. */
function holdableClock(): Clock & { hold(): void; release(): void } {
  let held: number | null = null;
  return {
    now: () => held ?? Date.now(),
    hold: () => void (held = Date.now()),
    release: () => void (held = null),
  };
}

const inAnHour = (): number => Date.now() + 3_600_000;

/** Sends while the payee is down: the payment stays pending after its first delivery failure (nothing delivered). */
async function sendWhileDown(t: TestNode, name: string, amount: string): Promise<string> {
  const txid = await send(t, name, amount);
  await waitFor(() => tx(t, txid), (v) => v?.status === 'pending' && /unreachable/.test(v.failure_reason ?? ''), 'a first delivery failure');
  return txid;
}

/** Turns the payee's record of its own completed payment back to "answer lost", its next attempt an hour away. */
async function loseOwnAnswer(t: TestNode, txid: string): Promise<void> {
  const port = String(t.node.port);
  await t.stop();
  loseAnswer(t.dataDir, txid, 0);
  sql(t, `UPDATE ledger_tx SET status = 'pending', sending_started_at = NULL, next_attempt_at = ? WHERE txid = ?`, inAnHour(), txid);
  await t.restart({ NODE_PORT: port });
  expect((await tx(t, txid)).status).toBe('pending');
}

const verified = async (t: TestNode): Promise<void> => {
  expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
};

describe('ledger: chain_busy counts only while our chain head stands still', () => {
  let A: TestNode;
  let B: TestNode;
  let clockA: ReturnType<typeof holdableClock>;
  let clockB: ReturnType<typeof holdableClock>;

  beforeEach(async () => {
    [clockA, clockB] = [holdableClock(), holdableClock()];
    [A, B] = await Promise.all([startTestNode({ clock: clockA }), startTestNode({ clock: clockB })]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, B);
  }, 60_000);
  afterEach(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it('a busy answer after the contact\'s own payment landed here does not count: re-signed, it completes', async () => {
    const ports = new Map([[A, String(A.node.port)], [B, String(B.node.port)]]);
    const start = (t: TestNode): Promise<void> => t.restart({ NODE_PORT: ports.get(t)! });

    // 1. Each signs a payment onto the empty chain while the other is down.
    await B.stop();
    const a = await sendWhileDown(A, 'Bob', '1');
    await A.stop();
    await start(B);
    const b = await sendWhileDown(B, 'Alice', '2');
    await B.stop();

    // 2. The higher txid loses the tie: its payer H is the one that starved. L's payment w goes first and lands on H
    //    (H's own z, signed on the same head, yields to it); then L loses the answer, its retry an hour away.
    const [H, L, z, w, clockH] = a > b ? [A, B, a, b, clockA] : [B, A, b, a, clockB];
    sql(H, 'UPDATE ledger_tx SET next_attempt_at = ? WHERE txid = ?', inAnHour(), z);
    sql(L, 'UPDATE ledger_tx SET next_attempt_at = 0 WHERE txid = ?', w);
    await start(H);
    await start(L);
    expect(await settled(L, w, H)).toMatchObject({ status: 'completed', previous_txid: null });
    await loseOwnAnswer(L, w);

    // 3. H resends z as first signed (in doubt: previous null, no longer H's head), its busy answers used up. Its
    //    clock is held, so the retry after L's busy answer waits until L has settled w (as it does at once: L expedites
    //    its own payment when it answers busy) instead of racing it.
    await H.stop();
    sql(H, 'UPDATE ledger_tx SET in_doubt = 1, busy_retries = ?, next_attempt_at = 0 WHERE txid = ?', MAX_BUSY_RETRIES, z);
    clockH.hold();
    await start(H);
    expect(await settled(L, w, H)).toMatchObject({ status: 'completed', previous_txid: null });
    clockH.release();

    // 4. The busy answer came while H's head had moved (to w): it did not count; z is re-signed onto w and completes.
    const done = await settled(H, z, L);
    expect(done, `z ended ${done.status}: ${done.failure_reason}`).toMatchObject({ status: 'completed', previous_txid: w, needs_review: false });
    expect(await tx(L, z)).toMatchObject({ status: 'completed', previous_txid: w });
    expect(await tx(H, w)).toMatchObject({ status: 'completed', previous_txid: null });
    expect(await balanceRow(A, B)).toMatchObject({ sent: '1', received: '2', net_balance: '1' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '2', received: '1', net_balance: '-1' });
    await verified(A);
    await verified(B);
  }, 60_000);

  it(`the ${MAX_BUSY_RETRIES + 1}st busy answer while our head stands still fails the payment: the limit holds`, async () => {
    const ports = { A: String(A.node.port), B: String(B.node.port) };

    // 1. Bob's payment w lands on Alice; Bob loses the answer, its retry an hour away.
    const w = await send(B, 'Alice', '2');
    expect((await settled(B, w, A)).status).toBe('completed');
    await loseOwnAnswer(B, w);

    // 2. Alice signs z onto her head w while Bob is down, then has her busy answers used up.
    await B.stop();
    const z = await sendWhileDown(A, 'Bob', '1');
    await A.stop();
    sql(A, 'UPDATE ledger_tx SET in_doubt = 0, busy_retries = ?, next_attempt_at = 0 WHERE txid = ?', MAX_BUSY_RETRIES, z);
    await B.restart({ NODE_PORT: ports.B });
    await A.restart({ NODE_PORT: ports.A });

    // 3. Bob answers busy (z's previous is his unsettled w) and Alice's head has not moved since she signed: it counts.
    const failed = await settled(A, z);
    expect(failed).toMatchObject({ status: 'failed', previous_txid: w });
    expect(failed.failure_reason).toMatch(/^chain_busy: /);
    expect(await settled(B, w, A)).toMatchObject({ status: 'completed' });
    expect(await tx(B, z)).toBeNull();
    expect(await balanceRow(A, B)).toMatchObject({ sent: '0', received: '2', net_balance: '2' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '2', received: '0', net_balance: '-2' });
    await verified(A);
    await verified(B);
  }, 60_000);
});
