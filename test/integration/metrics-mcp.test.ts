/**
 * mcp-passthrough's families on the scrape endpoint: a settled call counts by provider and model with its tokens and
 * charge, and every upstream try is timed with its result, failures included (the signal of an upstream alert).
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { scrape, sample } from '../support/metrics.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { chat, configure, createKey, mcpClient, model, startMcpNode, topUp } from './mcp-support.js';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode({ env: { NODE_MCP_REQUEST_TIMEOUT_MS: '2000' } }), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await configure(seller, {
    provider: { id: 'primary', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-fake')] },
    active: { provider: 'primary', model: 'gpt-fake' },
  });
  // Nothing listens there: every try fails as unreachable.
  await configure(seller, { provider: { id: 'gone', preset: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', models: [model('gone-model')] } });
}, 60_000);

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});

describe('mcp-passthrough metrics', () => {
  it('a call counts by provider and model with its tokens and charge; a failing upstream shows in the try histogram', async () => {
    const key = await createKey(seller, { label: 'k', contact: 'customer' });
    await topUp(customer, seller, key.key_id, '1');
    const mcp = await mcpClient(seller, key.token);

    const ok = await chat(mcp, { messages: [{ role: 'user', content: 'one two three' }], max_output_tokens: 8 });
    expect(ok.isError).toBe(false);
    const failed = await chat(mcp, { model: 'gone-model', messages: [{ role: 'user', content: 'hello' }] });
    expect(failed.isError).toBe(true);

    const text = (await scrape(seller.node.baseUrl)).text;
    const at = { provider: 'primary', model: 'gpt-fake' };
    expect(sample(text, 'wallet_node_inference_calls_total', { ...at, status: 'ok' })).toBe(1);
    expect(sample(text, 'wallet_node_inference_tokens_total', { ...at, kind: 'input' })).toBe(ok.r.input_tokens);
    expect(sample(text, 'wallet_node_inference_tokens_total', { ...at, kind: 'output' })).toBe(ok.r.output_tokens);
    expect(new Decimal(sample(text, 'wallet_node_inference_charge_total', { ...at, currency: 'VWL' })).toDecimalPlaces(8).toString()).toBe(ok.r.charge);
    expect(sample(text, 'wallet_node_upstream_request_duration_seconds_count', { ...at, result: 'ok' })).toBe(1);
    // Every try is timed: the unreachable upstream is tried again once (the default `retries: 1`) before the call fails.
    expect(sample(text, 'wallet_node_upstream_request_duration_seconds_count', { provider: 'gone', model: 'gone-model', result: 'upstream_unreachable' })).toBe(2);
    expect(sample(text, 'wallet_node_inference_calls_total', { provider: 'gone', model: 'gone-model', status: 'error' })).toBe(1);
  });
});
