/**
 * Limits the operator sets on customer keys (issue 30, scopes 3 and 5): requests and tokens per minute, calls at once
 * and sessions, per key (key-create, key-update) or per default (`configure.set`); budgets per period with their soft
 * limit; model allow-lists. Each refusal is checked where it is configured: 429 with Retry-After and OpenAI's
 * `rate_limit_exceeded` on the OpenAI door, 429 with Retry-After and the JSON-RPC error -32029 as body on the MCP door; and never one call earlier.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { scrape, sample } from '../support/metrics.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { balanceOf, chat, configure, createKey, initializeBody, mcpClient, minor, model, ok, PLUGIN, rpc, startMcpNode, topUp } from './mcp-support.js';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;
const user = (content: string) => [{ role: 'user' as const, content }];

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await configure(seller, {
    provider: { id: 'primary', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-fake'), model('gpt-other'), model('gpt-hold')] },
    active: { provider: 'primary', model: 'gpt-fake' },
  });
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});

function client(token: string): OpenAI {
  return new OpenAI({ baseURL: `${seller.node.baseUrl}/p/mcp-passthrough/v1`, apiKey: token, maxRetries: 0 });
}

async function fundedKey(limits: Record<string, unknown> = {}, amount = '1'): Promise<{ keyId: number; token: string; openai: OpenAI }> {
  const key = await createKey(seller, { label: 'limited', contact: 'customer', ...limits });
  await topUp(customer, seller, key.key_id, amount);
  return { keyId: key.key_id, token: key.token, openai: client(key.token) };
}

/** The refusal of an OpenAI call: its status, error body and headers. */
async function refusal(p: Promise<unknown>): Promise<{ status: number; error: any; headers: Headers }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return { status: err.status ?? 0, error: err.error, headers: err.headers as Headers };
    throw err;
  }
  throw new Error('the call was not refused');
}


const ask = (openai: OpenAI, modelId = 'gpt-fake') => openai.chat.completions.create({ model: modelId, messages: user('four words in here'), max_completion_tokens: 16 });

