/**
 * Archival (issue 15, scope 4), real nodes on loopback. Alice's node runs on a clock the test moves to the nightly
 * archival times (01:00 UTC payment requests, 01:30 UTC transactions) two days on, with the retentions shortened to
 * one day: old settled transactions and resolved payment requests move to the archive tables, a chain with a gap is
 * left alone, and every listing, lookup, export, refund and sync answers as before; verify-chain matches the
 * checkpoint, and reports a mismatch once an archived row is altered.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { download, ndjson } from './exports-support.js';
import { call, connect, hashOf, nodeCliHuman, ok, send, settled, tradeInOrder, waitFor } from './ledger-support.js';

let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };
/** Puts Alice's clock three seconds before `hh:mm` UTC, two days from now. */
const justBefore = (hh: number, mm: number): void => {
  const day = new Date(Date.now() + 2 * 86_400_000);
  day.setUTCHours(hh, mm, 0, 0);
  offset = day.getTime() - 3000 - Date.now();
};

let A: TestNode;
let B: TestNode;
let C: TestNode;
let withBob: string[];
let withCarol: string[];
let approvedRequest: string;

/** Runs SQL on a node's database with the node stopped, then starts it again on its port. */
async function edit(t: TestNode, sql: string[]): Promise<void> {
  const port = t.node.port;
  await t.stop();
  const db = new Database(join(t.dataDir, 'node.db'));
  try {
    for (const s of sql) db.exec(s);
  } finally {
    db.close();
  }
  await t.restart({ NODE_PORT: String(port) });
}

