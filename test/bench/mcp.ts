/**
 * Benchmark of mcp-passthrough (BENCH_ONLY=mcp): what the passthrough adds over calling the fake upstream directly,
 * non-streamed (whole call) and streamed (time to the first text delta), p50 of sequential calls on loopback, through
 * the MCP door and through the OpenAI-compatible door (`v1/chat/completions`, the same call behind it); then
 * billed calls per second with 50 concurrent MCP sessions (SDK clients in a worker thread); then 200 streamed calls at
 * once from one address, under the per-address connection budget and behind a trusted proxy. Every call is billed:
 * priced model, prepaid keys funded by real top-up payments. It prints figures and asserts nothing.
 *
 * The direct and passthrough figures use the same minimal client (fetch, keep-alive), so their difference is the
 * node's work: authentication, session, the SDK's JSON-RPC handling, reservation, the upstream call, settlement.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { AS_OPERATORS_RUN, startTestNode, type TestNode } from '../support/node.js';
import type { McpLoadJob, McpLoadResult } from './mcp-worker.js';

const PLUGIN = '/api/v1/plugins/mcp-passthrough';

async function ok(t: TestNode, method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.admin.request<any>(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function until<T>(probe: () => Promise<T>, accept: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (accept(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setUp(keyCount: number): Promise<{ seller: TestNode; customer: TestNode; fake: FakeUpstream; tokens: string[] }> {
  const fake = await startFakeUpstream();
  const [seller, customer] = await Promise.all([startTestNode({ env: AS_OPERATORS_RUN }), startTestNode({ env: AS_OPERATORS_RUN })]);
  await ok(seller, 'POST', '/api/v1/plugins/mcp-passthrough/enable');
  await seller.restart();
  for (const t of [seller, customer]) await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
  await ok(seller, 'POST', '/api/v1/contacts', { address: customer.node.baseUrl, name: 'customer', fee_percent: 0, credit_limit: '1000000', currency: 'VWL' });
  await until(() => ok(customer, 'GET', '/api/v1/contacts/pending'), (d) => d.counts.incoming === 1, 'the contact request');
  await ok(customer, 'POST', `/api/v1/contacts/${seller.node.identity.pubkeyHash}/decisions`, {
    decisions: [{ currency: 'VWL', action: 'accept', fee: 0, credit: '1000' }],
    is_new_contact: true,
    contact_address: seller.node.baseUrl,
    contact_name: 'seller',
  });
  await until(() => ok(seller, 'GET', '/api/v1/contacts/customer'), (d) => d.contact?.status === 'accepted', 'the acceptance');
  await ok(seller, 'POST', `${PLUGIN}/configure`, {
    provider: {
      id: 'fake',
      preset: 'openai-compatible',
      endpoint: fake.openaiUrl,
      models: [{ id: 'bench', enabled: true, pricing_mode: 'manual', manual_in_per_1m: '1.5', manual_out_per_1m: '6', manual_xfer_per_gb: '0.1' }],
    },
    active: { provider: 'fake', model: 'bench' },
  });
  const tokens: string[] = [];
  for (let i = 0; i < keyCount; i++) {
    const key = await ok(seller, 'POST', `${PLUGIN}/key-create`, { label: `bench ${i}`, contact: 'customer' });
    tokens.push(key.token);
    await ok(customer, 'POST', '/api/v1/wallet/send', { address: seller.node.baseUrl, amount: '10', currency: 'VWL', description: `mcp-topup:${key.key_id}` });
  }
  await until(() => ok(seller, 'GET', `${PLUGIN}/keys`), (d) => d.keys.every((k: any) => k.balance === '10'), 'the top-ups');
  return { seller, customer, fake, tokens };
}

const MESSAGES = [{ role: 'user', content: 'benchmark the passthrough' }];
/** Keys the bursts share: 400 calls over two keys stay under a key's 600 a minute. */
const BURST_KEYS = 2;

/** A minimal MCP client over fetch: one session, then raw tools/call posts. */
async function rawSession(url: string, token: string) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await init.text();
  const headers = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  let id = 1;
  return (progress: boolean) =>
    fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: { name: 'chat.completion', arguments: { messages: MESSAGES, max_output_tokens: 16 }, ...(progress ? { _meta: { progressToken: id } } : {}) },
      }),
    });
}

/** Reads a streamed body until `marker` appears; returns the time it did, then drains the rest. */
async function timeTo(res: Response, marker: string, t0: number): Promise<number> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  let at = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    if (Number.isNaN(at) && seen.includes(marker)) at = performance.now() - t0;
  }
  if (Number.isNaN(at)) throw new Error(`the answer never carried ${marker}: ${seen.slice(0, 300)}`);
  return at;
}

/**
 * `n` calls of the baseline and `n` of the measured, alternating (after warm-up calls of both), so both meet the same
 * machine: a baseline sampled first, on a colder process, would flatter every figure taken after it.
 */
async function paired(n: number, base: () => Promise<number>, measured: () => Promise<number>): Promise<{ base: number[]; measured: number[] }> {
  for (let i = 0; i < Math.min(150, n); i++) {
    await base();
    await measured();
  }
  const out = { base: [] as number[], measured: [] as number[] };
  for (let i = 0; i < n; i++) {
    out.base.push(await base());
    out.measured.push(await measured());
  }
  out.base.sort((a, b) => a - b);
  out.measured.sort((a, b) => a - b);
  return out;
}

const p = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const ms = (v: number): string => `${v.toFixed(3)} ms`;

