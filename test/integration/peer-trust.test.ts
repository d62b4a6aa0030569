/**
 * Peer trust (docs/security.md): a contact is the key that answers at the address the operator typed. Each case is
 * an attack that worked before: a stranger claiming the address of a contact added while it was offline, an impostor
 * at the address of a contact whose key the operator knew, an address notice pointing at a canary on this machine,
 * a flood of requests from unknown keys, and a requester choosing its own credit limit.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { SealingSessions } from '../../kernel/crypto/seal.js';
import { Identity } from '../../kernel/identity.js';
import { buildEnvelope } from '../../kernel/peers/envelope.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { postPeerMessage } from '../support/peers.js';
import { call, connect, hashOf, nodeCli, ok, waitFor } from './ledger-support.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const contact = async (t: TestNode, ref: string) => {
  const res = await call(t, 'GET', `/api/v1/contacts/${encodeURIComponent(ref)}`);
  return res.status === 200 ? res.body.data.contact : null;
};

/** A contact.request signed by `from` (an identity that need not be a running node) for `to`. */
function requestEnvelope(from: Identity, to: TestNode, currency: string, sessions: SealingSessions, extra: Record<string, unknown> = {}) {
  return buildEnvelope(
    from,
    { http: null, https: null, tor: null },
    { pubkeyHash: to.node.identity.pubkeyHash, sealingKey: to.node.identity.sealingPublicKey },
    { type: 'contact.request', currency, ...extra },
    { mid: `m-${from.pubkeyHash.slice(0, 12)}-${currency}`, repeatable: true },
    Date.now(),
    sessions,
  ).wire;
}

/**
 * Posts a batch on a connection of its own. Through fetch's keep-alive pool, one CI run on a loaded machine saw the
 * connection reset under a batch (ECONNRESET, no answer): the likely cause is the node's idle timer closing a reused
 * connection while the next batch was already on its way, after its event loop was held past that timeout. A peer's
 * outbox retries such a send; this test asserts the node's answers, not the client's reuse of connections.
 */
async function postBatch(to: TestNode, envelopes: unknown[]): Promise<{ status: number }[]> {
  const res = await postPeerMessage(to.node.baseUrl, envelopes, { agent: false });
  expect(res.status).toBe(200);
  return res.body as { status: number }[];
}

