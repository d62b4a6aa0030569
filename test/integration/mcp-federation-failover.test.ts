/**
 * A seller going away during a resold call (issue 16): mid-stream, the customer gets what was delivered with a clear
 * error and is billed only for it, the seller that reported no charge is paid nothing; before any output, the call
 * fails over to the next seller, which alone is billed and paid, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../builtin-plugins/mcp-passthrough/pricing.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { balanceRow } from './ledger-support.js';
import { chat, createKey, expectedCharge, hashOf, mcpClient, model, openaiProvider, startMcpNode, waitFor, type Connected } from './mcp-support.js';
import { keyOfBuyer, learned, link, resellWith, SELLER_RATES, usageOf } from './mcp-federation-support.js';

describe('a seller going down', () => {
  let fakes: FakeUpstream[];
  let S1: TestNode;
  let S2: TestNode;
  let C: TestNode;
  let mcp: Connected;
  let keyId: number;
  const dearer = { in: '2', out: '20', xfer: '0.5' };

  beforeAll(async () => {
    fakes = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
    [S1, S2, C] = await Promise.all([startMcpNode(), startMcpNode(), startMcpNode()]);
    await openaiProvider(S1, fakes[0]!, 'up', [model('m1')]);
    await openaiProvider(S2, fakes[1]!, 'up', [model('m1', { manual_in_per_1m: dearer.in, manual_out_per_1m: dearer.out })]);
    await resellWith(C, '0');
    await link(C, S1);
    await link(C, S2);
    await waitFor(() => learned(C, 1), () => true, 'offers');
    await waitFor(async () => (await import('./mcp-support.js')).ok(C, 'GET', '/api/v1/plugins/mcp-passthrough/status'), (s: any) => s.federation.sellers.length === 2, 'two sellers');
    // The customer's key runs on the credit C extends to S2 (any accepted contact would do).
    const key = await createKey(C, { label: 'customer', contact: hashOf(S2), funding: 'credit' });
    keyId = key.key_id;
    mcp = await mcpClient(C, key.token);
  }, 60_000);

  afterAll(async () => {
    await mcp?.client.close();
    await Promise.all([S1, S2, C].map((t) => t?.destroy()));
    await Promise.all((fakes ?? []).map((f) => f.close()));
  });

  it('mid-stream: the delivered output comes with an error, billed as delivered, and nobody pays for more', async () => {
    fakes[0]!.behave('m1', { stallAfter: 3 });
    const messages = [{ role: 'user', content: 'tell me a long story' }];
    const deltas: string[] = [];
    const pending = chat(mcp, { messages, model: 'm1', max_output_tokens: 50 }, (d) => {
      deltas.push(d);
      if (deltas.length === 3) void S1.stop();
    });
    const { isError, r } = await pending;
    expect(isError).toBe(true);
    expect(r.output).toBe('w1 w2 w3 ');
    expect(deltas.join('')).toBe('w1 w2 w3 ');
    expect(r.error.code).toBe('upstream_error');
    expect(r.route).toMatchObject({ kind: 'seller', seller: hashOf(S1), hops: 1 });
    // Billed only for what reached the customer, estimated (the seller's own count never came).
    const input = estimateInputTokens(messages as any);
    expect(r).toMatchObject({ estimated: true, input_tokens: input, output_tokens: 3, charge: expectedCharge(input, 3, 0, SELLER_RATES) });
    const [row] = (await usageOf(C, keyId)).usage;
    expect(row).toMatchObject({ status: 'error', route: 'seller', seller_hash: hashOf(S1), charge: r.charge, cost: '0', estimated: true });
    // C paid S1 nothing: no charge was reported to it.
    expect(await balanceRow(C, S1)).toMatchObject({ sent: '0', received: '0' });
  });

  it('before output: fails over to the next seller, billed and paid once', async () => {
    const { isError, r } = await chat(mcp, { messages: [{ role: 'user', content: 'one two three' }], model: 'm1', max_output_tokens: 10 });
    expect(isError).toBe(false);
    expect(r.route).toEqual({ kind: 'seller', provider: `seller:${hashOf(S2).slice(0, 16)}`, hops: 1, seller: hashOf(S2), failovers: 1 });
    expect(r.charge).toBe(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes, dearer));
    const key = await keyOfBuyer(S2, hashOf(C));
    const atS2 = await waitFor(() => usageOf(S2, key.key_id), (u) => u.topups.length === 1, 'the payment of S2');
    expect(atS2.usage).toHaveLength(1);
    expect(atS2.usage[0].charge).toBe(r.charge);
    expect(atS2.topups[0]).toMatchObject({ amount: r.charge, status: 'credited' });
    expect(await balanceRow(C, S2)).toMatchObject({ sent: r.charge, received: '0' });
    expect(await balanceRow(C, S1)).toMatchObject({ sent: '0', received: '0' });
    expect(fakes[1]!.requests).toHaveLength(1);
  });
});
