/**
 * Tx drops (issue 15, scope 3), real nodes on loopback. A run of transactions lost on both sides of a chain (a test
 * edit of both databases, nodes stopped) cannot come back by sync; the two agree to drop it: propose, accept
 * (admin), the broken transaction re-linked and re-signed on both sides, balances recomputed from what remains, and
 * payments flow again. A rejection leaves the gap and blocks the contact both ways until a later drop is accepted;
 * proposals expire; the auto settings propose after a sync and accept within the guard.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../sdk/index.js';
import { buildContent, deriveTxid, newSalt, nowMicros, signedBytes } from '../../builtin-plugins/ledger/content.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';
import { call, connect, hashOf, nodeCli, nodeCliHuman, ok, send, settled, tradeInOrder, waitFor } from './ledger-support.js';

const MANUAL = { NODE_AUTO_CHAIN_DROP_PROPOSE: 'false' };
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };

/** Deletes rows from a node's database with the node stopped, then starts it again on its port. */
async function lose(t: TestNode, txids: readonly string[], env: Record<string, string> = MANUAL): Promise<void> {
  const port = t.node.port;
  await t.stop();
  const db = new Database(join(t.dataDir, 'node.db'));
  try {
    for (const txid of txids) db.prepare('DELETE FROM ledger_tx WHERE txid = ?').run(txid);
  } finally {
    db.close();
  }
  await t.restart({ ...env, NODE_PORT: String(port) });
}

const verify = async (t: TestNode): Promise<any> => ok(t, 'GET', '/api/v1/chain/verify');
const balanceOf = async (t: TestNode, peer: TestNode): Promise<any> => (await ok(t, 'GET', `/api/v1/contacts/${hashOf(peer)}`)).contact.balance;
const proposalsWith = async (t: TestNode, name: string): Promise<any[]> => (await ok(t, 'GET', '/api/v1/chaindrop', undefined, { contact: name })).proposals;