/** Counts rows of a table of a running node (a second, read-only connection). */
function count(t: TestNode, table: string): number {
  const db = new Database(join(t.dataDir, 'node.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const listing = async (t: TestNode): Promise<any> => ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { limit: 100 });
const requests = async (t: TestNode): Promise<any> => ok(t, 'GET', '/api/v1/requests');
const exported = async (t: TestNode, entity: string): Promise<any[]> =>
  ndjson((await download(t, entity, { view: 'full', format: 'json' })).text).map(({ source_table: _source, ...rest }) => rest);
const chainWith = async (t: TestNode, peer: TestNode): Promise<any> =>
  (await ok(t, 'GET', '/api/v1/chain/verify', undefined, { contact_pubkey_hash: hashOf(peer) })).chains[0];

beforeAll(async () => {
  [A, B, C] = await Promise.all([startTestNode({ clock }), startTestNode(), startTestNode()]);
  for (const t of [A, B, C]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
  await connect(A, B);
  await connect(A, C, { nameOfB: 'Carol' });
  withBob = await tradeInOrder([[A, 'Bob', '10', B], [B, 'Alice', '3', A], [A, 'Bob', '2', B], [B, 'Alice', '1.5', A], [A, 'Bob', '4', B]]);
  withCarol = await tradeInOrder([[A, 'Carol', '1', C], [C, 'Alice', '2', A], [A, 'Carol', '3', C]]);
  // Bob asks twice: Alice pays one request and declines the other.
  const ask = async (amount: string): Promise<string> => (await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount, currency: 'VWL' })).request_id;
  approvedRequest = await ask('0.5');
  const declined = await ask('7');
  await waitFor(() => requests(A), (r) => r.incoming.length === 2, 'both requests on Alice');
  const paid = await ok(A, 'POST', '/api/v1/requests/approve', { request_id: approvedRequest });
  await settled(A, paid.txid, B);
  withBob.push(paid.txid);
  await ok(A, 'POST', '/api/v1/requests/decline', { request_id: declined });
  await waitFor(() => requests(B), (r) => r.outgoing.find((q: any) => q.request_id === declined)?.status === 'declined', 'the decline on Bob');
  // Small batches, so that each job's log line shows the batch size was used (at the default 500 each run takes one).
  await ok(A, 'PUT', '/api/v1/system/settings', {
    transactionsArchiveRetentionDays: 1,
    paymentRequestsArchiveRetentionDays: 1,
    transactionsArchiveBatchSize: 2,
    paymentRequestsArchiveBatchSize: 1,
  });
}, 60_000);

/** The fields of the newest log line of Alice's node with `message`. */
function logged(message: string): Record<string, unknown> | undefined {
  const lines = readFileSync(join(A.dataDir, 'node.log'), 'utf8').split('\n').filter((l) => l.includes(` ${message} {`));
  const last = lines.at(-1);
  return last ? JSON.parse(last.slice(last.indexOf(` ${message} `) + message.length + 2).replace(/ request_id=\S+$/, '')) : undefined;
}

afterAll(async () => {
  offset = 0;
  await Promise.all([A, B, C].map((t) => t?.destroy()));
});

describe('archival', () => {
  let before: { listing: any; requests: any; transactions: any[]; paymentRequests: any[]; details: any[] };

  it('the nightly jobs move old rows to the archive (never deleting), skip a chain with a gap, and keep every answer', async () => {
    // Carol's middle payment is lost on Alice's side: that chain has a gap and stays as it is.
    await edit(A, [`DELETE FROM ledger_tx WHERE txid = '${withCarol[1]}'`]);
    before = {
      listing: await listing(A),
      requests: await requests(A),
      transactions: await exported(A, 'transactions'),
      paymentRequests: await exported(A, 'payment_requests'),
      details: await Promise.all(withBob.map(async (txid) => (await ok(A, 'GET', `/api/v1/wallet/transactions/${txid}`)).transaction)),
    };
    const live = count(A, 'ledger_tx');
    expect(live).toBe(withBob.length + withCarol.length - 1);

    // 01:00 UTC: payment requests (both resolved more than a day before, on this clock).
    justBefore(1, 0);
    await A.restart({ NODE_PORT: String(A.node.port) });
    await waitFor(async () => count(A, 'payment_requests_archive'), (n) => n === 2, 'payment requests archived', 15_000);
    expect(count(A, 'payment_requests')).toBe(0);
    // paymentRequestsArchiveBatchSize 1: a transaction per request, and the empty one that ends the run.
    await waitFor(async () => logged('payment request archival ran'), (f) => f !== undefined, 'the archival log line');
    expect(logged('payment request archival ran')).toEqual({ moved: 2, batches: 3 });
    // 01:30 UTC: transactions. Bob's chain moves but for its head; Carol's (a gap) does not.
    justBefore(1, 30);
    await A.restart({ NODE_PORT: String(A.node.port) });
    await waitFor(async () => count(A, 'ledger_tx_archive'), (n) => n === withBob.length - 1, 'transactions archived', 15_000);
    expect(count(A, 'ledger_tx')).toBe(live - (withBob.length - 1));
    // transactionsArchiveBatchSize 2: Bob's five rows take three transactions (2, 2, 1); Carol's chain none.
    await waitFor(async () => logged('transaction archival ran'), (f) => f !== undefined, 'the archival log line');
    expect(logged('transaction archival ran')).toMatchObject({ moved: withBob.length - 1, batches: Math.floor((withBob.length - 1) / 2) + 1 });
    // An archive backup followed.
    await waitFor(
      async () => (await ok(A, 'GET', '/api/v1/backup/list')).backups.map((b: any) => b.filename),
      (names: string[]) => names.some((n) => n.startsWith('archive_backup_')),
      'the archive backup',
    );
    offset = 0;

    expect(await listing(A)).toEqual(before.listing);
    expect(await requests(A)).toEqual(before.requests);
    expect(await exported(A, 'transactions')).toEqual(before.transactions);
    expect(await exported(A, 'payment_requests')).toEqual(before.paymentRequests);
    const sources = ndjson((await download(A, 'transactions', { view: 'full', format: 'json' })).text).map((r) => [r.txid, r.source_table]);
    expect(sources.filter(([, s]) => s === 'archive').map(([txid]) => txid).sort()).toEqual(withBob.slice(0, -1).sort());
    for (const [i, txid] of withBob.entries()) expect((await ok(A, 'GET', `/api/v1/wallet/transactions/${txid}`)).transaction).toEqual(before.details[i]);
    expect((await requests(A)).incoming.find((r: any) => r.request_id === approvedRequest).status).toBe('approved');
  });

  it('verify-chain matches the checkpoint; refunds, payments and a contact\'s sync go on over archived rows', async () => {
    expect(await chainWith(A, B)).toMatchObject({ status: 'ok', checkpoint: 'matched', settled_count: withBob.length });
    expect(await chainWith(A, C)).toMatchObject({ status: 'fail', checkpoint: 'none' });

    // Bob's 1.5 to Alice is archived: a refund of it still sees it, and what was refunded.
    const refund = await ok(A, 'POST', '/api/v1/wallet/refund', { txid: withBob[3], amount: '1' });
    expect(refund).toMatchObject({ status: 'partially_refunded', already_refunded: '0', remaining: '0.5' });
    expect((await settled(A, refund.refund_txid, B)).status).toBe('completed');
    const over = await call(A, 'POST', '/api/v1/wallet/refund', { txid: withBob[3], amount: '1' });
    expect([over.status, over.body.error.code]).toEqual([400, 'invalid_refund']);
    const next = await send(A, 'Bob', '0.25');
    expect((await settled(A, next, B)).previous_txid).toBe(refund.refund_txid);

    // Bob loses two rows; Alice serves them from her archive.
    await edit(B, [`DELETE FROM ledger_tx WHERE txid IN ('${withBob[1]}', '${withBob[2]}')`]);
    const sync = (await ok(B, 'POST', '/api/v1/system/sync', { type: 'transactions' })).results.transactions;
    expect(sync.chains[0]).toMatchObject({ imported: [withBob[1], withBob[2]], chain_ok: true });
    expect((await ok(A, 'GET', '/api/v1/chain/verify', undefined, { contact_pubkey_hash: hashOf(B) })).ok).toBe(true);
  });

  it('a request made once every request is archived takes an id of its own, and is archived in its turn', async () => {
    const asked = (await ok(B, 'POST', '/api/v1/requests', { contact: 'Alice', amount: '0.75', currency: 'VWL' })).request_id;
    await waitFor(() => requests(A), (r) => r.incoming.some((q: any) => q.request_id === asked), 'the new request on Alice');
    await ok(A, 'POST', '/api/v1/requests/decline', { request_id: asked });
    await waitFor(() => requests(B), (r) => r.outgoing.find((q: any) => q.request_id === asked)?.status === 'declined', 'the decline on Bob');
    const listed = await requests(A);
    expect(listed.incoming).toHaveLength(3);

    justBefore(1, 0);
    await A.restart({ NODE_PORT: String(A.node.port) });
    await waitFor(async () => count(A, 'payment_requests_archive'), (n) => n === 3, 'the new request archived', 15_000);
    offset = 0;
    expect(count(A, 'payment_requests')).toBe(0);
    expect(await requests(A)).toEqual(listed);
    const ids = ndjson((await download(A, 'payment_requests', { view: 'full', format: 'json' })).text).map((r) => r.request_id);
    expect(ids.sort()).toEqual(listed.incoming.map((q: any) => q.request_id).sort());
  });

  it('an archived row altered: the checkpoint mismatches, verify-chain exits 1', async () => {
    await edit(A, [`UPDATE ledger_tx_archive SET recipient_sig = sender_sig WHERE txid = '${withBob[0]}'`]);
    const chain = await chainWith(A, B);
    expect(chain).toMatchObject({ status: 'fail', checkpoint: 'mismatch' });
    const human = await nodeCliHuman(A, ['verify-chain', '--contact', hashOf(B)]);
    expect(human.code).toBe(1);
    expect(human.out).toContain('FAIL, checkpoint mismatch');
  });
});
