/**
 * Inference federation (issue 16): nodes resell each other's models over their contacts and pay each other exactly
 * over their credit lines. Real nodes on loopback, the official MCP SDK client as the customer, the fake upstream
 * behind the last seller. Proof refusals and admission: mcp-federation-proofs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { balanceRow } from './ledger-support.js';
import { chat, createKey, expectedCharge, hashOf, mcpClient, ok, PLUGIN, startMcpNode, topUp, waitFor, type Connected } from './mcp-support.js';
import { keyOfBuyer, learned, link, markedUp, resellWith, SELLER_RATES, sellOwnModel, sum, usageOf } from './mcp-federation-support.js';

const CALLS = 100;

describe('three nodes: C resells B, which resells S', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let B: TestNode;
  let C: TestNode;
  let K: TestNode;
  let mcp: Connected;
  let keyId: number;
  const rates = { S: SELLER_RATES, B: markedUp(SELLER_RATES, '10'), C: markedUp(markedUp(SELLER_RATES, '10'), '20') };

  beforeAll(async () => {
    fake = await startFakeUpstream();
    [S, B, C, K] = await Promise.all([startMcpNode(), startMcpNode(), startMcpNode(), startTestNode()]);
    await sellOwnModel(S, fake);
    await resellWith(B, '10');
    await resellWith(C, '20');
    await link(B, S);
    expect(await learned(B, 1)).toMatchObject({ seller: hashOf(S), origin: hashOf(S), ...{ in_price_per_1m: rates.S.in, out_price_per_1m: rates.S.out } });
    await link(C, B);
    expect(await learned(C, 2)).toMatchObject({ seller: hashOf(B), origin: hashOf(S), in_price_per_1m: rates.B.in, out_price_per_1m: rates.B.out, xfer_price_per_gb: rates.B.xfer });
    await link(K, C);
    const key = await createKey(C, { label: 'customer', contact: hashOf(K) });
    keyId = key.key_id;
    await topUp(K, C, keyId, '50');
    mcp = await mcpClient(C, key.token);
  }, 90_000);

  afterAll(async () => {
    await mcp?.client.close();
    await Promise.all([S, B, C, K].map((t) => t?.destroy()));
    await fake?.close();
  });

  it('lists the learned offer and explains the route with its estimated charge', async () => {
    const list = (await mcp.client.callTool({ name: 'chat.list_models', arguments: {} })).structuredContent as any;
    expect(list.routing_mode).toBe('local_and_network');
    expect(list.models).toEqual([
      { model: 'm1', label: 'm1', provider: `seller:${hashOf(B).slice(0, 16)}`, in_price_per_1m: rates.C.in, out_price_per_1m: rates.C.out, xfer_price_per_gb: rates.C.xfer, max_output_tokens: 1024, hops: 2, active: false },
    ]);
    const explain = (await mcp.client.callTool({ name: 'route.explain', arguments: { model: 'm1', estimated_input_tokens: 100, max_output_tokens: 10 } })).structuredContent as any;
    expect(explain.best).toMatchObject({ kind: 'seller', hops: 2, seller: { pubkey_hash: hashOf(B), origin: hashOf(S) }, ready: true, estimated_charge: expectedCharge(100, 10, 0, rates.C) });
  });

  it(`runs ${CALLS} calls at S, bills each node its own price and pays every seller exactly its charge`, async () => {
    const results: any[] = [];
    for (let i = 0; i < CALLS; i++) {
      const streamed = i % 2 === 0;
      const deltas: string[] = [];
      const { isError, r } = await chat(mcp, { messages: [{ role: 'user', content: `call number ${i} ${'word '.repeat(i % 7)}` }], model: 'm1', max_output_tokens: 20 }, streamed ? (d) => deltas.push(d) : undefined);
      expect(isError).toBe(false);
      expect(r.route).toEqual({ kind: 'seller', provider: `seller:${hashOf(B).slice(0, 16)}`, hops: 2, seller: hashOf(B), failovers: 0 });
      expect(r.output).toBe('w1 w2 w3 w4 w5 ');
      if (streamed) expect(deltas.join('')).toBe(r.output);
      // The customer pays C's price for exactly what S metered.
      expect(r.charge).toBe(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes, rates.C));
      results.push(r);
    }

    // Usage rows, call by call (sequential calls: the same order on every node).
    const atC = (await usageOf(C, keyId)).usage;
    const cKey = await keyOfBuyer(B, hashOf(C));
    const bKey = await keyOfBuyer(S, hashOf(B));
    // Every seller is paid exactly its charges: wait until the payments have completed and topped the keys up.
    for (const [seller, key] of [[B, cKey], [S, bKey]] as const) {
      await waitFor(() => usageOf(seller, key.key_id), (u) => u.topups.length === CALLS, `${CALLS} top-ups at a seller`, 30_000);
    }
    const atB = await usageOf(B, cKey.key_id);
    const atS = await usageOf(S, bKey.key_id);
    expect([atC.length, atB.usage.length, atS.usage.length]).toEqual([CALLS, CALLS, CALLS]);
    for (let i = 0; i < CALLS; i++) {
      const [c, b, s] = [atC[i], atB.usage[i], atS.usage[i]];
      for (const row of [c, b]) expect(row).toMatchObject({ route: 'seller', status: 'ok', input_tokens: s.input_tokens, output_tokens: s.output_tokens, transfer_bytes: s.transfer_bytes });
      expect(s).toMatchObject({ route: 'local', hops: 0, provider: 'up', status: 'ok' });
      expect([c.hops, b.hops]).toEqual([2, 1]);
      expect(s.charge).toBe(expectedCharge(s.input_tokens, s.output_tokens, s.transfer_bytes, rates.S));
      expect(b.charge).toBe(expectedCharge(s.input_tokens, s.output_tokens, s.transfer_bytes, rates.B));
      expect(c.charge).toBe(results[i].charge);
      // What each node owes its seller is the seller's own charge; each top-up paid exactly one of them.
      expect(c.cost).toBe(b.charge);
      expect(b.cost).toBe(s.charge);
      expect(atB.topups[i]).toMatchObject({ amount: b.charge, status: 'credited', to_debt: b.charge, to_balance: '0' });
      expect(atS.topups[i]).toMatchObject({ amount: s.charge, status: 'credited', to_debt: s.charge, to_balance: '0' });
    }

    const charged = { C: sum(atC.map((u) => u.charge)), B: sum(atB.usage.map((u) => u.charge)), S: sum(atS.usage.map((u) => u.charge)) };
    // The customer's key at C: top-up minus its charges, to the last 1e-8.
    const key = (await ok(C, 'GET', `${PLUGIN}/keys`)).keys.find((k: any) => k.key_id === keyId);
    expect(key.balance).toBe(sum(['50', `-${charged.C}`]));
    // C's key at B and B's key at S: every charge paid, nothing owed, nothing prepaid.
    for (const [seller, buyer] of [[B, C], [S, B]] as const) {
      const k = await keyOfBuyer(seller, hashOf(buyer));
      expect([k.balance, k.debt, k.funding]).toEqual(['0', '0', 'credit']);
    }
    // The ledger: what C sent B, and B sent S, is exactly the sellers' charges (K's top-up aside).
    expect(await balanceRow(C, B)).toMatchObject({ sent: charged.B, received: '0' });
    expect(await balanceRow(B, C)).toMatchObject({ received: charged.B, sent: '0' });
    expect(await balanceRow(B, S)).toMatchObject({ sent: charged.S, received: '0' });
    expect(await balanceRow(S, B)).toMatchObject({ received: charged.S, sent: '0' });
    expect(await balanceRow(C, K)).toMatchObject({ received: '50', sent: '0' });
    // Nothing is left owed to a seller: every record of a call's charge went with its completed payment.
    // (A buyer hears that its last payment completed just after the seller credited it.)
    for (const buyer of [C, B]) await waitFor(async () => (await ok(buyer, 'GET', `${PLUGIN}/status`)).federation.owed_calls, (n) => n === 0, 'no call owed');
    // The upstream saw exactly one request per call.
    expect(fake.requests.length).toBe(CALLS);
  }, 120_000);
});
