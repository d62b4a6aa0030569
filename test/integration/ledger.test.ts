/**
 * The ledger between real nodes on loopback, driven through the REST API: exact balances both ways, the credit the
 * receiver extends, concurrency against one credit line and on one chain in both directions, chain links and
 * countersignatures, ping/pong chain heads, expiry of undelivered payments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { createHash, verify as edVerify, createPublicKey } from 'node:crypto';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow, call, connect, dec, hashOf, ok, send, setSettings, settled, settledAll, tx, waitFor } from './ledger-support.js';

const sum = (xs: (string | number)[]): Decimal => xs.reduce<Decimal>((a, x) => a.plus(String(x).trim()), new Decimal(0));

/** Every completed transaction of one pair as [txid, previous_txid], from one side. */
async function chainOf(t: TestNode, peer: TestNode, currency = 'VWL'): Promise<Map<string, string | null>> {
  const rows: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(t, 'GET', '/api/v1/wallet/transactions', undefined, { contact: hashOf(peer), limit: 100, offset });
    rows.push(...page.transactions);
    if (rows.length >= page.pagination.total) break;
  }
  return new Map(rows.filter((r) => r.status === 'completed' && r.currency === currency).map((r) => [r.txid, r.previous_txid]));
}

/** A chain is one line: a single first link (prev null), no prev shared by two rows, every prev present. */
function expectLinear(chain: Map<string, string | null>): void {
  const prevs = [...chain.values()];
  expect(prevs.filter((p) => p === null).length).toBe(chain.size ? 1 : 0);
  expect(new Set(prevs).size).toBe(prevs.length);
  for (const p of prevs) if (p !== null) expect(chain.has(p)).toBe(true);
}

