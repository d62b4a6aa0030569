/**
 * verify-chain (issue 15, scope 2): the audit of every settled chain, through `GET /api/v1/chain/verify` and
 * `node-cli verify-chain`. Alice and Bob trade payments both ways; both chains verify. Then Alice's database is edited
 * with her node stopped (as a damaged disk or a careless operator would): an amount changed, a signature spoilt, a row
 * deleted. Each shows as its own finding, the CLI exits 1, and Bob's side still verifies.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, hashOf, nodeCli, nodeCliHuman, ok, tradeInOrder } from './ledger-support.js';

let A: TestNode;
let B: TestNode;
let txids: string[];

beforeAll(async () => {
  [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  await connect(A, B);
  txids = await tradeInOrder([[A, 'Bob', '10', B], [B, 'Alice', '2.5', A], [A, 'Bob', '0.00000001', B], [A, 'Bob', '7', B], [B, 'Alice', '1', A]]);
});

afterAll(async () => {
  await Promise.all([A, B].map((t) => t?.destroy()));
});

/** Edits Alice's database with her node stopped, then starts her again. */
async function editAlice(sql: string, ...params: unknown[]): Promise<void> {
  await A.stop();
  const db = new Database(join(A.dataDir, 'node.db'));
  try {
    expect(db.prepare(sql).run(...params).changes).toBe(1);
  } finally {
    db.close();
  }
  await A.restart();
}

describe('verify-chain', () => {
  it('both sides of a sound chain verify: five settled, chain OK, no checkpoint yet', async () => {
    for (const [t, other] of [[A, B], [B, A]] as const) {
      const report = await ok(t, 'GET', '/api/v1/chain/verify');
      expect(report).toMatchObject({ ok: true, findings: 0, count: 1 });
      expect(report.chains[0]).toEqual({
        contact_name: t === A ? 'Bob' : 'Alice',
        contact_pubkey_hash: hashOf(other),
        currency: 'VWL',
        settled_count: 5,
        status: 'ok',
        findings: 0,
        gaps: [],
        forks: [],
        rows: [],
        balance: null,
        checkpoint: 'none',
      });
    }
    const cli = await nodeCli(A, ['verify-chain']);
    expect(cli.code).toBe(0);
    expect(cli.body.data).toMatchObject({ ok: true, count: 1 });
    const human = await nodeCliHuman(A, ['verify-chain']);
    expect(human).toEqual({ code: 0, out: 'Bob VWL: 5 settled, chain OK, checkpoint none\nAll 1 chain(s) verify.\n' });
    expect((await ok(A, 'GET', '/api/v1/chain/verify', undefined, { currency: 'USD' })).count).toBe(0);
    expect((await ok(A, 'GET', '/api/v1/chain/verify', undefined, { contact_pubkey_hash: hashOf(B) })).count).toBe(1);
  });

  it('an amount changed in the database disagrees with the signed content and with the stored balance', async () => {
    await editAlice(`UPDATE ledger_tx SET amount_whole = 1000 WHERE txid = ?`, txids[0]);
    const report = await ok(A, 'GET', '/api/v1/chain/verify');
    const chain = report.chains[0];
    expect(chain.status).toBe('fail');
    expect(chain.rows).toEqual([{ txid: txids[0], problem: 'content', detail: "the row's amount is not what its signed content says" }]);
    expect(chain.balance).toEqual({ stored: { received: '3.5', sent: '17.00000001' }, computed: { received: '3.5', sent: '1007.00000001' } });
    await editAlice(`UPDATE ledger_tx SET amount_whole = 10 WHERE txid = ?`, txids[0]);
    expect((await ok(A, 'GET', '/api/v1/chain/verify')).ok).toBe(true);
  });

  it('a spoilt signature is found, and the CLI exits 1 with the report', async () => {
    await editAlice(`UPDATE ledger_tx SET recipient_sig = ? WHERE txid = ?`, 'A'.repeat(86), txids[1]);
    const chain = (await ok(A, 'GET', '/api/v1/chain/verify')).chains[0];
    expect(chain.rows).toEqual([{ txid: txids[1], problem: 'recipient_signature', detail: 'the recipient signature does not verify' }]);
    const cli = await nodeCli(A, ['verify-chain']);
    expect(cli.code).toBe(1);
    expect(cli.body.error.code).toBe('CHAIN_FINDINGS');
    expect(cli.body.error).toMatchObject({ message: '1 finding(s) in 1 chain(s)', ok: false, findings: 1 });
    expect(cli.body.error.chains[0].rows[0].txid).toBe(txids[1]);
    const human = await nodeCliHuman(A, ['verify-chain']);
    expect(human.code).toBe(1);
    expect(human.out).toBe(`Bob VWL: 5 settled, FAIL, checkpoint none\n  recipient signature: ${txids[1]!.slice(0, 12)}… the recipient signature does not verify\n`);
  });

  it('a deleted row is a gap: what is missing, what it breaks, what comes before', async () => {
    await editAlice(`DELETE FROM ledger_tx WHERE txid = ?`, txids[2]);
    const chain = (await ok(A, 'GET', '/api/v1/chain/verify')).chains[0];
    expect(chain.settled_count).toBe(4);
    expect(chain.gaps).toEqual([{ missing_txid: txids[2], broken_txid: txids[3], before_txid: txids[1] }]);
    expect(chain.findings).toBe(3); // the gap, the spoilt signature, the balance the deleted row still counts in
    // Bob's side is untouched.
    expect((await ok(B, 'GET', '/api/v1/chain/verify')).ok).toBe(true);
  });
});