describe('peer trust', () => {
  const nodes: TestNode[] = [];
  let previousRetry: string | undefined;
  const start = async (env: Record<string, string> = {}): Promise<TestNode> => {
    const t = await startTestNode({ env });
    nodes.push(t);
    await ok(t, 'PUT', '/api/v1/system/settings', { contact_status_enabled: false, p2p_rate_limit_per_minute: 100_000 });
    return t;
  };

  beforeAll(() => {
    previousRetry = process.env.NODE_PEER_RETRY_BASE_MS;
    process.env.NODE_PEER_RETRY_BASE_MS = '20';
  });
  afterAll(async () => {
    if (previousRetry === undefined) delete process.env.NODE_PEER_RETRY_BASE_MS;
    else process.env.NODE_PEER_RETRY_BASE_MS = previousRetry;
    await Promise.all(nodes.map((t) => t.destroy()));
  });

  it('a stranger claiming the address of a contact added while offline gets a separate request; the real node binds it later', async () => {
    const A = await start();
    const S = await start();
    const bobPort = await freePort();
    const bobAddress = `http://127.0.0.1:${bobPort}`;
    const added = await call(A, 'POST', '/api/v1/contacts', { address: bobAddress, name: 'bob', credit_limit: '50' });
    expect(added.status).toBe(201);
    expect(added.body.data.message).toMatch(/not reachable now/);

    // The stranger announces bob's address as its own and asks A to connect.
    await ok(S, 'PUT', '/api/v1/system/settings', { hostname: bobAddress });
    await ok(S, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'alice' });
    const pending = await waitFor(() => ok(A, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'the stranger request on A');
    expect(pending.pending.incoming[0]).toMatchObject({ pubkey_hash: hashOf(S), name: null });

    const bob = await contact(A, 'bob');
    expect(bob).toMatchObject({ pubkey_hash: null, status: 'pending' });
    expect(bob.addresses.http).toBe(bobAddress);
    // Nothing the stranger sent made it "bob": A's payment to bob does not reach it.
    const sent = await call(A, 'POST', '/api/v1/wallet/send', { address: 'bob', amount: '10', currency: 'VWL' });
    expect(sent.status).toBeGreaterThanOrEqual(400);
    expect((await ok(S, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' })).pagination.total).toBe(0);
    expect((await ok(S, 'GET', '/api/v1/contacts/pending')).counts).toMatchObject({ outgoing: 1 });

    // The real bob comes up at the typed address and asks A itself: its own address vouches for its key, and
    // the crossing requests accept each other with the terms A's operator typed.
    const B = await start({ NODE_PORT: String(bobPort) });
    await ok(B, 'POST', '/api/v1/contacts', { address: A.node.baseUrl, name: 'alice', credit_limit: '70' });
    const bound = await waitFor(() => contact(A, 'bob'), (c) => c?.pubkey_hash === hashOf(B) && c.status === 'accepted', 'bob bound to its key on A');
    expect(bound.currencies).toEqual([expect.objectContaining({ currency: 'VWL', status: 'accepted', credit_limit: '50' })]);
    await waitFor(() => contact(B, 'alice'), (c) => c?.status === 'accepted', 'the acceptance on B');
    // The stranger is still a separate pending request under its own key.
    expect(await contact(A, hashOf(S))).toMatchObject({ status: 'pending', pubkey_hash: hashOf(S), name: null });
    const paid = await ok(A, 'POST', '/api/v1/wallet/send', { address: 'bob', amount: '10', currency: 'VWL' });
    await waitFor(() => ok(A, 'GET', `/api/v1/wallet/transactions/${paid.txid}`), (d) => d.transaction.status === 'completed', 'the payment to bob');
    expect((await ok(B, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' })).pagination.total).toBe(1);
    expect((await ok(S, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received' })).pagination.total).toBe(0);
  });

  it('a contact added with the expected pubkey_hash never binds to another key at its address', async () => {
    const A = await start();
    const impostor = await start();
    const expected = Identity.fromMnemonic(generateMnemonic()).pubkeyHash;

    // Reachable now: the hello's key differs, the add is refused and nothing is stored.
    const refused = await call(A, 'POST', '/api/v1/contacts', { address: impostor.node.baseUrl, name: 'dave', pubkey_hash: expected });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('identity_mismatch');
    expect(refused.body.error.message).toContain(expected);
    expect(await contact(A, 'dave')).toBeNull();

    // Unreachable at add time: the contact keeps the expected key; when an impostor answers there later, the
    // queued request is not delivered to it.
    const port = await freePort();
    const queued = await call(A, 'POST', '/api/v1/contacts', { address: `http://127.0.0.1:${port}`, name: 'erin', pubkey_hash: expected });
    expect(queued.status).toBe(201);
    expect(await contact(A, 'erin')).toMatchObject({ pubkey_hash: expected, status: 'pending' });
    const impostorAtPort = await start({ NODE_PORT: String(port) });
    await waitFor(
      () => ok(A, 'GET', '/api/v1/system/dlq'),
      (d) => (d.items as any[]).some((i) => /contact/.test(i.message_type) && /identity_mismatch/.test(i.failure_reason)),
      'the undeliverable request in the dead letter queue',
    );
    expect((await ok(impostorAtPort, 'GET', '/api/v1/contacts/pending')).counts.incoming).toBe(0);
    expect(await contact(A, 'erin')).toMatchObject({ pubkey_hash: expected });
  });

  it('an address notice takes effect only where the same key answers; private ranges are refused unless allowed', async () => {
    let hits = 0;
    const canary = http.createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    const canaryUrl = `http://127.0.0.1:${(canary.address() as net.AddressInfo).port}`;
    try {
      const strict = await start({ NODE_PEER_PRIVATE_ADDRESSES: 'false' });
      const open = await start();
      const C = await start();
      await connect(strict, C, { nameOfB: 'Carol', nameOfA: 'Sam' });
      await connect(open, C, { nameOfB: 'Carol', nameOfA: 'Olga' });
      const [strictBefore, openBefore] = [await contact(strict, 'Carol'), await contact(open, 'Carol')];

      await ok(C, 'PUT', '/api/v1/system/settings', { hostname: canaryUrl });
      await waitFor(() => contact(open, 'Carol'), (c) => c.last_seen_at !== openBefore.last_seen_at, 'the notice on the open node');
      await waitFor(async () => hits, (n) => n >= 1, 'the open node asking the canary for a hello');
      await waitFor(() => contact(strict, 'Carol'), (c) => c.last_seen_at !== strictBefore.last_seen_at, 'the notice on the strict node');
      // The canary answered no signed hello: neither node moved Carol there; the strict node never asked it.
      expect(hits).toBe(1);
      expect((await contact(strict, 'Carol')).addresses).toEqual(strictBefore.addresses);
      expect((await contact(open, 'Carol')).addresses).toEqual(openBefore.addresses);
      expect(await ok(open, 'POST', '/api/v1/contacts/ping/Carol')).toMatchObject({ online_status: 'online' });
    } finally {
      await new Promise<void>((resolve) => canary.close(() => resolve()));
    }
  });

  it('unknown keys cannot grow the pending list without bound; the list pages', async () => {
    // Seconds of key derivation, done before any connection is open: it would hold up this process's loop between requests.
    const strangers = Array.from({ length: 540 }, () => Identity.fromMnemonic(generateMnemonic()));
    const A = await start();
    await ok(A, 'PUT', '/api/v1/system/settings', { auto_reject_unknown_currency: false });
    const sessions = new SealingSessions();
    for (let i = 0; i < strangers.length; i += 60) {
      const answers = await postBatch(A, strangers.slice(i, i + 60).map((s) => requestEnvelope(s, A, 'VWL', sessions)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const first = await ok(A, 'GET', '/api/v1/contacts/pending');
    // 500 kept: the oldest 40 expired to make room.
    expect(first.counts).toEqual({ incoming: 500, outgoing: 0, total: 500 });
    expect(first.pending.incoming).toHaveLength(50);
    expect(first).toMatchObject({ limit: 50, offset: 0 });
    expect(await contact(A, strangers[0]!.pubkeyHash)).toBeNull();
    expect(await contact(A, strangers[539]!.pubkeyHash)).toMatchObject({ status: 'pending' });
    const last = await ok(A, 'GET', '/api/v1/contacts/pending', undefined, { limit: 100, offset: 450 });
    expect(last.pending.incoming).toHaveLength(50);
    expect(last.pending.incoming.at(-1).pubkey_hash).toBe(strangers[539]!.pubkeyHash);

    // One key may have at most 16 currencies waiting for a decision.
    const one = strangers[539]!;
    const codes = Array.from({ length: 17 }, (_, i) => `XC${String(i).padStart(2, '0')}`);
    const answers = await postBatch(A, codes.map((code) => requestEnvelope(one, A, code, sessions)));
    expect(answers.map((a) => a.status)).toEqual(Array(17).fill(200));
    const currencies = (await ok(A, 'GET', `/api/v1/contacts/${one.pubkeyHash}/currencies`)).currencies as any[];
    expect(currencies).toHaveLength(16);
    expect(currencies.some((c) => c.currency === 'XC15')).toBe(false);
  });

  it('a strict node holds no claimed loopback address: node-cli contact accept needs --address, which the node checks', async () => {
    const bob = await start({ NODE_PEER_PRIVATE_ADDRESSES: 'false' });
    const alice = await start();
    await ok(alice, 'POST', '/api/v1/contacts', { address: bob.node.baseUrl, name: 'Bob' });
    const pending = await waitFor(() => ok(bob, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'the request on Bob');
    expect(pending.pending.incoming[0].addresses).toEqual({ http: null, https: null, tor: null });
    const args = ['contact', 'accept', hashOf(alice), '--currency', 'VWL', '--fee', '0', '--credit', '10', '--name', 'Alice'];
    expect((await nodeCli(bob, args)).body.error).toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringMatching(/--address/) });
    // An address where another key answers is refused; Alice's own is taken, and the acceptance reaches her there.
    const wrong = await nodeCli(bob, [...args, '--address', bob.node.baseUrl]);
    expect(wrong.code).toBe(1);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_address', message: expect.stringMatching(/another key answers there/) });
    expect((await ok(bob, 'GET', `/api/v1/contacts/${hashOf(alice)}`)).contact.status).toBe('pending');
    const right = await nodeCli(bob, [...args, '--address', alice.node.baseUrl]);
    expect(right).toMatchObject({ code: 0, body: { data: { accepted: ['VWL'] } } });
    expect((await ok(bob, 'GET', '/api/v1/contacts/Alice')).contact.addresses.http).toBe(alice.node.baseUrl);
    await waitFor(() => ok(alice, 'GET', '/api/v1/contacts/Bob'), (d) => d.contact.status === 'accepted', 'the acceptance on Alice');
  });

  it('a decline to a requester known only by an untrusted loopback address says it is not delivered, on every decline route and in node-cli', async () => {
    const bob = await start({ NODE_PEER_PRIVATE_ADDRESSES: 'false' });
    const [alice, carol, dave] = [await start(), await start(), await start()];
    for (const t of [alice, bob]) await ok(t, 'PUT', '/api/v1/system/settings', { allowed_currencies: ['VWL', 'USD'] });
    for (const t of [alice, carol, dave]) await ok(t, 'POST', '/api/v1/contacts', { address: bob.node.baseUrl, name: 'Bob' });
    await ok(alice, 'POST', `/api/v1/contacts/${hashOf(bob)}/currencies`, { currency: 'USD' });
    await waitFor(() => ok(bob, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 3 && p.pending.incoming.every((r: any) => r.currencies.length === (r.pubkey_hash === hashOf(alice) ? 2 : 1)), 'three requests on Bob');
    const notice = { notice: 'not_delivered', notice_reason: expect.stringMatching(/no address .* trust.*peer_private_addresses_allowed/) };

    expect(await ok(bob, 'POST', `/api/v1/contacts/${hashOf(alice)}/currency-decline`, { currency: 'USD' })).toEqual({ message: expect.any(String), currency: 'USD', ...notice });
    expect(await ok(bob, 'POST', `/api/v1/contacts/${hashOf(alice)}/decline`)).toEqual({ message: expect.any(String), declined: ['VWL'], ...notice });
    expect(await ok(bob, 'POST', `/api/v1/contacts/${hashOf(carol)}/decisions`, { decisions: [{ currency: 'VWL', action: 'decline' }] }))
      .toEqual({ accepted: [], declined: ['VWL'], deferred: [], errors: [], ...notice });
    const cli = await nodeCli(bob, ['contact', 'decline', hashOf(dave)]);
    expect(cli).toMatchObject({ code: 0, body: { data: { declined: ['VWL'], ...notice } } });
    // Nothing reached them: the requesters still wait.
    for (const t of [alice, carol, dave]) expect((await ok(t, 'GET', '/api/v1/contacts/Bob')).contact.status).toBe('pending');
    // Where an address is trusted, the same decline reaches the peer and carries no notice.
    const eve = await start();
    await ok(bob, 'POST', '/api/v1/contacts', { address: eve.node.baseUrl, name: 'Eve' });
    await waitFor(() => ok(eve, 'GET', '/api/v1/contacts/pending'), (p) => p.counts.incoming === 1, 'the request on Eve');
    // Bob's address reaches Eve in the envelope of one of his messages, which need not be the request itself.
    await waitFor(() => ok(eve, 'GET', `/api/v1/contacts/${hashOf(bob)}`), (d) => Boolean(d.contact.addresses?.http), "Bob's address on Eve");
    await ok(eve, 'POST', `/api/v1/contacts/${hashOf(bob)}/currency-decline`, { currency: 'VWL' }).then((d) => expect(d.notice).toBeUndefined());
  });

  it('accepting without a credit never gives the requester more than the default limit', async () => {
    const A = await start();
    const stranger = Identity.fromMnemonic(generateMnemonic());
    const [answer] = await postBatch(A, [requestEnvelope(stranger, A, 'VWL', new SealingSessions(), { requested_credit_limit: '9000000000000000000' })]);
    expect(answer!.status).toBe(200);
    const res = await ok(A, 'POST', `/api/v1/contacts/${stranger.pubkeyHash}/currency-accept`, { currency: 'VWL', fee: 0 });
    expect(res).toEqual({ accepted: ['VWL'], declined: [], errors: [] });
    const [row] = (await ok(A, 'GET', `/api/v1/contacts/${stranger.pubkeyHash}/currencies`)).currencies as any[];
    expect(row).toMatchObject({ status: 'accepted', credit_limit: '100' });
  });
});