function runWorker(job: McpLoadJob): Promise<McpLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mcp-worker.js', import.meta.url), { workerData: job });
    worker.once('message', (msg: McpLoadResult | { error: string }) => {
      if ('error' in msg) reject(new Error(msg.error));
      else resolve(msg);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

export async function benchMcp(options: { samples: number; sessions: number; warmupMs: number; durationMs: number }): Promise<void> {
  // Keys: one per latency sample (each under its 600 posts a minute), one per concurrent session.
  const { seller, customer, fake, tokens } = await setUp(4 + options.sessions + BURST_KEYS);
  const url = `${seller.node.baseUrl}/p/mcp-passthrough/mcp`;
  const n = Math.min(options.samples, 400);
  try {
    const direct = (stream: boolean) => () => {
      const t0 = performance.now();
      return fetch(`${fake.openaiUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'bench', messages: MESSAGES, max_tokens: 16, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
      }).then((res) => (stream ? timeTo(res, '"content":"w1 "', t0) : res.text().then(() => performance.now() - t0)));
    };
    const wholeCall = await rawSession(url, tokens[0]!);
    const streamCall = await rawSession(url, tokens[1]!);
    const viaWhole = await paired(n, direct(false), () => {
      const t0 = performance.now();
      return wholeCall(false).then((res) => timeTo(res, '"result"', t0));
    });
    const viaFirst = await paired(n, direct(true), () => {
      const t0 = performance.now();
      return streamCall(true).then((res) => timeTo(res, 'notifications/progress', t0));
    });
    const openai = (token: string, stream: boolean) => () => {
      const t0 = performance.now();
      return fetch(`${seller.node.baseUrl}/p/mcp-passthrough/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ model: 'bench', messages: MESSAGES, max_tokens: 16, stream }),
      }).then((res) => (stream ? timeTo(res, '"content":"w1 "', t0) : res.text().then(() => performance.now() - t0)));
    };
    const openaiWhole = await paired(n, direct(false), openai(tokens[2]!, false));
    const openaiFirst = await paired(n, direct(true), openai(tokens[3]!, true));
    const line = (what: string, r: { base: number[]; measured: number[] }): string =>
      `  ${what} direct p50 ${ms(p(r.base, 0.5))}, passthrough p50 ${ms(p(r.measured, 0.5))}, added p50 ${ms(p(r.measured, 0.5) - p(r.base, 0.5))} (p90 passthrough ${ms(p(r.measured, 0.9))})`;
    console.log(`  ${n} calls each, alternating with as many direct ones (after 150 warm-up pairs), one client, keep-alive, loopback; every passthrough call billed`);
    console.log(line('MCP door, non-streamed, whole call:     ', viaWhole));
    console.log(line('MCP door, streamed, first text delta:   ', viaFirst));
    console.log(line('OpenAI door, non-streamed, whole call:  ', openaiWhole));
    console.log(line('OpenAI door, streamed, first text delta:', openaiFirst));
    console.log('  target: the OpenAI door adds at most 1 ms at p50');

    const load = await runWorker({ url, tokens: tokens.slice(4, 4 + options.sessions), warmupMs: options.warmupMs, durationMs: options.durationMs, maxCallsPerSession: 550 });
    const sorted = Array.from(load.latencies).sort((a, b) => a - b);
    console.log(
      `  ${options.sessions} concurrent SDK sessions (worker thread): ${Math.round((load.calls / load.windowMs) * 1000)} billed calls/s over ${(load.windowMs / 1000).toFixed(1)} s, ` +
        `latency p50 ${ms(p(sorted, 0.5))} p99 ${ms(p(sorted, 0.99))}, errors ${load.errors}${load.firstError ? ` (first: ${load.firstError.slice(0, 160)})` : ''}`,
    );
    // 200 streamed calls at once from one address (loopback), through the OpenAI door: with the per-address budget
    // (64 connections), then as customers behind a trusted proxy (the shared budget, 1024), told apart by key.
    // Keys of their own: the latency series and the sessions above spent most of their keys' 600 calls a minute.
    const burstTokens = tokens.slice(4 + options.sessions);
    const burst = async (label: string): Promise<void> => {
      const times = await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const t0 = performance.now();
          return fetch(`${seller.node.baseUrl}/p/mcp-passthrough/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${burstTokens[i % BURST_KEYS]!}` },
            body: JSON.stringify({ model: 'bench', messages: MESSAGES, max_tokens: 16, stream: true }),
          }).then((res) => timeTo(res, '[DONE]', t0), () => -1);
        }),
      );
      const failed = times.filter((t) => t < 0).length;
      const sorted = times.filter((t) => t >= 0).sort((a, b) => a - b);
      console.log(`  200 concurrent streamed OpenAI-door calls from one address, ${label}: p50 ${ms(p(sorted, 0.5))} p99 ${ms(p(sorted, 0.99))} max ${ms(sorted[sorted.length - 1]!)}, failed ${failed}`);
    };
    await burst('connectionsPerAddress 64');
    await ok(seller, 'PUT', '/api/v1/system/settings', { trusted_proxies: ['127.0.0.1'] });
    await burst('behind a trusted proxy (connectionsPerProxyAddress 1024)');

    const keys = (await ok(seller, 'GET', `${PLUGIN}/keys`)).keys as { balance: string }[];
    console.log(`  after the run: ${keys.filter((k) => k.balance !== '10').length} of ${keys.length} keys charged; every balance >= 0: ${keys.every((k) => !k.balance.startsWith('-'))}`);
  } finally {
    await Promise.all([seller.destroy(), customer.destroy()]);
    await fake.close();
  }
}
