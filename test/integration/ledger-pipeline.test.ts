/**
 * Pipelining per chain (issue 28): the payments queued on one chain travel in one `ledger.send` exchange, each signed
 * onto the one before it; the receiver takes them in one transaction up to the first refusal and answers each. The
 * queue is built while the payee is down, so the batch is known exactly: five payments, the third more than the
 * payee's line still allows. Exchanges are counted by the payee's own metric of messages received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestNode } from '../support/node.js';
import { sample, scrape } from '../support/metrics.js';
import { balanceRow, ok, quietPair, send, settledAll, sql, tx, waitFor } from './ledger-support.js';

const received = async (t: TestNode): Promise<number> =>
  sample((await scrape(t.node.baseUrl)).text, 'wallet_node_peer_messages_total', { direction: 'in', type: 'ledger.send', result: 'ok' });

describe('ledger: a chain queue travels in one exchange', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await quietPair();
  }, 60_000);
  afterAll(() => Promise.all([A, B].map((t) => t?.destroy())));

  it('five queued payments leave together; the refused third returns the two after it to the queue, which sends them in one more exchange', async () => {
    const ports = { A: String(A.node.port), B: String(B.node.port) };
    await B.stop();
    const first = await send(A, 'Bob', '4');
    await waitFor(() => tx(A, first), (v) => v?.status === 'pending' && /unreachable/.test(v.failure_reason ?? ''), 'a first delivery failure');
    // Queued behind the first, whose retry is not due yet: nothing else is attempted.
    const rest = [await send(A, 'Bob', '4'), await send(A, 'Bob', '5'), await send(A, 'Bob', '1'), await send(A, 'Bob', '1')];
    const all = [first, ...rest];
    for (const txid of rest) expect(await tx(A, txid)).toMatchObject({ status: 'pending', failure_reason: null });

    // Bob now extends only 10 to Alice: 4 + 4 pass, 5 more does not; A learns it only from the refusal.
    await A.stop();
    sql(A, 'UPDATE ledger_tx SET next_attempt_at = 0 WHERE txid = ?', first);
    await B.restart({ NODE_PORT: ports.B });
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '10' });
    const before = await received(B);
    await A.restart({ NODE_PORT: ports.A });

    const [p1, p2, p3, p4, p5] = await settledAll(A, all);
    expect(p1).toMatchObject({ status: 'completed', previous_txid: null });
    expect(p2).toMatchObject({ status: 'completed', previous_txid: first });
    expect(p3.status).toBe('rejected');
    expect(p3.failure_reason).toMatch(/^insufficient_credit: /);
    // Signed again onto the head after the refusal, not onto the refused payment.
    expect(p4).toMatchObject({ status: 'completed', previous_txid: rest[0] });
    expect(p5).toMatchObject({ status: 'completed', previous_txid: rest[2] });
    for (const p of [p1, p2, p4, p5]) expect(p.needs_review).toBe(false);
    expect(await tx(B, rest[1]!)).toBeNull();
    for (const txid of [first, rest[0]!, rest[2]!, rest[3]!]) expect(await tx(B, txid)).toMatchObject({ status: 'completed' });

    // One exchange for the five, one for the two the refusal sent back.
    expect((await received(B)) - before).toBe(2);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '10', received: '0', net_balance: '-10' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '0', received: '10', net_balance: '10' });
    for (const t of [A, B]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 60_000);

  it('payments crossing both ways under a backlog all complete, none re-pointed to failure', async () => {
    await ok(B, 'PUT', '/api/v1/contacts/Alice', { currency: 'VWL', credit_limit: '1000' });
    const [fromA, fromB] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => send(A, 'Bob', '0.5'))),
      Promise.all(Array.from({ length: 20 }, () => send(B, 'Alice', '0.25'))),
    ]);
    for (const [payer, payee, txids] of [[A, B, fromA], [B, A, fromB]] as const) {
      for (const done of await settledAll(payer, txids, payee)) {
        expect(done, `${done.txid}: ${done.failure_reason}`).toMatchObject({ status: 'completed', needs_review: false });
      }
    }
    // 10 before, then 20 × 0.5 out and 20 × 0.25 in.
    expect(await balanceRow(A, B)).toMatchObject({ sent: '20', received: '5', net_balance: '-15' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '5', received: '20', net_balance: '15' });
    for (const t of [A, B]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 60_000);
});
