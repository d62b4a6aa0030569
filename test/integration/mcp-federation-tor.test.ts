/**
 * Inference federation over Tor (issue 16): a buyer that reaches its seller by the seller's onion address calls it over
 * the Tor SOCKS proxy, streaming included: the directory, the request-key, the MCP session and every call go through
 * the proxy (a SOCKS5 server of the tests maps the onion names to loopback ports). Real nodes, the SDK client as the
 * customer, the fake upstream behind the seller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSocks, type FakeSocks } from '../support/fake-socks.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { chat, createKey, expectedCharge, hashOf, mcpClient, startMcpNode, topUp, waitFor, type Connected } from './mcp-support.js';
import { keyOfBuyer, learned, link, markedUp, resellWith, SELLER_RATES, sellOwnModel, usageOf } from './mcp-federation-support.js';

describe('a seller reached over Tor', () => {
  let fake: FakeUpstream;
  let socks: FakeSocks;
  let S: TestNode;
  let B: TestNode;
  let K: TestNode;
  let mcp: Connected;
  const rates = markedUp(SELLER_RATES, '10');
  const onionOf = (t: TestNode): string => t.node.identity.onionAddress;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    socks = await startFakeSocks();
    const env = { NODE_TOR_ENABLED: 'true', NODE_TOR_SOCKS: `${socks.host}:${socks.port}` };
    [S, B, K] = await Promise.all([startMcpNode({ env }), startMcpNode({ env }), startTestNode()]);
    socks.routes.set(onionOf(S), S.node.port);
    socks.routes.set(onionOf(B), B.node.port);
    await sellOwnModel(S, fake);
    await resellWith(B, '10');
    // B knows S by its onion address (and prefers Tor, the default transport mode).
    await connect(B, S, { nameOfB: 'seller', nameOfA: 'buyer', addressOfB: onionOf(S), addressOfA: onionOf(B) });
    await learned(B, 1);
    await link(K, B);
    const key = await createKey(B, { label: 'customer', contact: hashOf(K) });
    await topUp(K, B, key.key_id, '50');
    mcp = await mcpClient(B, key.token);
  }, 90_000);

  afterAll(async () => {
    await mcp?.client.close();
    await Promise.all([S, B, K].map((t) => t?.destroy()));
    await socks?.close();
    await fake?.close();
  });

  const throughTor = (from: number): number => socks.requests.slice(from).filter((r) => r.host === onionOf(S) && r.routed).length;

  it('learned the offer over Tor', () => {
    expect(throughTor(0)).toBeGreaterThanOrEqual(1);
  });

  it('buys whole and streamed calls over Tor, bills its own price and pays the seller its charge', async () => {
    const charges: string[] = [];
    for (const streamed of [false, true]) {
      const before = socks.requests.length;
      const deltas: string[] = [];
      const { isError, r } = await chat(mcp, { messages: [{ role: 'user', content: 'over tor' }], model: 'm1', max_output_tokens: 20 }, streamed ? (d) => deltas.push(d) : undefined);
      expect(isError).toBe(false);
      expect(r.route).toEqual({ kind: 'seller', provider: `seller:${hashOf(S).slice(0, 16)}`, hops: 1, seller: hashOf(S), failovers: 0 });
      expect(r.output).toBe('w1 w2 w3 w4 w5 ');
      if (streamed) expect(deltas.join('')).toBe(r.output);
      expect(r.charge).toBe(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes, rates));
      // Each exchange with the seller is a connection of its own through the proxy, to the seller's onion.
      expect(throughTor(before)).toBeGreaterThanOrEqual(1);
      charges.push(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes, SELLER_RATES));
    }
    const bKey = await keyOfBuyer(S, hashOf(B));
    const atS = await waitFor(() => usageOf(S, bKey.key_id), (u) => u.topups.length === 2, 'two top-ups at the seller', 30_000);
    expect(atS.usage.map((u: { charge: string }) => u.charge).sort()).toEqual([...charges].sort());
    expect(atS.topups.map((t: { amount: string }) => t.amount).sort()).toEqual([...charges].sort());
  });
});
