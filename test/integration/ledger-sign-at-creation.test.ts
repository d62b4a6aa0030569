/**
 * A payment created on a chain where nothing of ours is in flight is signed in the transaction that creates it, and
 * leaves on the microtask after that commits (issue 28: one payment at a time, REST call to completed). One created
 * while another is in flight and not yet handed to its worker waits in the queue and is signed behind it, not onto
 * the same chain head. The ledger service is called the way a plugin calls it, twice in one synchronous run, so both
 * are created before any microtask; the outcomes are read over the REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin, type BuiltinPlugin } from '../../sdk/index.js';
import type { LedgerService } from '../../builtin-plugins/ledger/api.js';
import type { TestNode } from '../support/node.js';
import { balanceRow, hashOf, ok, quietPair, settledAll } from './ledger-support.js';

describe('ledger: a payment on an idle chain is signed as it is created', () => {
  let A: TestNode;
  let B: TestNode;
  let ledger: LedgerService | null = null;
  const probe: BuiltinPlugin = {
    manifest: { name: 'ledger-probe', version: '0.0.0', enabled_by_default: true, requires: ['ledger'] },
    definition: definePlugin({
      setup(ctx) {
        ledger = ctx.services.use<LedgerService>('ledger');
      },
    }),
  };

  beforeAll(async () => {
    [A, B] = await quietPair([probe]);
  }, 60_000);
  afterAll(() => Promise.all([A, B].map((t) => t?.destroy())));

  it('the first of two payments created together is signed at once; the second waits and is signed onto it', async () => {
    const service = ledger!;
    const first = service.send({ contactHash: hashOf(B), amount: 150_000_000n, currency: 'VWL' });
    const second = service.send({ contactHash: hashOf(B), amount: 250_000_000n, currency: 'VWL' });
    // Read back in the same synchronous run: nothing has left the node yet, nor could any worker have run.
    const signed = service.get(first.txid)!;
    expect(signed.status).toBe('sending');
    expect(signed.content).toEqual(expect.any(String));
    expect(signed.senderSignature).toEqual(expect.any(String));
    expect(service.get(second.txid)).toMatchObject({ status: 'pending', content: null, senderSignature: null });

    const [p1, p2] = await settledAll(A, [first.txid, second.txid], B);
    expect(p1).toMatchObject({ status: 'completed', previous_txid: null, needs_review: false });
    expect(p2).toMatchObject({ status: 'completed', previous_txid: first.txid, needs_review: false });
    expect(await balanceRow(A, B)).toMatchObject({ sent: '4', received: '0', net_balance: '-4' });
    expect(await balanceRow(B, A)).toMatchObject({ sent: '0', received: '4', net_balance: '4' });
    for (const t of [A, B]) expect(await ok(t, 'GET', '/api/v1/chain/verify')).toMatchObject({ ok: true, findings: 0 });
  }, 30_000);
});
