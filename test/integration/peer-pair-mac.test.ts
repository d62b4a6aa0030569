/**
 * Pair MACs between two nodes started as the README starts them (docs/protocol.md, section 4): once a node has
 * verified one signed request of a contact, the contact's next requests carry an HMAC under the key the two sealing
 * keys agree on instead of an Ed25519 signature. A receiver that restarted (and so holds no bound key) refuses the MAC
 * with `signature_required`, and the sender sends the same message again, signed, at once: the payment settles on its
 * first attempt, and the MACs resume.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, connect, send, settled } from './ledger-support.js';

function attemptsOf(t: TestNode, txid: string): number {
  const db = new Database(`${t.dataDir}/node.db`, { readonly: true });
  const row = db.prepare('SELECT attempts FROM ledger_tx WHERE txid = ?').get(txid) as { attempts: number };
  db.close();
  return row.attempts;
}

describe('pair MACs between contacts', () => {
  let A: TestNode;
  let B: TestNode;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '1000', creditBtoA: '1000' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
  });

  /** The pair keys A computes toward B: one per request A authenticates by MAC (the key is agreed once, then reused). */
  const macsFromA = (): (() => number) => {
    const spy = vi.spyOn(A.node.identity, 'pairKey');
    return () => spy.mock.calls.filter(([key, direction]) => direction === 'to' && Buffer.compare(key, B.node.identity.sealingPublicKey) === 0).length;
  };

  it('a contact that verified one signed request takes MACs from then on, and checks them', async () => {
    await settled(A, await send(A, 'Bob', '1'), B);
    const count = macsFromA();
    const verified = vi.spyOn(B.node.identity, 'pairKey');
    const second = await send(A, 'Bob', '2');
    expect((await settled(A, second, B)).status).toBe('completed');
    expect(count()).toBe(1);
    // B derived the key for requests from A to check that MAC.
    expect(verified.mock.calls.some(([key, direction]) => direction === 'from' && Buffer.compare(key, A.node.identity.sealingPublicKey) === 0)).toBe(true);
    vi.restoreAllMocks();
  });

  it('after the receiver restarts, a MAC it can no longer check is refused and sent again signed: the payment settles on its first attempt', async () => {
    await B.restart({ NODE_PORT: String(B.node.port) });
    const count = macsFromA();
    const after = await send(A, 'Bob', '3');
    expect((await settled(A, after, B)).status).toBe('completed');
    // One MAC (refused with signature_required), then the signed resend: no failed attempt was recorded.
    expect(count()).toBe(1);
    expect(attemptsOf(A, after)).toBe(0);
    // The signed request bound A's key again on B: the next one travels with a MAC and is taken.
    const next = await send(A, 'Bob', '4');
    expect((await settled(A, next, B)).status).toBe('completed');
    expect(count()).toBe(2);
    expect(attemptsOf(A, next)).toBe(0);
    expect(await balanceRow(A, B)).toMatchObject({ sent: '10', received: '0' });
    expect(await balanceRow(B, A)).toMatchObject({ received: '10', sent: '0' });
    vi.restoreAllMocks();
  });
});
