/**
 * Load through both doors from one client address (issue 30, "Done means"): 100 MCP sessions (the SDK client) and 200
 * streamed calls at once (100 over those sessions with progress, 100 through the OpenAI door with the `openai`
 * client), all from 127.0.0.1 as customers behind a trusted proxy (or Tor) arrive. The node counts them by key (ten
 * keys of ten sessions each), not by their shared address: no connection error, every call answered in full, one
 * usage row each, and the balances drop by exactly the sum of the charges. Timings are printed, not asserted beyond a
 * generous ceiling (figures: test/bench, BENCH_ONLY=mcp).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { chat, configure, createKey, mcpClient, minor, model, ok, PLUGIN, startMcpNode, topUp, type Connected } from './mcp-support.js';

const KEYS = 10;
const SESSIONS_PER_KEY = 10;
const WORDS = 20;

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller', creditAtoB: '1000', creditBtoA: '1000' });
  await configure(seller, {
    provider: { id: 'primary', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-load')] },
    active: { provider: 'primary', model: 'gpt-load' },
  });
  fake.behave('gpt-load', { words: WORDS });
  // The customers arrive through a proxy on this machine: its address has the shared budget, they are told apart by key.
  await ok(seller, 'PUT', '/api/v1/system/settings', { trusted_proxies: ['127.0.0.1'] });
}, 120_000);

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});


describe('load from one address', () => {
  it('100 sessions and 200 concurrent streamed calls: no connection error, all answered in full, billed exactly', async () => {
    const keys: { keyId: number; token: string }[] = [];
    for (let i = 0; i < KEYS; i++) {
      const key = await createKey(seller, { label: `load ${i}`, contact: 'customer', sessions: SESSIONS_PER_KEY });
      await topUp(customer, seller, key.key_id, '10');
      keys.push({ keyId: key.key_id, token: key.token });
    }
    const sessions: Connected[] = await Promise.all(keys.flatMap((k) => Array.from({ length: SESSIONS_PER_KEY }, () => mcpClient(seller, k.token))));
    expect(sessions.length).toBe(100);
    expect((await ok(seller, 'GET', `${PLUGIN}/status`)).sessions).toBe(100);

    const expected = Array.from({ length: WORDS }, (_, i) => `w${i + 1} `).join('');
    const timed = async (run: () => Promise<string>): Promise<{ ms: number; output: string; error: string | null }> => {
      const t0 = performance.now();
      try {
        const output = await run();
        return { ms: performance.now() - t0, output, error: null };
      } catch (err) {
        return { ms: performance.now() - t0, output: '', error: err instanceof Error ? err.message : String(err) };
      }
    };
    const viaMcp = sessions.map((s, i) =>
      timed(async () => {
        let deltas = '';
        const r = await chat(s, { messages: [{ role: 'user', content: `load call ${i}` }], max_output_tokens: 64 }, (d) => (deltas += d));
        if (r.isError) throw new Error(JSON.stringify(r.r));
        if (deltas !== r.r.output) throw new Error(`streamed ${JSON.stringify(deltas)}, answered ${JSON.stringify(r.r.output)}`);
        return r.r.output as string;
      }),
    );
    const viaOpenAi = keys.flatMap((k) =>
      Array.from({ length: SESSIONS_PER_KEY }, (_, i) =>
        timed(async () => {
          const openai = new OpenAI({ baseURL: `${seller.node.baseUrl}/p/mcp-passthrough/v1`, apiKey: k.token, maxRetries: 0 });
          const stream = await openai.chat.completions.create({ model: 'gpt-load', messages: [{ role: 'user', content: `openai call ${i}` }], max_tokens: 64, stream: true });
          let text = '';
          for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
          return text;
        }),
      ),
    );
    const results = await Promise.all([...viaMcp, ...viaOpenAi]);
    const errors = results.filter((r) => r.error);
    expect(errors.map((e) => e.error)).toEqual([]);
    expect(results.filter((r) => r.output === expected).length).toBe(200);
    const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
    console.log(`200 concurrent streamed calls from one address: p50 ${sorted[99]!.toFixed(0)} ms, p99 ${sorted[197]!.toFixed(0)} ms, max ${sorted[199]!.toFixed(0)} ms`);
    // Generous (8 engineers share 2 cores here): a call stalled behind a connection budget would wait for the 10 s
    // first-byte timeout and then fail as a connection error, which the assertions above count.
    expect(sorted[199]).toBeLessThan(60_000);

    const listed = (await ok(seller, 'GET', `${PLUGIN}/keys`)).keys as { key_id: number; balance: string }[];
    let drop = 0n;
    let charged = 0n;
    for (const k of keys) {
      drop += minor('10') - minor(listed.find((l) => l.key_id === k.keyId)!.balance);
      const rows = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: k.keyId, limit: 500 })).usage as { charge: string; status: string }[];
      expect(rows.length).toBe(2 * SESSIONS_PER_KEY);
      expect(rows.every((r) => r.status === 'ok')).toBe(true);
      charged += rows.reduce((s, r) => s + minor(r.charge), 0n);
    }
    expect(charged).toBeGreaterThan(0n);
    expect(drop).toBe(charged);
    await Promise.all(sessions.map((s) => s.client.close()));
  }, 180_000);
});