describe('requests per minute', () => {
  it('a key of 3 a minute makes 3 calls through either door, and its 4th is refused with 429 and Retry-After', async () => {
    const { token, openai } = await fundedKey({ requests_per_minute: 3 });
    await ask(openai);
    const mcp = await mcpClient(seller, token);
    expect((await chat(mcp, { messages: user('hello there') })).isError).toBe(false);
    await ask(openai);
    const r = await refusal(ask(openai));
    expect(r.status).toBe(429);
    expect(r.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', limit: 'requests_per_minute' });
    const wait = Number(r.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // The MCP door over raw HTTP: 429 with Retry-After, the body the JSON-RPC error of the call.
    const raw = await rpc(
      seller,
      token,
      { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'chat.completion', arguments: { messages: user('hello again') } } },
      { 'mcp-session-id': mcp.transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(raw.status).toBe(429);
    const rawWait = Number(raw.headers.get('retry-after'));
    expect(rawWait).toBeGreaterThanOrEqual(1);
    expect(rawWait).toBeLessThanOrEqual(60);
    expect(raw.json).toMatchObject({ jsonrpc: '2.0', id: 77, error: { code: -32029, data: { code: 'rate_limit_exceeded', limit: 'requests_per_minute', retry_after: rawWait } } });
    // The SDK client: the call fails at once with an error naming the limit, and the session still serves.
    const failed = await chat(mcp, { messages: user('hello again') }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StreamableHTTPError);
    expect((failed as StreamableHTTPError).code).toBe(429);
    expect((failed as Error).message).toContain('requests_per_minute');
    expect((failed as Error).message).toContain('-32029');
    expect(await balanceOf(mcp)).toMatchObject({ currency: expect.any(String) });
    await mcp.client.close();
  });

  it('the operator default applies to keys without their own value, and a key-update lifts it for one key', async () => {
    await configure(seller, { set: { requests_per_minute: '2' } });
    try {
      const { keyId, openai } = await fundedKey();
      await ask(openai);
      await ask(openai);
      expect((await refusal(ask(openai))).status).toBe(429);
      const updated = await ok(seller, 'POST', `${PLUGIN}/key-update`, { id: keyId, requests_per_minute: 0 });
      expect(updated.limits).toMatchObject({ requests_per_minute: 0, effective: { requests_per_minute: 0 } });
      await ask(openai);
      const reset = await ok(seller, 'POST', `${PLUGIN}/key-update`, { id: keyId, requests_per_minute: null });
      expect(reset.limits).toMatchObject({ requests_per_minute: null, effective: { requests_per_minute: 2 } });
    } finally {
      await configure(seller, { set: { requests_per_minute: '0' } });
    }
  });
});

describe('tokens per minute', () => {
  it('refuses once the minute’s billed tokens reach the limit, not before', async () => {
    // Each call: 4 input words, 5 output words (the fake's default) = 9 tokens.
    const { openai } = await fundedKey({ tokens_per_minute: 18 });
    const first = await ask(openai);
    expect(first.usage!.total_tokens).toBe(9);
    await ask(openai);
    const r = await refusal(ask(openai));
    expect(r.status).toBe(429);
    expect(r.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded', limit: 'tokens_per_minute' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('parallel calls', () => {
  it('a key of 2 at once: a third call while two run is refused; once one ends, the next passes', async () => {
    let release!: () => void;
    fake.behave('gpt-hold', { holdUntil: new Promise<void>((r) => (release = r)) });
    const { openai } = await fundedKey({ parallel_calls: 2 });
    const held = [ask(openai, 'gpt-hold'), ask(openai, 'gpt-hold')];
    await waitForRequests('gpt-hold', 2);
    const r = await refusal(ask(openai));
    expect(r.status).toBe(429);
    expect(r.error).toMatchObject({ code: 'rate_limit_exceeded', limit: 'parallel_calls' });
    expect(r.headers.get('retry-after')).toBe('1');
    release();
    await Promise.all(held);
    await ask(openai);
  });
});

async function waitForRequests(modelId: string, n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (fake.requests.filter((r) => r.body.model === modelId).length >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the upstream never saw ${n} calls of ${modelId}`);
}

describe('sessions', () => {
  it('a key of 2 sessions keeps two; a third initialize ends the least recently used', async () => {
    const { token } = await fundedKey({ sessions: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await rpc(seller, token, initializeBody());
      expect(res.status).toBe(200);
      ids.push(res.headers.get('mcp-session-id')!);
    }
    const ping = (sid: string) => rpc(seller, token, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    expect((await ping(ids[0]!)).status).toBe(404);
    expect((await ping(ids[1]!)).status).toBe(200);
    expect((await ping(ids[2]!)).status).toBe(200);
  });
});

describe('budgets', () => {
  it('a daily budget: calls started together never pass it, a refusal only when the call cannot fit, and the soft limit fires once', async () => {
    await configure(seller, { set: { budget_soft_limit_pct: '50' } });
    const before = sample((await scrape(seller.node.baseUrl)).text, 'wallet_node_inference_budget_soft_limit_total');
    // A call here reserves some 0.0002 and is charged some 0.00005 (the reservation is its most possible cost).
    const BUDGET = 50_000n;
    const { keyId, openai } = await fundedKey({ budget: { amount: '0.0005', period: 'day' } });
    const spent = async (): Promise<bigint> => {
      const rows = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 500 })).usage as { charge: string }[];
      return rows.reduce((s, u) => s + minor(u.charge), 0n);
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => ask(openai)));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>);
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused) {
      expect(e.status).toBe(429);
      expect(e.error).toMatchObject({ type: 'insufficient_quota', code: 'budget_exceeded', period: 'day', budget: '0.0005' });
      expect(Number(e.headers?.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }
    expect(await spent()).toBeLessThanOrEqual(BUDGET);
    // One at a time until the budget refuses: the last refusal is one the call could not fit, and nothing passed it.
    let last: any = null;
    for (let i = 0; i < 50 && !last; i++) {
      const r = await ask(openai).catch((e: unknown) => e);
      if (r instanceof OpenAI.APIError) last = r.error;
    }
    expect(last).toMatchObject({ code: 'budget_exceeded' });
    const total = await spent();
    expect(total).toBeLessThanOrEqual(BUDGET);
    expect(minor(last.spent)).toBe(total);
    expect(total + minor(last.needed)).toBeGreaterThan(BUDGET);
    expect(total).toBeGreaterThanOrEqual(BUDGET / 2n);
    // Crossed 50 % once.
    expect(sample((await scrape(seller.node.baseUrl)).text, 'wallet_node_inference_budget_soft_limit_total')).toBe(before + 1);
    // Lifting the budget lets the key call again.
    await ok(seller, 'POST', `${PLUGIN}/key-update`, { id: keyId, budget: null });
    await ask(openai);
    await configure(seller, { set: { budget_soft_limit_pct: '80' } });
  });

  it('refuses a malformed budget', async () => {
    const { keyId } = await fundedKey();
    const res = await (await import('../support/api.js')).call(seller, 'POST', `${PLUGIN}/key-update`, { id: keyId, budget: { amount: '1', period: 'year' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.field ?? res.body.error.field).toBe('budget.period');
  });
});

describe('model allow-lists', () => {
  it('a key limited to one model lists only it and is refused another with 403 model_not_allowed', async () => {
    const { openai, token } = await fundedKey({ allowed_models: ['gpt-fake'] });
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual(['gpt-fake']);
    await ask(openai);
    const r = await refusal(ask(openai, 'gpt-other'));
    expect(r.status).toBe(403);
    expect(r.error).toMatchObject({ type: 'permission_error', code: 'model_not_allowed' });
    const mcp = await mcpClient(seller, token);
    const refusedMcp = await chat(mcp, { messages: user('hello'), model: 'gpt-other' });
    expect(refusedMcp.isError).toBe(true);
    expect(refusedMcp.r.error.code).toBe('model_not_allowed');
    await mcp.client.close();
  });
});

describe('balancing', () => {
  it('least_busy spreads calls of one model over its providers by the attempts running; status shows them', async () => {
    await configure(seller, { provider: { id: 'second', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-hold')] }, set: { balancing: 'least_busy' } });
    let release!: () => void;
    fake.behave('gpt-hold', { holdUntil: new Promise<void>((r) => (release = r)) });
    const { keyId, openai } = await fundedKey();
    const seen = fake.requests.filter((r) => r.body.model === 'gpt-hold').length;
    const held = Array.from({ length: 4 }, () => ask(openai, 'gpt-hold'));
    await waitForRequests('gpt-hold', seen + 4);
    const status = await ok(seller, 'GET', `${PLUGIN}/status`);
    const inFlight = (id: string) => status.providers.find((p: any) => p.id === id).health['gpt-hold'].in_flight;
    expect([inFlight('primary'), inFlight('second')]).toEqual([2, 2]);
    release();
    await Promise.all(held);
    const rows = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 10 })).usage as { provider: string }[];
    expect(rows.map((r) => r.provider).sort()).toEqual(['primary', 'primary', 'second', 'second']);
    // In the operator's order, every call goes to the first provider.
    await configure(seller, { set: { balancing: 'ordered' } });
    const ordered = await Promise.all(Array.from({ length: 3 }, () => ask(openai, 'gpt-hold')));
    expect(ordered.length).toBe(3);
    const after = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 3 })).usage as { provider: string }[];
    expect(after.map((r) => r.provider)).toEqual(['primary', 'primary', 'primary']);
  });
});
