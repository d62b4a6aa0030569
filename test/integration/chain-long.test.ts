/**
 * A chain longer than the chunks it is read in: 230 payments, so verify-chain reads its rows in several chunks of
 * AUDIT_CHUNK (64) and a sync serves them in pages of 100 (chain.rows offset and limit, read a page at a time from the
 * database). Rows lost from Alice's database, beyond the first page, all come back; a signature spoilt beyond the first
 * chunks is the one finding verify-chain reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_CHUNK } from '../../builtin-plugins/ledger/store/chains.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, editStopped, hashOf, ok, send, settledAll } from './ledger-support.js';

const PAYMENTS = 230;
let A: TestNode;
let B: TestNode;
let txids: string[];


beforeAll(async () => {
  [A, B] = await Promise.all([startTestNode(), startTestNode()]);
  await connect(A, B, { creditAtoB: '100000', creditBtoA: '100000' });
  txids = [];
  // Sent one after another, settled together: one direction, so the chain holds them in the order they were sent.
  for (let i = 0; i < PAYMENTS; i++) txids.push(await send(A, 'Bob', '0.01'));
  const outcomes = await settledAll(A, txids, B, 60_000);
  expect(outcomes.every((o) => o.status === 'completed')).toBe(true);
}, 120_000);

afterAll(async () => {
  await Promise.all([A, B].map((t) => t?.destroy()));
});

describe('a long chain', () => {
  it('rows lost beyond the first page of a sync all come back, checked', async () => {
    const lost = txids.slice(90, 210);
    await editStopped(A, lost.map((txid) => [`DELETE FROM ledger_tx WHERE txid = ?`, txid]));
    const sync = (await ok(A, 'POST', '/api/v1/system/sync', { type: 'transactions' })).results.transactions;
    expect(sync.report).toEqual([`Bob VWL: ${PAYMENTS} pulled, ${lost.length} restored, 0 refused, ${PAYMENTS} settled; chain OK`]);
    expect([...sync.chains[0].imported].sort()).toEqual([...lost].sort());
    const balance = (await ok(A, 'GET', `/api/v1/contacts/${hashOf(B)}`)).contact.balance;
    expect(balance).toEqual({ currency: 'VWL', received: '0', sent: '2.3', net: '-2.3' });
  });

  it('verify-chain reads every chunk: a signature spoilt beyond the first chunks is its one finding', async () => {
    const report = await ok(A, 'GET', '/api/v1/chain/verify');
    expect(report).toMatchObject({ ok: true, findings: 0, count: 1 });
    expect(report.chains[0].settled_count).toBe(PAYMENTS);
    const spoilt = txids[3 * AUDIT_CHUNK + 5]!;
    await editStopped(A, [[`UPDATE ledger_tx SET recipient_sig = ? WHERE txid = ?`, 'A'.repeat(86), spoilt]]);
    const damaged = await ok(A, 'GET', '/api/v1/chain/verify');
    expect(damaged).toMatchObject({ ok: false, findings: 1, count: 1 });
    expect(damaged.chains[0].rows).toEqual([{ txid: spoilt, problem: 'recipient_signature', detail: 'the recipient signature does not verify' }]);
    expect(damaged.chains[0].settled_count).toBe(PAYMENTS);
  });
});