function ed25519Key(raw: Buffer) {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

describe('ledger: direct payments between nodes', () => {
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  let D: TestNode;
  let E: TestNode;

  beforeAll(async () => {
    [A, B, C, D, E] = await Promise.all([startTestNode(), startTestNode(), startTestNode(), startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '1000', creditBtoA: '5000' });
    await connect(A, C, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'Carol' });
    await connect(A, D, { creditAtoB: '1000', creditBtoA: '100', nameOfB: 'Dave' });
    await connect(A, E, { creditAtoB: '1000', creditBtoA: '1000', nameOfB: 'Erin' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B, C, D, E].map((t) => t?.destroy()));
  });

  it('payments both ways are exact to 1e-8 on both sides and the two sides sum to zero', async () => {
    const aToB = ['10.5', '0.00000001', '123.45678901', ' 7 ', '1e2', 2.25, '999.99999999'];
    const bToA = ['3.3', '0.12345678', '0.00000009', '42'];
    for (const amount of aToB) expect((await settled(A, await send(A, 'Bob', amount), B)).status).toBe('completed');
    for (const amount of bToA) expect((await settled(B, await send(B, 'Alice', amount), A)).status).toBe('completed');

    const sentByA = sum(aToB);
    const sentByB = sum(bToA);
    const onA = (await balanceRow(A, B))!;
    const onB = (await balanceRow(B, A))!;
    expect(onA).toMatchObject({ sent: sentByA.toFixed(), received: sentByB.toFixed(), net_balance: sentByB.minus(sentByA).toFixed() });
    expect(onB).toMatchObject({ sent: sentByB.toFixed(), received: sentByA.toFixed(), net_balance: sentByA.minus(sentByB).toFixed() });
    expect(dec(onA.net_balance).plus(onB.net_balance).isZero()).toBe(true);
    expect(onA.sent).toBe('1243.20678901');
  });

  it('both sides hold the same chain, the same signed content and both valid signatures', async () => {
    const chainA = await chainOf(A, B);
    const chainB = await chainOf(B, A);
    expect(chainA.size).toBe(11);
    expect([...chainA.entries()].sort()).toEqual([...chainB.entries()].sort());
    expectLinear(chainA);

    const one = [...chainA.keys()][0]!;
    const export_ = await ok(A, 'GET', `/api/v1/wallet/transactions/${one}`);
    expect(export_.transaction.previous_txid).toBe(chainA.get(one));

    // The ledger keeps the content verbatim with both signatures (exports read them): check them with raw keys.
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(`${A.dataDir}/node.db`, { readonly: true });
    const row = db.prepare('SELECT content, sender_sig, recipient_sig, from_hash, to_hash FROM ledger_tx WHERE txid = ?').get(one) as any;
    db.close();
    const bytes = Buffer.from(`wn-tx-v1\n${row.content}`, 'utf8');
    const keyOf = (t: TestNode) => ed25519Key(t.node.identity.publicKey);
    const sender = row.from_hash === hashOf(A) ? A : B;
    const recipient = sender === A ? B : A;
    expect(edVerify(null, bytes, keyOf(sender), Buffer.from(row.sender_sig, 'base64url'))).toBe(true);
    expect(edVerify(null, bytes, keyOf(recipient), Buffer.from(row.recipient_sig, 'base64url'))).toBe(true);
    const content = JSON.parse(row.content);
    expect(content).toMatchObject({ v: 1, txid: one, from: row.from_hash, to: row.to_hash, memo: 'standard' });
    const txid = createHash('sha256')
      .update(`wn-txid-v1\n${content.from}\n${content.to}\n${content.amount}\n${content.currency}\n${content.time}\n${content.salt}`)
      .digest('hex');
    expect(txid).toBe(one);
  });

  it('ping/pong carries the real chain heads: both sides report the chain valid', async () => {
    const res = await call(A, 'POST', `/api/v1/contacts/ping/${encodeURIComponent('Bob')}`);
    expect(res.status).toBe(200);
    const bob = (await ok(A, 'GET', '/api/v1/contacts/Bob')).contact;
    expect(bob.chain_valid).toBe(true);
    const vwl = bob.currencies.find((c: any) => c.currency === 'VWL');
    expect(vwl.chain_valid).toBe(true);
  });

  it('a payment above the credit the receiver extends is rejected and nothing moves anywhere', async () => {
    const before = { a: await balanceRow(A, C), c: await balanceRow(C, A) };
    const countC = (await ok(C, 'GET', '/api/v1/wallet/transactions')).pagination.total;
    const txid = await send(A, 'Carol', '100.00000001');
    const s = await settled(A, txid);
    expect(s.status).toBe('rejected');
    expect(s.failure_reason).toMatch(/^insufficient_credit/);
    expect(await balanceRow(A, C)).toEqual(before.a);
    expect(await balanceRow(C, A)).toEqual(before.c);
    expect(await tx(C, txid)).toBeNull();
    expect((await ok(C, 'GET', '/api/v1/wallet/transactions')).pagination.total).toBe(countC);

    // Exactly the limit passes; one unit more does not.
    expect((await settled(A, await send(A, 'Carol', '100'), C)).status).toBe('completed');
    // The completion answer carries what Carol still lets A use: A's view is current without waiting for a ping.
    const carol = (await ok(A, 'GET', '/api/v1/contacts/Carol')).contact;
    expect(carol.currencies.find((r: { currency: string }) => r.currency === 'VWL').my_available_credit).toBe('0');
    const over = await settled(A, await send(A, 'Carol', '0.00000001'));
    expect(over.status).toBe('rejected');
    expect((await balanceRow(C, A))!.received).toBe('100');
    // Carol paying back frees the line again.
    expect((await settled(C, await send(C, 'Alice', '40'), A)).status).toBe('completed');
    expect((await settled(A, await send(A, 'Carol', '40'), C)).status).toBe('completed');
    expect((await balanceRow(C, A))!.net_balance).toBe('100');
  });

  it('50 concurrent sends against one credit line never exceed it', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => call(A, 'POST', '/api/v1/wallet/send', { address: 'Dave', amount: '2.5', currency: 'VWL' })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const outcomes = await settledAll(A, results.map((r) => r.body.data.txid as string));
    const completed = outcomes.filter((o) => o.status === 'completed');
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    expect(completed.length).toBe(40);
    expect(rejected.length).toBe(10);
    expect(rejected.every((o) => /^insufficient_credit/.test(o.failure_reason))).toBe(true);
    const onD = (await balanceRow(D, A))!;
    const onA = (await balanceRow(A, D))!;
    expect(onD.received).toBe('100');
    expect(onA.sent).toBe('100');
    expect(dec(onD.net_balance).lte(100)).toBe(true);
    expect((await ok(D, 'GET', '/api/v1/wallet/transactions', undefined, { type: 'received', limit: 100 })).pagination.total).toBe(40);
    expectLinear(await chainOf(D, A));
  });

  it('concurrent sends in both directions on one chain all settle, and the chain stays one line on both sides', async () => {
    const before = { a: (await balanceRow(A, E))?.net_balance ?? '0' };
    const n = 30;
    const [fromA, fromE] = await Promise.all([
      Promise.all(Array.from({ length: n }, (_, i) => send(A, 'Erin', `1.0000000${(i % 9) + 1}`))),
      Promise.all(Array.from({ length: n }, (_, i) => send(E, 'Alice', `2.0000000${(i % 9) + 1}`))),
    ]);
    const outA = await settledAll(A, fromA, E);
    const outE = await settledAll(E, fromE, A);
    expect(outA.map((o) => o.status)).toEqual(Array(n).fill('completed'));
    expect(outE.map((o) => o.status)).toEqual(Array(n).fill('completed'));

    const chainA = await chainOf(A, E);
    const chainE = await chainOf(E, A);
    expect(chainA.size).toBe(2 * n);
    expect([...chainA.entries()].sort()).toEqual([...chainE.entries()].sort());
    expectLinear(chainA);

    const paidByA = sum(Array.from({ length: n }, (_, i) => `1.0000000${(i % 9) + 1}`));
    const paidByE = sum(Array.from({ length: n }, (_, i) => `2.0000000${(i % 9) + 1}`));
    const onA = (await balanceRow(A, E))!;
    const onE = (await balanceRow(E, A))!;
    expect(dec(onA.net_balance).minus(before.a).toFixed()).toBe(paidByE.minus(paidByA).toFixed());
    expect(dec(onA.net_balance).plus(onE.net_balance).isZero()).toBe(true);
  });

  it('balances are kept per currency: a second currency has its own chain and totals', async () => {
    await setSettings(A, { allowed_currencies: ['VWL', 'USD'] });
    await setSettings(B, { allowed_currencies: ['VWL', 'USD'] });
    await connect(A, B, { currency: 'USD', creditAtoB: '50', creditBtoA: '50' });
    expect((await settled(A, await send(A, 'Bob', '12.34', 'usd'), B)).status).toBe('completed');
    const usdOnA = (await balanceRow(A, B, 'USD'))!;
    expect(usdOnA).toMatchObject({ currency: 'USD', sent: '12.34', received: '0', net_balance: '-12.34' });
    expect((await balanceRow(A, B, 'VWL'))!.sent).toBe('1243.20678901');
    const usdChain = await chainOf(A, B, 'USD');
    expect(usdChain.size).toBe(1);
    expect([...usdChain.values()]).toEqual([null]);
  });

  it('a currency the receiver does not allow, or a contact without that line, is refused before anything moves', async () => {
    // Bob never accepted EUR with Alice: the sender refuses at once (no route), nothing is queued.
    await setSettings(A, { allowed_currencies: ['VWL', 'USD', 'EUR'] });
    const res = await call(A, 'POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'EUR' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('no_route');
  });

  it('directTxExpiration cancels payments that never reached the network', async () => {
    const F = await startTestNode();
    try {
      await connect(A, F, { nameOfB: 'Frank' });
      await F.stop();
      await setSettings(A, { direct_tx_expiration: 1 });
      const first = await send(A, 'Frank', '1');
      const second = await send(A, 'Frank', '2');
      const s1 = await settled(A, first, undefined, 8000);
      const s2 = await settled(A, second, undefined, 8000);
      expect(s1.status).toBe('cancelled');
      expect(s2.status).toBe('cancelled');
      expect(s1.failure_reason).toMatch(/^expired/);
      expect((await balanceRow(A, F))?.sent ?? '0').toBe('0');
    } finally {
      await setSettings(A, { direct_tx_expiration: 0 });
      await F.destroy();
    }
  });

  it('transaction rows show both addresses, the memo and the exact amount', async () => {
    const txid = await send(A, 'Bob', '0.1', 'VWL', 'rent share');
    await settled(A, txid, B);
    const a = await tx(A, txid);
    const b = await tx(B, txid);
    expect(a).toMatchObject({ type: 'sent', tx_type: 'standard', status: 'completed', amount: '0.1', currency: 'VWL', memo: 'standard', description: 'rent share', counterparty_name: 'Bob' });
    expect(b).toMatchObject({ type: 'received', status: 'completed', amount: '0.1', description: 'rent share', counterparty_name: 'Alice' });
    expect(a.sender_address).toBe(b.sender_address);
    expect(a.receiver_address).toBe(b.receiver_address);
    expect(a.previous_txid).toBe(b.previous_txid);
    expect(new Date(a.timestamp).toISOString()).toBe(a.timestamp);
  });

  it('waits for nothing: the send answers before the payment settles, and settles within milliseconds', async () => {
    const t0 = Date.now();
    const txid = await send(A, 'Bob', '0.5');
    const s = await waitFor(() => tx(B, txid), (v) => v?.status === 'completed', 'completion', 5000);
    expect(s.amount).toBe('0.5');
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