describe('tx drops: a gap neither side holds', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let withBob: string[];
  let withCarol: string[];

  beforeAll(async () => {
    [A, B, C] = await Promise.all([startTestNode({ env: MANUAL }), startTestNode({ env: MANUAL }), startTestNode({ env: MANUAL, clock })]);
    await connect(A, B);
    await connect(A, C, { nameOfB: 'Carol' });
    withBob = await tradeInOrder([[A, 'Bob', '10', B], [B, 'Alice', '3', A], [A, 'Bob', '2', B], [A, 'Bob', '5', B], [B, 'Alice', '1', A]]);
    withCarol = await tradeInOrder([[A, 'Carol', '7', C], [C, 'Alice', '4', A], [A, 'Carol', '1', C]]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C].map((t) => t?.destroy()));
  });

  it('propose, accept (admin only), both sides re-link and re-sign, balances agree, payments flow again', async () => {
    // Bob's 3 and Alice's 2 are lost on both sides.
    const lost = withBob.slice(1, 3);
    await Promise.all([lose(A, lost), lose(B, lost)]);
    for (const t of [A, B]) {
      const chain = (await verify(t)).chains.find((c: any) => c.contact_pubkey_hash === hashOf(t === A ? B : A));
      expect(chain.status).toBe('fail');
      expect(chain.gaps).toEqual([{ missing_txid: withBob[2], broken_txid: withBob[3], before_txid: withBob[0] }]);
    }
    // Sync cannot fill it: neither side holds the rows.
    const synced = (await ok(A, 'POST', '/api/v1/system/sync', { type: 'transactions' })).results.transactions;
    expect(synced.chains.find((c: any) => c.contact_name === 'Bob')).toMatchObject({ imported: [], chain_ok: false });

    const proposed = await call(A, 'POST', '/api/v1/chaindrop/propose', { contact: 'Bob' });
    expect(proposed.status).toBe(201);
    const id: string = proposed.body.data.proposal_id;
    expect(id).toMatch(/^cdp-[0-9a-f]{64}$/);
    expect(proposed.body.data).toMatchObject({ missing_txid: withBob[2], broken_txid: withBob[3] });
    // One proposal per gap while it is pending.
    const again = await call(A, 'POST', '/api/v1/chaindrop/propose', { address: B.node.baseUrl });
    expect([again.status, again.body.error.code]).toEqual([409, 'chaindrop_failed']);

    // Bob sees it among the incoming pending proposals; Alice's own list of incoming ones is empty.
    const incoming = (await ok(B, 'GET', '/api/v1/chaindrop')).proposals;
    expect(incoming).toHaveLength(1);
    expect(incoming[0]).toMatchObject({ proposal_id: id, contact_pubkey_hash: hashOf(A), status: 'pending', direction: 'incoming', currency: 'VWL' });
    expect((await ok(A, 'GET', '/api/v1/chaindrop')).proposals).toEqual([]);
    expect((await proposalsWith(A, 'Bob')).map((p) => [p.proposal_id, p.status, p.direction])).toEqual([[id, 'pending', 'outgoing']]);

    // Accept needs admin: a wallet:send key is refused and nothing changes.
    const key = await ok(B, 'POST', '/api/v1/keys', { name: 'sender', permissions: ['wallet:read', 'wallet:send'] });
    const sender = clientWithKey(B.node, key.key_id, key.secret);
    const refused = await sender.post<any>('/api/v1/chaindrop/accept', { proposal_id: id });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'permission_denied']);
    // The proposer cannot accept its own proposal.
    const own = await call(A, 'POST', '/api/v1/chaindrop/accept', { proposal_id: id });
    expect([own.status, own.body.error.code]).toEqual([400, 'chaindrop_failed']);

    const accepted = await ok(B, 'POST', '/api/v1/chaindrop/accept', { proposal_id: id });
    expect(accepted.proposal_id).toBe(id);
    for (const t of [A, B]) {
      const report = await verify(t);
      expect(report.ok).toBe(true);
      expect((await proposalsWith(t, t === A ? 'Bob' : 'Alice'))[0]).toMatchObject({ proposal_id: id, status: 'accepted' });
      // The broken row now follows the row before the gap, signed anew by both.
      const row = (await ok(t, 'GET', `/api/v1/wallet/transactions/${withBob[3]}`)).transaction;
      expect(row.previous_txid).toBe(withBob[0]);
    }
    // Alice sent 10 + 5, received 1; the dropped 3 and 2 count nowhere.
    expect(await balanceOf(A, B)).toEqual({ currency: 'VWL', received: '1', sent: '15', net: '-14' });
    expect(await balanceOf(B, A)).toEqual({ currency: 'VWL', received: '15', sent: '1', net: '14' });
    const closed = await call(B, 'POST', '/api/v1/chaindrop/accept', { proposal_id: id });
    expect([closed.status, closed.body.error.code]).toEqual([409, 'chaindrop_failed']);

    const next = await send(A, 'Bob', '0.5');
    const done = await settled(A, next, B);
    expect(done.status).toBe('completed');
    expect(done.previous_txid).toBe(withBob[4]);
    expect((await verify(A)).ok).toBe(true);
    expect((await verify(B)).ok).toBe(true);
  });

  it('a rejection leaves the gap and blocks the contact both ways until a later drop is accepted', async () => {
    await Promise.all([lose(A, [withCarol[1]]), lose(C, [withCarol[1]])]);
    const first = await ok(A, 'POST', '/api/v1/chaindrop/propose', { contact: 'Carol' });
    const rejected = await ok(C, 'POST', '/api/v1/chaindrop/reject', { proposal_id: first.proposal_id });
    expect(rejected.proposal_id).toBe(first.proposal_id);
    await waitFor(() => proposalsWith(A, 'Carol'), (ps) => ps[0]?.status === 'rejected', 'the rejection on Alice');
    expect((await proposalsWith(C, 'Alice'))[0]).toMatchObject({ status: 'rejected', blocking: true });
    expect((await verify(C)).ok).toBe(false);

    // Neither side takes a payment with the other now; other contacts are not affected.
    for (const [t, to] of [[A, 'Carol'], [C, 'Alice']] as const) {
      const r = await call(t, 'POST', '/api/v1/wallet/send', { address: to, amount: '1', currency: 'VWL' });
      expect([r.status, r.body.error.code]).toEqual([409, 'chaindrop_failed']);
      expect(r.body.error.message).toContain(first.proposal_id);
    }
    expect((await settled(A, await send(A, 'Bob', '0.25'), B)).status).toBe('completed');
    // A reject of a closed proposal is refused.
    const twice = await call(C, 'POST', '/api/v1/chaindrop/reject', { proposal_id: first.proposal_id });
    expect([twice.status, twice.body.error.code]).toEqual([409, 'chaindrop_failed']);
    const unknown = await call(C, 'POST', '/api/v1/chaindrop/reject', { proposal_id: 'cdp-nothing' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'chaindrop_failed']);

    // Carol proposes the same drop herself; Alice accepts it; the block lifts on both sides.
    const second = await ok(C, 'POST', '/api/v1/chaindrop/propose', { contact: 'Alice' });
    await waitFor(() => ok(A, 'GET', '/api/v1/chaindrop'), (l) => l.proposals.some((p: any) => p.proposal_id === second.proposal_id), 'the proposal on Alice');
    await ok(A, 'POST', '/api/v1/chaindrop/accept', { proposal_id: second.proposal_id });
    expect((await verify(A)).ok).toBe(true);
    expect((await verify(C)).ok).toBe(true);
    expect(await balanceOf(A, C)).toEqual({ currency: 'VWL', received: '0', sent: '8', net: '-8' });
    expect(await balanceOf(C, A)).toEqual({ currency: 'VWL', received: '8', sent: '0', net: '8' });
    expect((await settled(C, await send(C, 'Alice', '2'), A)).status).toBe('completed');
    expect((await proposalsWith(A, 'Carol')).find((p) => p.proposal_id === first.proposal_id)).toMatchObject({ status: 'rejected', blocking: false });
  });

  it('a pending proposal expires after seven days; node-cli chaindrop proposes, lists, refuses the expired one, withdraws', async () => {
    const more = await tradeInOrder([[A, 'Carol', '1', C], [A, 'Carol', '1', C]]);
    await Promise.all([lose(A, [more[0]]), lose(C, [more[0]])]);
    const proposed = await nodeCli(A, ['chaindrop', 'propose', 'Carol']);
    expect(proposed.code).toBe(0);
    const id: string = proposed.body.data.proposal_id;
    expect(proposed.body.data).toMatchObject({ missing_txid: more[0], broken_txid: more[1] });
    const listed = await nodeCli(C, ['chaindrop', 'list']);
    expect(listed.body.data.proposals.map((p: any) => p.proposal_id)).toEqual([id]);
    const human = await nodeCliHuman(C, ['chaindrop', 'list', 'Alice']);
    expect(human.code).toBe(0);
    expect(human.out).toContain(id);
    expect(human.out).toContain('pending');

    offset = 7 * 86_400_000 + 60_000;
    try {
      expect((await proposalsWith(C, 'Alice')).find((p) => p.proposal_id === id)).toMatchObject({ status: 'expired' });
      expect((await ok(C, 'GET', '/api/v1/chaindrop')).proposals).toEqual([]);
      const late = await nodeCli(C, ['chaindrop', 'accept', id]);
      expect(late.code).toBe(1);
      expect(late.body.error).toMatchObject({ code: 'chaindrop_failed', message: expect.stringContaining('expired') });
    } finally {
      offset = 0;
    }
    // Alice withdraws her own proposal: the gap stays, and with it the block.
    const withdrawn = await nodeCli(A, ['chaindrop', 'reject', id]);
    expect([withdrawn.code, withdrawn.body.data.proposal_id]).toEqual([0, id]);
    const r = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Carol', amount: '1', currency: 'VWL' });
    expect([r.status, r.body.error.code]).toEqual([409, 'chaindrop_failed']);
  });
});

