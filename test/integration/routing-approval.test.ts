/**
 * autoAcceptTransaction off (Document 1, "P2P transaction approval" and "Routing behavior"): routed payments wait at
 * `awaiting_approval`, the /api/v1/p2p routes list them and their candidates (integer minor units), approve pays
 * along the chosen route, reject cancels and releases the routes; node-cli p2p drives the same routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { nodeCli, nodeCliHuman } from './ledger-support.js';
import { call, connect, dec, hashOf, legsOf, legsSettled, ok, routedSend, setFee, waitFor, withFee } from './routing-support.js';

const P2P_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const minor = (d: ReturnType<typeof dec>): number => d.times(1e8).toNumber();


async function diamond(env?: Record<string, string>): Promise<TestNode[]> {
  const nodes = await Promise.all(Array.from({ length: 4 }, () => startTestNode(env ? { env } : {})));
  for (const t of nodes) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false, max_fee: 10 });
  const [A, B, C, D] = nodes as [TestNode, TestNode, TestNode, TestNode];
  await connect(A, B, { nameOfB: 'Bea', nameOfA: 'Ada' });
  await connect(A, C, { nameOfB: 'Cid', nameOfA: 'Ada' });
  await connect(B, D, { nameOfB: 'Dan', nameOfA: 'Bea' });
  await connect(C, D, { nameOfB: 'Dan', nameOfA: 'Cid' });
  await setFee(B, A, 1);
  await setFee(C, A, 2);
  await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
  return nodes;
}

describe('P2P approval on a diamond (B charges 1 %, C 2 %)', () => {
  let A: TestNode, B: TestNode, C: TestNode, D: TestNode;

  beforeAll(async () => {
    [A, B, C, D] = (await diamond()) as [TestNode, TestNode, TestNode, TestNode];
  }, 120_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D].map((t) => t.destroy()));
  });

  it('fast: the first route is held, listed with one candidate, and paid on approval', async () => {
    const sent = await routedSend(A, D, '50', { description: 'held' });
    expect(sent).toMatchObject({ status: 'awaiting_approval', txid: null, best_fee: false });
    const hash = sent.p2p_hash as string;
    const list = await ok(A, 'GET', '/api/v1/p2p');
    const row = list.transactions.find((t: any) => t.hash === hash);
    expect(row).toMatchObject({ amount: 5_000_000_000, currency: 'VWL', destination_address: D.node.baseUrl, my_fee_amount: 0, fast: 1, candidate_count: 1 });
    expect([minor(withFee(dec(50), 1)), minor(withFee(dec(50), 2))]).toContain(row.rp2p_amount);
    expect(row.created_at).toMatch(P2P_TIME);
    const cands = await ok(A, 'GET', `/api/v1/p2p/candidates/${hash}`);
    expect(cands).toMatchObject({ hash, amount: 5_000_000_000, currency: 'VWL', fast: 1 });
    expect(cands.candidates).toHaveLength(1);
    expect(cands.rp2p).toEqual(cands.candidates[0]);
    expect(cands.candidates[0]).toMatchObject({ hash, currency: 'VWL', amount: row.rp2p_amount, fee_amount: row.rp2p_amount - 5_000_000_000 });
    expect(cands.candidates[0].created_at).toMatch(P2P_TIME);
    expect(typeof cands.candidates[0].sender_signature).toBe('string');
    const approved = await ok(A, 'POST', '/api/v1/p2p/approve', { hash });
    expect(approved).toMatchObject({ hash, candidate_id: cands.candidates[0].id });
    const via = (await legsOf(A, hash))[0].counterparty_pubkey_hash === hashOf(B) ? B : C;
    await legsSettled([A, via, D], hash);
    expect((await ok(A, 'GET', '/api/v1/p2p')).transactions.some((t: any) => t.hash === hash)).toBe(false);
  });

  it('best-fee: every route listed cheapest first; the operator picks one (even the dearer)', async () => {
    const sent = await routedSend(A, D, '10', { bestFee: true });
    expect(sent).toMatchObject({ status: 'awaiting_approval', txid: null, best_fee: true });
    const hash = sent.p2p_hash as string;
    const cands = await ok(A, 'GET', `/api/v1/p2p/candidates/${hash}`);
    expect(cands.fast).toBe(0);
    expect(cands.rp2p).toBeNull();
    expect(cands.candidates.map((c: any) => c.amount)).toEqual([minor(withFee(dec(10), 1)), minor(withFee(dec(10), 2))]);

    const none = await call(A, 'POST', '/api/v1/p2p/approve', { hash });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('candidate_selection_required');
    const unknown = await call(A, 'POST', '/api/v1/p2p/approve', { hash, candidate_id: 999_999 });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'candidate_not_found']);
    const other = await routedSend(A, D, '1', { bestFee: true });
    const foreign = (await ok(A, 'GET', `/api/v1/p2p/candidates/${other.p2p_hash}`)).candidates[0].id;
    const mismatch = await call(A, 'POST', '/api/v1/p2p/approve', { hash, candidate_id: foreign });
    expect([mismatch.status, mismatch.body.error.code]).toEqual([400, 'candidate_mismatch']);
    expect((await call(A, 'POST', '/api/v1/p2p/approve', { hash: 'zz' })).body.error.code).toBe('invalid_hash');
    expect((await call(A, 'POST', '/api/v1/p2p/approve', { hash: 'ab'.repeat(32) })).body.error.code).toBe('p2p_error');
    expect((await call(A, 'GET', `/api/v1/p2p/candidates/${'ab'.repeat(32)}`)).status).toBe(404);

    const dear = cands.candidates[1];
    await ok(A, 'POST', '/api/v1/p2p/approve', { hash, candidate_id: dear.id });
    await legsSettled([A, C, D], hash);
    expect((await legsOf(A, hash))[0].amount).toBe(withFee(dec(10), 2).toFixed());
    // Approving twice: the payment is no longer waiting.
    const again = await call(A, 'POST', '/api/v1/p2p/approve', { hash, candidate_id: dear.id });
    expect([again.status, again.body.error.code]).toEqual([400, 'p2p_error']);
    // Only the originator decides: a relay of the payment is told so.
    const relay = await call(C, 'POST', '/api/v1/p2p/approve', { hash });
    expect([relay.status, relay.body.error.code]).toEqual([403, 'not_originator']);
    await ok(A, 'POST', '/api/v1/p2p/reject', { hash: other.p2p_hash });
  });

  it('reject cancels: nothing is paid, the routes offered are released, the candidates are gone', async () => {
    // B and C can carry 1000 each: a rejected payment of 900 must leave their credit free.
    const sent = await routedSend(A, D, '900', { bestFee: true });
    const hash = sent.p2p_hash as string;
    const rejected = await ok(A, 'POST', '/api/v1/p2p/reject', { hash });
    expect(rejected.hash).toBe(hash);
    expect((await call(A, 'GET', `/api/v1/p2p/candidates/${hash}`)).status).toBe(404);
    expect((await call(A, 'POST', '/api/v1/p2p/reject', { hash })).body.error.code).toBe('p2p_error');
    expect(await legsOf(B, hash)).toEqual([]);
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: true });
    const again = await routedSend(A, D, '900', { bestFee: true });
    expect(again.status).toBe('sent');
    await legsSettled([A, B, D], again.p2p_hash);
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
  });

  it('node-cli p2p: list, candidates, approve by number, reject; --json is the API data', async () => {
    const first = await routedSend(A, D, '2', { bestFee: true });
    const second = await routedSend(A, D, '3', { bestFee: true });
    const listed = await nodeCli(A, ['p2p']);
    expect(listed.code).toBe(0);
    expect(listed.body.data.transactions.map((t: any) => t.hash)).toEqual(expect.arrayContaining([first.p2p_hash, second.p2p_hash]));
    const human = await nodeCliHuman(A, ['p2p']);
    expect(human.code).toBe(0);
    expect(human.out).toContain(first.p2p_hash.slice(0, 16));
    expect(human.out).toMatch(/best-fee/);

    const cands = await nodeCli(A, ['p2p', 'candidates', first.p2p_hash]);
    expect(cands.body.data.candidates).toHaveLength(2);
    const humanCands = await nodeCliHuman(A, ['p2p', 'candidates', first.p2p_hash]);
    expect(humanCands.out).toContain(withFee(dec(2), 1).toFixed(2));
    const approved = await nodeCli(A, ['p2p', 'approve', first.p2p_hash, '2']);
    expect(approved.code).toBe(0);
    expect(approved.body.data.candidate_id).toBe(cands.body.data.candidates[1].id);
    await legsSettled([A, C, D], first.p2p_hash);

    const needsNumber = await nodeCli(A, ['p2p', 'approve', second.p2p_hash]);
    expect(needsNumber.code).toBe(1);
    expect(needsNumber.body.error.code).toBe('candidate_selection_required');
    const badNumber = await nodeCli(A, ['p2p', 'approve', second.p2p_hash, '7']);
    expect(badNumber.body.error.code).toBe('INVALID_PARAMS');
    const rejected = await nodeCliHuman(A, ['p2p', 'reject', second.p2p_hash]);
    expect(rejected.code).toBe(0);
    expect(rejected.out).toMatch(/rejected/);
    expect((await nodeCli(A, ['p2p'])).body.data.transactions).toEqual([]);
  });

  it('node-cli p2p lists every routed payment deciding, past the route\'s page of 50', async () => {
    const sent = await Promise.all(Array.from({ length: 51 }, (_, i) => routedSend(A, D, String((i + 1) / 100), { bestFee: true })));
    expect(sent.every((s) => s.status === 'awaiting_approval')).toBe(true);
    const page = await ok(A, 'GET', '/api/v1/p2p');
    expect([page.count, page.total]).toEqual([50, 51]);
    const listed = await nodeCli(A, ['p2p']);
    expect(listed.body.data.count).toBe(51);
    expect(listed.body.data.transactions.map((t: any) => t.hash).sort()).toEqual(sent.map((s) => s.p2p_hash).sort());
    const human = await nodeCliHuman(A, ['p2p']);
    expect(human.out).toContain('Routed payments deciding: 51');
    for (const s of sent) expect(human.out).toContain(s.p2p_hash.slice(0, 16));
    for (const s of sent) await ok(A, 'POST', '/api/v1/p2p/reject', { hash: s.p2p_hash });
    expect((await nodeCli(A, ['p2p'])).body.data).toEqual({ transactions: [], count: 0 });
  }, 120_000);

  it('status: processors.p2p is true while the routing processor runs', async () => {
    const status = await ok(A, 'GET', '/api/v1/system/status');
    expect(status.processors.p2p).toBe(true);
  });

  it('dead letters of route messages are p2p/rp2p and cannot be retried', async () => {
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: true });
    await C.stop();
    const sent = await routedSend(A, D, '1', { bestFee: true });
    await legsSettled([A, B, D], sent.p2p_hash);
    const items = (await ok(A, 'GET', '/api/v1/system/dlq')).items as any[];
    const p2p = items.find((i) => i.message_type === 'p2p');
    expect(p2p).toMatchObject({ retryable: false, status: 'pending' });
    const retry = await call(A, 'POST', `/api/v1/system/dlq/${p2p.id}/retry`);
    expect(retry.body.error.code).toBe('dlq_not_retryable');
    await ok(A, 'POST', `/api/v1/system/dlq/${p2p.id}/abandon`);
    await C.restart();
    await waitFor(() => call(C, 'GET', '/api/v1/system/status'), (r) => r.status === 200, 'C back');
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
  });
});

describe('best-fee to a Tor destination with approval on: fast mode, one route', () => {
  let socks: FakeSocks;
  let nodes: TestNode[] = [];

  beforeAll(async () => {
    socks = await startFakeSocks();
    nodes = await diamond({ NODE_TOR_ENABLED: 'true', NODE_TOR_SOCKS: `${socks.host}:${socks.port}` });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((t) => t.destroy()));
    await socks.close();
  });

  it('holds exactly one route, in fast mode', async () => {
    const [A, , , D] = nodes as [TestNode, TestNode, TestNode, TestNode];
    for (const t of nodes) socks.routes.set(t.node.identity.onionAddress, t.node.port);
    const onion = D.node.identity.onionAddress;
    const sent = await routedSend(A, onion, '5', { bestFee: true });
    expect(sent).toMatchObject({ status: 'awaiting_approval', best_fee: false });
    const cands = await ok(A, 'GET', `/api/v1/p2p/candidates/${sent.p2p_hash}`);
    expect(cands.fast).toBe(1);
    expect(cands.candidates).toHaveLength(1);
    await ok(A, 'POST', '/api/v1/p2p/approve', { hash: sent.p2p_hash });
    const legs = await waitFor(() => legsOf(D, sent.p2p_hash), (l) => l.length === 1 && l[0].status === 'completed', 'completed at D');
    expect(legs[0].amount).toBe('5');
  });
});

describe('an expired leg releases its lock everywhere', () => {
  let A: TestNode, B: TestNode, D: TestNode;
  const previous = process.env.NODE_ROUTE_LEG_WINDOW_MS;

  beforeAll(async () => {
    // Legs may wait 1.5 s for their payee (120 s in production): the test outlives an expiry.
    process.env.NODE_ROUTE_LEG_WINDOW_MS = '1500';
    [A, B, D] = await Promise.all(Array.from({ length: 3 }, () => startTestNode()));
    for (const t of [A, B, D]) await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, hop_budget_randomized: false });
    await connect(A, B, { nameOfB: 'Bea', nameOfA: 'Ada', creditAtoB: '100', creditBtoA: '100' });
    await connect(B, D, { nameOfB: 'Dan', nameOfA: 'Bea', creditAtoB: '100', creditBtoA: '100' });
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: false });
  }, 120_000);
  afterAll(async () => {
    if (previous === undefined) delete process.env.NODE_ROUTE_LEG_WINDOW_MS;
    else process.env.NODE_ROUTE_LEG_WINDOW_MS = previous;
    await Promise.all([A, B, D].map((t) => t.destroy()));
  });

  it('the destination unreachable past the expiry: it refuses the late leg, B and A release theirs, nothing moved', async () => {
    const sent = await routedSend(A, D, '80');
    await ok(D, 'POST', '/api/v1/system/out');
    await ok(A, 'POST', '/api/v1/p2p/approve', { hash: sent.p2p_hash });
    // A's leg is locked at B; B's leg toward D cannot be delivered.
    await waitFor(() => legsOf(B, sent.p2p_hash), (l) => l.length === 2, 'B locked its legs');
    await new Promise((r) => setTimeout(r, 1700));
    await ok(D, 'POST', '/api/v1/system/in');
    const final = (legs: any[]): boolean => legs.every((l) => l.status === 'cancelled');
    const a = await waitFor(() => legsOf(A, sent.p2p_hash), final, 'A released its leg', 20_000);
    const b = await waitFor(() => legsOf(B, sent.p2p_hash), final, 'B released its legs', 20_000);
    expect([a.length, b.length]).toEqual([1, 2]);
    expect(b.some((l) => /expired/.test(l.failure_reason ?? ''))).toBe(true);
    expect(await legsOf(D, sent.p2p_hash)).toEqual([]);
    // The 80 B had locked on A's line and D on B's are free again: the same payment fits.
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_accept_transaction: true });
    const again = await routedSend(A, D, '80');
    await legsSettled([A, B, D], again.p2p_hash);
  });
});
