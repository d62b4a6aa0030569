/**
 * The winner of a crossing lets the other side go next (receiver.ts, the chain rule; sender.ts, yieldTo). Both nodes'
 * first payments are held on the network until both are in flight, signed onto the same head, with four more of each
 * queued behind them; then both are delivered at once. The lower txid goes first and the other is refused
 * `chain_busy` with `yields`. The winner holds its four queued payments until the loser's retry lands, so the loser's
 * payment links straight onto the winner's. Before, the winner's next batch left as soon as its first was answered,
 * ahead of the loser's backed-off retry, and a node with a steady stream won every crossing (a soak left 15,000 of one
 * node's payments queued on one chain for minutes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryNetwork } from '../../kernel/peers/transport-memory.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, connect, ok, send, settledAll, waitFor } from './ledger-support.js';

describe('a crossing on a chain', () => {
  const network = new MemoryNetwork();
  /** While set, exchanges wait here until released (both first payments in flight at once). */
  let held: (() => void)[] | null = null;
  network.link = (_exchange, deliver) =>
    held === null ? deliver() : new Promise((resolve, reject) => held!.push(() => void deliver().then(resolve, reject)));
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode({ network }), startTestNode({ network })]);
    for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(A, B, { creditAtoB: '1000', creditBtoA: '1000' });
    // One payment each way first: both chains hold a head, both nodes each other's key.
    await settledAll(A, [await send(A, 'Bob', '1')], B);
    await settledAll(B, [await send(B, 'Alice', '1')], A);
  });
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  it("the loser's payment links straight onto the winner's, ahead of the winner's queued ones", async () => {
    held = [];
    const [a1, b1] = await Promise.all([send(A, 'Bob', '2'), send(B, 'Alice', '3')]);
    await waitFor(() => Promise.resolve(held!.length), (n) => n === 2, 'both first payments in flight');
    const aMore = [];
    const bMore = [];
    for (let i = 0; i < 4; i++) {
      aMore.push(await send(A, 'Bob', '1.5'));
      bMore.push(await send(B, 'Alice', '2.5'));
    }
    const release = held!;
    held = null;
    for (const deliver of release) deliver();
    const [aRows, bRows] = await Promise.all([settledAll(A, [a1, ...aMore], B), settledAll(B, [b1, ...bMore], A)]);
    expect([...aRows, ...bRows].map((r) => r.status)).toEqual(Array(10).fill('completed'));

    const [winner, loser] = a1 < b1 ? [a1, b1] : [b1, a1];
    const winnerMore = winner === a1 ? aMore : bMore;
    const chain = new Map<string, string | null>();
    for (const t of [A, B]) {
      const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100 });
      for (const row of page.transactions as { txid: string; previous_txid: string | null }[]) chain.set(row.txid, row.previous_txid);
    }
    expect(chain.get(loser), 'the loser follows the winner').toBe(winner);
    // The winner's queued payments come after the loser's (and its own queued ones, sent with it).
    expect(winnerMore.some((txid) => chain.get(txid) === winner)).toBe(false);
    // Both sides hold the same chain, and the books agree: A paid 1 + 2 + 6, B paid 1 + 3 + 10.
    const heads = await Promise.all([A, B].map((t) => ok(t, 'GET', '/api/v1/chain/verify')));
    expect(heads.map((v) => [v.ok, v.chains[0].settled_count])).toEqual([
      [true, 12],
      [true, 12],
    ]);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '9', received: '14' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '14', received: '9' });
  });
});