describe('tx drops: automatic behaviour', () => {
  let D: TestNode;
  let E: TestNode;
  let F: TestNode;
  let G: TestNode;
  const eEnv = { NODE_AUTO_CHAIN_DROP_ACCEPT: 'true' };

  beforeAll(async () => {
    [D, E, F, G] = await Promise.all([startTestNode(), startTestNode({ env: eEnv }), startTestNode({ env: MANUAL }), startTestNode({ env: MANUAL })]);
    await connect(D, E, { nameOfB: 'Erin', nameOfA: 'Dave' });
    await connect(F, G, { nameOfB: 'Gus', nameOfA: 'Fay' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([D, E, F, G].map((t) => t?.destroy()));
  });

  const pendingOn = (t: TestNode) => waitFor(() => ok(t, 'GET', '/api/v1/chaindrop'), (l) => l.count === 1, 'an incoming proposal');
  const chainOk = (t: TestNode) => waitFor(() => verify(t), (r) => r.ok === true, 'a chain that verifies');

  it('a sync that leaves a gap proposes the drop; the contact accepts it by itself within the guard', async () => {
    // Erin's own payment of 2 is lost on both sides: the guard lets her node accept (nothing owed to her is dropped).
    const rows = await tradeInOrder([[D, 'Erin', '5', E], [E, 'Dave', '2', D], [D, 'Erin', '1', E]]);
    await Promise.all([lose(D, [rows[1]], {}), lose(E, [rows[1]], eEnv)]);
    await ok(D, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    await chainOk(D);
    await chainOk(E);
    expect((await proposalsWith(D, 'Erin'))[0]).toMatchObject({ status: 'accepted', direction: 'outgoing', missing_txid: rows[1] });
    expect(await balanceOf(E, D)).toEqual({ currency: 'VWL', received: '6', sent: '0', net: '6' });
    expect(await balanceOf(D, E)).toEqual({ currency: 'VWL', received: '0', sent: '6', net: '-6' });
  });

  it('the guard keeps a drop of payments owed to the node for its operator; without the guard it is accepted', async () => {
    // Dave's payment of 3 to Erin is lost on both sides: dropping it takes 3 owed to Erin away; her node waits.
    const rows = await tradeInOrder([[D, 'Erin', '3', E], [D, 'Erin', '1', E]]);
    await Promise.all([lose(D, [rows[0]], {}), lose(E, [rows[0]], eEnv)]);
    await ok(D, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    const waiting = (await pendingOn(E)).proposals[0];
    expect(waiting).toMatchObject({ status: 'pending', missing_txid: rows[0] });
    await new Promise((r) => setTimeout(r, 300));
    expect((await ok(E, 'GET', '/api/v1/chaindrop')).proposals[0].status).toBe('pending');
    expect((await verify(E)).ok).toBe(false);
    await ok(E, 'POST', '/api/v1/chaindrop/accept', { proposal_id: waiting.proposal_id });
    expect((await verify(E)).ok).toBe(true);

    await ok(E, 'PUT', '/api/v1/system/settings', { autoChainDropAcceptGuard: false });
    const more = await tradeInOrder([[D, 'Erin', '2', E], [D, 'Erin', '1', E]]);
    await Promise.all([lose(D, [more[0]], {}), lose(E, [more[0]], { ...eEnv, NODE_AUTO_CHAIN_DROP_ACCEPT_GUARD: 'false' })]);
    await ok(D, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    await chainOk(D);
    await chainOk(E);
    // 5 + 1 + 1 + 1 remain of what Dave paid.
    expect(await balanceOf(E, D)).toEqual({ currency: 'VWL', received: '8', sent: '0', net: '8' });
  });

  it('two proposals of one gap crossing each other converge: the smaller key accepts the other one', async () => {
    const rows = await tradeInOrder([[F, 'Gus', '4', G], [G, 'Fay', '1', F], [F, 'Gus', '2', G]]);
    await Promise.all([lose(F, [rows[1]]), lose(G, [rows[1]])]);
    const [fp, gp] = await Promise.all([ok(F, 'POST', '/api/v1/chaindrop/propose', { contact: 'Gus' }), ok(G, 'POST', '/api/v1/chaindrop/propose', { contact: 'Fay' })]);
    await chainOk(F);
    await chainOk(G);
    const [smaller, larger] = hashOf(F) < hashOf(G) ? [F, G] : [G, F];
    // The larger key's proposal is the one executed; the smaller key's own one is superseded on both sides.
    const executed = larger === F ? fp.proposal_id : gp.proposal_id;
    const superseded = larger === F ? gp.proposal_id : fp.proposal_id;
    for (const t of [smaller, larger]) {
      const all = await proposalsWith(t, t === F ? 'Gus' : 'Fay');
      expect(all.find((p) => p.proposal_id === executed)).toMatchObject({ status: 'accepted' });
      await waitFor(() => proposalsWith(t, t === F ? 'Gus' : 'Fay'), (ps) => ps.find((p) => p.proposal_id === superseded)?.status === 'rejected', 'the superseded one');
    }
    expect((await ok(F, 'GET', '/api/v1/chaindrop')).proposals).toEqual([]);
    expect((await ok(G, 'GET', '/api/v1/chaindrop')).proposals).toEqual([]);
    expect((await settled(G, await send(G, 'Fay', '1'), F)).status).toBe('completed');
  });
});

describe('a forked chain (two countersigned payments on one previous transaction)', () => {
  let F: TestNode;
  let G: TestNode;

  beforeAll(async () => {
    [F, G] = await Promise.all([startTestNode({ env: MANUAL }), startTestNode({ env: MANUAL })]);
    for (const t of [F, G]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false });
    await connect(F, G, { nameOfB: 'Gus', nameOfA: 'Fay' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([F, G].map((t) => t?.destroy()));
  });

  it('sync brings both branches to both sides, then one re-link by the rule both apply makes the chain linear again', async () => {
    const [, shared] = await tradeInOrder([[F, 'Gus', '5', G], [G, 'Fay', '1', F]]);
    const t1 = await send(F, 'Gus', '2');
    await settled(F, t1, G);
    // The old data-directory bug: another copy of Fay's node paid Gus 3 on the same previous transaction, and Gus's
    // copy that countersigned it is the one that survived. Fay holds the 2, Gus the 3, both signed by both.
    const fields = { from: hashOf(F), to: hashOf(G), amount: 300_000_000n, currency: 'VWL', time: nowMicros(), salt: newSalt() };
    const t2 = deriveTxid(fields);
    const content = buildContent({ ...fields, txid: t2, amount: '300000000', prev: shared!, memo: 'standard' });
    const sig = (t: TestNode): string => t.node.identity.sign(signedBytes(content)).toString('base64url');
    const port = G.node.port;
    await G.stop();
    const db = new Database(join(G.dataDir, 'node.db'));
    db.prepare(`UPDATE ledger_tx SET txid = ?, amount_whole = 3, amount_frac = 0, time_us = ?, salt = ?, content = ?, sender_sig = ?, recipient_sig = ?
      WHERE txid = ?`).run(t2, fields.time, fields.salt, content, sig(F), sig(G), t1);
    db.close();
    await G.restart({ ...MANUAL, NODE_PORT: String(port) });

    // Fay pulls Gus's branch: she holds both now, a fork; Gus lacks hers, so her re-link is refused for now.
    await ok(F, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    expect((await verify(F)).chains[0].forks).toEqual([[t1, t2].sort()].map((f) => expect.arrayContaining(f)));
    await waitFor(() => proposalsWith(F, 'Gus'), (ps) => ps[0]?.status === 'failed', 'the refused re-link on Fay');
    // Gus pulls Fay's branch; the re-link goes through, accepted by Fay's node on its own.
    await ok(G, 'POST', '/api/v1/system/sync', { type: 'transactions' });
    await waitFor(() => verify(F), (r) => r.ok, "Fay's chain linear");
    await waitFor(() => verify(G), (r) => r.ok, "Gus's chain linear");
    const [first, second] = [t1, t2].sort();
    for (const t of [F, G]) {
      expect((await ok(t, 'GET', `/api/v1/wallet/transactions/${second}`)).transaction.previous_txid).toBe(first);
      expect((await ok(t, 'GET', `/api/v1/wallet/transactions/${first}`)).transaction.previous_txid).toBe(shared);
    }
    expect((await proposalsWith(G, 'Fay'))[0]).toMatchObject({ kind: 'fork', status: 'accepted', broken_txid: second, previous_txid_before_gap: first });
    // Nothing is lost: both payments count on both sides.
    expect(await balanceOf(F, G)).toEqual({ currency: 'VWL', received: '1', sent: '10', net: '-9' });
    expect(await balanceOf(G, F)).toEqual({ currency: 'VWL', received: '10', sent: '1', net: '9' });
    const next = await send(F, 'Gus', '1');
    expect((await settled(F, next, G)).previous_txid).toBe(second);
    expect((await verify(G)).ok).toBe(true);
  });
});
