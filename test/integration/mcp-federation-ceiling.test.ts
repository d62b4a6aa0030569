/**
 * The operator's daily ceiling on what resold calls may cost (issue 16, `max_spend_per_day`) counts the calls still
 * running: two calls started together cannot pass it together. The ceiling here admits one call's estimate exactly;
 * while that call is held open at the seller, a second one finds no route (`daily_ceiling_reached`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../../builtin-plugins/mcp-passthrough/pricing.js';
import type { FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { chat, configure, createKey, hashOf, mcpClient, waitFor, type Connected } from './mcp-support.js';
import { oneSellerResale } from './mcp-federation-support.js';

describe('the daily ceiling with calls in flight', () => {
  let fake: FakeUpstream;
  let S: TestNode;
  let C: TestNode;
  let first: Connected;
  let second: Connected;
  const messages = [{ role: 'user', content: 'a question worth an answer' }];

  beforeAll(async () => {
    ({ fake, S, C } = await oneSellerResale());
    // Two customers (a session per key): the ceiling is the node's, whoever calls.
    const keys = [await createKey(C, { label: 'one', contact: hashOf(S), funding: 'credit' }), await createKey(C, { label: 'two', contact: hashOf(S), funding: 'credit' })];
    [first, second] = await Promise.all(keys.map((k) => mcpClient(C, k.token)));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first, second].map((m) => m?.client.close().catch(() => undefined)));
    await Promise.all([S, C].map((t) => t?.destroy()));
    await fake?.close();
  });

  it('a second call while the first still runs is refused; alone, the same call would pass', async () => {
    const explain = (await first.client.callTool({
      name: 'route.explain',
      arguments: { model: 'm1', estimated_input_tokens: estimateInputTokens(messages as any), max_output_tokens: 10 },
    })).structuredContent as any;
    const seller = explain.candidates.find((c: any) => c.kind === 'seller');
    expect(seller.ready).toBe(true);
    await configure(C, { set: { max_spend_per_day: seller.estimated_charge } });
    // The same dry run, with the ceiling at the estimate: still ready (the ceiling admits exactly one call).
    const again = (await second.client.callTool({
      name: 'route.explain',
      arguments: { model: 'm1', estimated_input_tokens: estimateInputTokens(messages as any), max_output_tokens: 10 },
    })).structuredContent as any;
    expect(again.candidates.find((c: any) => c.kind === 'seller')).toMatchObject({ ready: true, rejections: [] });

    fake.behave('m1', { stallAfter: 2 });
    void chat(first, { messages, model: 'm1', max_output_tokens: 10 }).catch(() => undefined);
    await waitFor(async () => fake.requests.length, (n) => n === 1, 'the first call at the seller');
    const { isError, r } = await chat(second, { messages, model: 'm1', max_output_tokens: 10 });
    expect(isError).toBe(true);
    expect(r.error.code).toBe('no_route');
    expect(JSON.stringify(r.error)).toContain('daily_ceiling_reached');
    expect(fake.requests).toHaveLength(1);
  });
});
