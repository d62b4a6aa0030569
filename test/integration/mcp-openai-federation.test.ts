/**
 * The OpenAI-compatible door on a reselling node: a call through it is resold to the seller that offers the model,
 * with its tools and options, and billed at the resale rates exactly as an MCP call is.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWords, type FakeUpstream } from '../support/fake-upstreams.js';
import type { TestNode } from '../support/node.js';
import { createKey, expectedCharge, hashOf } from './mcp-support.js';
import { oneSellerResale, usageOf } from './mcp-federation-support.js';

let fake: FakeUpstream;
let S: TestNode;
let C: TestNode;
let openai: OpenAI;

const TOOL = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };

beforeAll(async () => {
  ({ fake, S, C } = await oneSellerResale());
  const key = await createKey(C, { label: 'customer', contact: hashOf(S), funding: 'credit' });
  openai = new OpenAI({ baseURL: `${C.node.baseUrl}/p/mcp-passthrough/v1`, apiKey: key.token, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await Promise.all([S, C].map((t) => t?.destroy()));
  await fake?.close();
});

describe('the OpenAI door on a reselling node', () => {
  it('resells a whole and a streamed call to the seller, billed at the resale rates like the MCP tool', async () => {
    const whole: any = await openai.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'two words' }], temperature: 0.3 });
    expect(whole.choices[0].message.content).toBe(answerWords(5).join(''));
    expect(whole.billing.route).toMatchObject({ kind: 'seller', seller: hashOf(S), hops: 1 });
    expect(whole.billing.charge).toBe(expectedCharge(whole.usage.prompt_tokens, whole.usage.completion_tokens, whole.billing.transfer_bytes));
    expect(fake.requests[fake.requests.length - 1]!.body).toMatchObject({ temperature: 0.3 });

    const stream = await openai.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(answerWords(5).join(''));
    const last = chunks[chunks.length - 1];
    expect(last.billing.charge).toBe(expectedCharge(last.usage.prompt_tokens, last.usage.completion_tokens, last.billing.transfer_bytes));
    const rows = (await usageOf(C)).usage;
    for (const [id, charge] of [
      [whole.id, whole.billing.charge],
      [last.id, last.billing.charge],
    ]) {
      expect(rows.find((r: any) => r.call_id === id)).toMatchObject({ route: 'seller', charge });
    }
  });

  it('forwards tools to the seller and brings its tool calls back, whole and streamed', async () => {
    fake.behave('m1', { toolCall: { name: 'lookup', arguments: '{"q":"x"}' } });
    try {
      const whole = await openai.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'find x' }], tools: [TOOL], tool_choice: 'auto' });
      expect(whole.choices[0]!.message.tool_calls).toEqual([{ id: 'call_fake', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
      expect(fake.requests[fake.requests.length - 1]!.body).toMatchObject({ tools: [TOOL], tool_choice: 'auto' });
      const final = await openai.chat.completions.stream({ model: 'm1', messages: [{ role: 'user', content: 'find x' }], tools: [TOOL] }).finalChatCompletion();
      expect(final.choices[0]!.message.tool_calls).toEqual([{ id: 'call_fake', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
    } finally {
      fake.behave('m1', {});
    }
  });
});
