/**
 * Transaction-chain sync (issue 15, scope 1), two real nodes on loopback. Alice and Bob trade six payments; rows lost
 * from Alice's database (edited with her node stopped) come back from Bob by `POST /api/v1/system/sync {type:
 * transactions}`, every signature checked: her chain verifies again, her balances are what they were, and the next
 * payment continues the chain. A row Bob serves with a spoilt signature is refused and reported, and nothing of it is
 * stored.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, editStopped, hashOf, nodeCliHuman, ok, send, settled, tradeInOrder, waitFor } from './ledger-support.js';

let A: TestNode;
let B: TestNode;
let txids: string[];

beforeAll(async () => {
  [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  await connect(A, B);
  txids = await tradeInOrder([[A, 'Bob', '10', B], [B, 'Alice', '2.5', A], [A, 'Bob', '3', B], [A, 'Bob', '0.5', B], [B, 'Alice', '1', A], [A, 'Bob', '4', B]]);
});

afterAll(async () => {
  await Promise.all([A, B].map((t) => t?.destroy()));
});


const balanceWithBob = async (): Promise<unknown> => (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`)).contact.balance;
const syncTransactions = async (t: TestNode): Promise<any> => (await ok(t, 'POST', '/api/v1/system/sync', { type: 'transactions' })).results.transactions;

describe('transaction-chain sync', () => {
  it('rows lost from one side come back from the other, checked; the chain and the balances are whole again', async () => {
    const before = await balanceWithBob();
    expect(before).toEqual({ currency: 'VWL', received: '3.5', sent: '17.5', net: '-14' });
    const lost = txids.slice(1, 4);
    await editStopped(A, lost.map((txid) => [`DELETE FROM ledger_tx WHERE txid = ?`, txid]));
    const broken = (await ok(A, 'GET', '/api/v1/chain/verify')).chains[0];
    expect(broken.gaps).toEqual([{ missing_txid: txids[3], broken_txid: txids[4], before_txid: txids[0] }]);

    const result = await syncTransactions(A);
    expect(result.imported).toBe(3);
    expect(result.broken).toBe(0);
    expect(result.report).toEqual(['Bob VWL: 6 pulled, 3 restored, 0 refused, 6 settled; chain OK']);
    expect(result.chains).toEqual([
      {
        pubkey_hash: hashOf(B),
        contact_name: 'Bob',
        currency: 'VWL',
        pulled: 6,
        imported: lost,
        refused: [],
        stopped: null,
        settled: 6,
        chain_ok: true,
        gaps: [],
      },
    ]);
    expect(await balanceWithBob()).toEqual(before);
    expect((await ok(A, 'GET', '/api/v1/chain/verify')).ok).toBe(true);
    const restored = await ok(A, 'GET', `/api/v1/wallet/transactions/${txids[2]}`);
    expect(restored.transaction).toMatchObject({ status: 'completed', type: 'sent', amount: '3', previous_txid: txids[1] });

    // The chain goes on from its real head.
    const next = await send(A, 'Bob', '1');
    expect((await settled(A, next, B)).status).toBe('completed');
    expect((await ok(A, 'GET', `/api/v1/wallet/transactions/${next}`)).transaction.previous_txid).toBe(txids[5]);
    txids.push(next);
    // A sync with nothing missing changes nothing.
    const again = await syncTransactions(A);
    expect(again).toMatchObject({ imported: 0, broken: 0 });
    expect(again.chains[0]).toMatchObject({ pulled: 7, imported: [], refused: [] });
  });

  it('a ping that shows the chains disagree starts the pull: no operator needed', async () => {
    const before = await balanceWithBob();
    await editStopped(A, [txids[2]!, txids[3]!].map((txid) => [`DELETE FROM ledger_tx WHERE txid = ?`, txid]));
    expect((await ok(A, 'GET', '/api/v1/chain/verify')).ok).toBe(false);
    await ok(B, 'POST', `/api/v1/contacts/ping/${hashOf(A)}`);
    await waitFor(() => ok(A, 'GET', '/api/v1/chain/verify'), (r) => r.ok === true, "Alice's chain whole again");
    expect(await balanceWithBob()).toEqual(before);
  });

  it('contactStatusSyncOnPing false: a ping that shows the chains disagree pulls nothing, on either side', async () => {
    await editStopped(A, [[`DELETE FROM ledger_tx WHERE txid = ?`, txids[2]]]);
    const pulls = (): number => readFileSync(join(A.dataDir, 'node.log'), 'utf8').split('\n').filter((l) => l.includes('chain sync after a ping')).length;
    const before = pulls();
    try {
      await ok(A, 'PUT', '/api/v1/system/settings', { contact_status_sync_on_ping: false });
      await ok(B, 'PUT', '/api/v1/system/settings', { contact_status_sync_on_ping: false });
      // Bob's ping asks Alice not to sync (request_sync false); Alice's own ping does not sync either.
      expect((await ok(B, 'POST', `/api/v1/contacts/ping/${hashOf(A)}`)).chain_valid).toBe(false);
      expect((await ok(A, 'POST', `/api/v1/contacts/ping/${hashOf(B)}`)).chain_valid).toBe(false);
      await new Promise((r) => setTimeout(r, 500));
      expect(pulls()).toBe(before);
      expect((await ok(A, 'GET', '/api/v1/chain/verify')).ok).toBe(false);
      // Alice's setting alone decides her own ping: on, it pulls.
      await ok(A, 'PUT', '/api/v1/system/settings', { contact_status_sync_on_ping: true });
      await ok(A, 'POST', `/api/v1/contacts/ping/${hashOf(B)}`);
      await waitFor(() => ok(A, 'GET', '/api/v1/chain/verify'), (r) => r.ok === true, "Alice's chain whole again");
    } finally {
      for (const t of [A, B]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_sync_on_ping: true });
    }
  });

  it('a payment refused for a chain head this node lacks starts the pull; the next payment goes through', async () => {
    const head = txids[6]!;
    await editStopped(A, [[`DELETE FROM ledger_tx WHERE txid = ?`, head]]);
    const first = await send(A, 'Bob', '1');
    const failed = await settled(A, first);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.failure_reason).toMatch(/^chain_mismatch/);
    await waitFor(() => ok(A, 'GET', `/api/v1/wallet/transactions/${head}`).catch(() => null), (r) => r?.transaction.status === 'completed', 'the head back');
    const second = await send(A, 'Bob', '1');
    expect((await settled(A, second, B)).status).toBe('completed');
    expect((await ok(A, 'GET', `/api/v1/wallet/transactions/${second}`)).transaction.previous_txid).toBe(head);
    txids.push(second);
  });

  it('a row served with a spoilt signature is refused and reported; nothing of it is stored', async () => {
    await editStopped(A, [[`DELETE FROM ledger_tx WHERE txid = ?`, txids[0]]]);
    await editStopped(B, [[`UPDATE ledger_tx SET sender_sig = ? WHERE txid = ?`, 'A'.repeat(86), txids[0]]]);
    const result = await syncTransactions(A);
    expect(result.chains[0]).toMatchObject({
      imported: [],
      refused: [{ txid: txids[0], reason: 'the sender signature does not verify' }],
      chain_ok: false,
      gaps: [{ missing_txid: txids[0], broken_txid: txids[1] }],
    });
    expect((await ok(A, 'GET', `/api/v1/wallet/transactions`)).transactions.map((t: any) => t.txid)).not.toContain(txids[0]);
    const human = await nodeCliHuman(A, ['sync', 'transactions']);
    expect(human.code).toBe(0);
    const served = txids.length;
    expect(human.out).toContain(`Bob VWL: ${served} pulled, 0 restored, 1 refused, ${served - 1} settled; 1 gap(s) remain (first missing ${txids[0]!.slice(0, 12)}…)`);
  });

  it("a contact is served its own chain only: another contact of Bob's pulls none of Alice's rows", async () => {
    const C = await startTestNode();
    try {
      await connect(C, B, { nameOfB: 'Bob', nameOfA: 'Carol' });
      const result = await syncTransactions(C);
      expect(result).toEqual({
        chains: [{ pubkey_hash: hashOf(B), contact_name: 'Bob', currency: 'VWL', pulled: 0, imported: [], refused: [], stopped: null, settled: 0, chain_ok: true, gaps: [] }],
        imported: 0,
        broken: 0,
        report: ['Bob VWL: 0 pulled, 0 restored, 0 refused, 0 settled; chain OK'],
      });
    } finally {
      await C.destroy();
    }
  });
});

describe('a payment finds a gap', () => {
  let P: TestNode;
  let Q: TestNode;
  afterAll(async () => {
    await Promise.all([P, Q].map((t) => t?.destroy()));
  });

  it('the first payment on a chain with a gap audits it and pulls the missing rows from the contact', async () => {
    [P, Q] = await Promise.all([startTestNode(), startTestNode()]);
    for (const t of [P, Q]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(P, Q, { nameOfB: 'Quinn', nameOfA: 'Pat' });
    const rows = await tradeInOrder([[P, 'Quinn', '1', Q], [Q, 'Pat', '2', P], [P, 'Quinn', '3', Q]]);
    const port = P.node.port;
    await P.stop();
    const db = new Database(join(P.dataDir, 'node.db'));
    db.prepare('DELETE FROM ledger_tx WHERE txid = ?').run(rows[1]);
    db.close();
    await P.restart({ NODE_PORT: String(port) });
    expect((await ok(P, 'GET', '/api/v1/chain/verify')).ok).toBe(false);

    const next = await send(P, 'Quinn', '0.5');
    expect((await settled(P, next, Q)).status).toBe('completed');
    const repaired = await waitFor(() => ok(P, 'GET', '/api/v1/chain/verify'), (r) => r.ok, 'the chain repaired after the payment');
    expect(repaired.chains[0].settled_count).toBe(4);
    expect((await ok(P, 'GET', `/api/v1/wallet/transactions/${rows[1]}`)).transaction).toMatchObject({ status: 'completed', amount: '2' });
  });
});
