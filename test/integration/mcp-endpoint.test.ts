/**
 * The customer MCP endpoint with the official SDK client (Client + StreamableHTTPClientTransport): initialize and
 * version negotiation, every listed method, the seven tools, three resources, three prompts, completions, logging,
 * billed chat.completion with and without progress, cancellation that reaches the upstream, DELETE and session/end,
 * 401 and 404 rules, one session per bearer and the idle sweep.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import type { Clock } from '../../sdk/index.js';
import { connect } from './ledger-support.js';
import {
  createKey,
  expectedCharge,
  initializeBody,
  mcpClient,
  model,
  ok,
  openaiProvider,
  PLUGIN,
  rpc,
  startMcpNode,
  structured,
  topUp,
  waitFor,
} from './mcp-support.js';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;
let token: string;
let keyId: number;
let otherToken: string;
let offset = 0;
const clock: Clock = { now: () => Date.now() + offset };

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode({ clock, env: { NODE_MCP_RESUME_WINDOW_MS: '1000' } }), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await openaiProvider(seller, fake, 'fake', [model('gpt-fake'), model('gpt-stall'), model('gpt-off', { enabled: false })]);
  fake.behave('gpt-stall', { stallAfter: 2, words: 10 });
  const key = await createKey(seller, { label: 'customer key', contact: 'customer' });
  token = key.token;
  keyId = key.key_id;
  otherToken = (await createKey(seller, { label: 'other', contact: 'customer' })).token;
  await topUp(customer, seller, keyId, '10');
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});

describe('MCP endpoint with the SDK client', () => {
  it('initializes with the newest protocol revision and the capabilities of the plugin', async () => {
    const { client, transport } = await mcpClient(seller, token);
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-passthrough' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} });
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await client.ping();
    await client.setLoggingLevel('debug');
    await client.close();
  });

  it('lists the seven tools, three resources, no templates and three prompts', async () => {
    const { client } = await mcpClient(seller, token);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual([
      'chat.list_models',
      'balance.check',
      'topup.instructions',
      'usage.recent',
      'route.explain',
      'route.status',
      'chat.completion',
    ]);
    const resources = await client.listResources();
    expect(resources.resources.map((r) => r.uri)).toEqual([
      'mcp-passthrough://provider/active',
      'mcp-passthrough://provider/models',
      'mcp-passthrough://usage/recent',
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toEqual(['concise_summary', 'model_picker', 'balance_check_workflow']);
    await client.close();
  });

  it('answers the diagnostic tools', async () => {
    const { client } = await mcpClient(seller, token);
    const models = structured(await client.callTool({ name: 'chat.list_models', arguments: {} }));
    expect(models).toMatchObject({ currency: 'VWL', active_model: 'gpt-fake', routing_mode: 'local' });
    expect(models.models.map((m: any) => m.model)).toEqual(['gpt-fake', 'gpt-stall']);
    expect(models.models[0]).toMatchObject({ in_price_per_1m: '1.23456789', out_price_per_1m: '9.87654321', xfer_price_per_gb: '0.5', max_output_tokens: 1024 });
    const balance = structured(await client.callTool({ name: 'balance.check', arguments: {} }));
    expect(balance).toMatchObject({ key_id: keyId, balance: '10', currency: 'VWL' });
    expect(Date.parse(balance.last_used_at)).toBeGreaterThan(0);
    const topup = structured(await client.callTool({ name: 'topup.instructions', arguments: {} }));
    expect(topup).toMatchObject({ key_id: keyId, memo: `mcp-topup:${keyId}`, currency: 'VWL', sends_payment: false });
    expect(topup.node.pubkey_hash).toBe(seller.node.identity.pubkeyHash);
    expect(topup.node.http).toBe(seller.node.baseUrl);
    const explain = structured(await client.callTool({ name: 'route.explain', arguments: { estimated_input_tokens: 1000, max_output_tokens: 100000 } }));
    expect(explain.candidates).toHaveLength(1);
    expect(explain.candidates[0]).toMatchObject({ provider: 'fake', model: 'gpt-fake', ready: true, max_output_tokens: 1024, rejections: [] });
    expect(explain.candidates[0].estimated_charge).toBe(expectedCharge(1000, 1024, 0));
    const disabled = structured(await client.callTool({ name: 'route.status', arguments: { model: 'gpt-off' } }));
    expect(disabled).toMatchObject({ ready: 0, rejected: 1, best: null, execution_mode: 'synchronous', pending_requests_supported: false });
    expect(disabled.rejections[0].reasons).toEqual(['model_disabled']);
    const bad = await client.callTool({ name: 'usage.recent', arguments: { limit: 201 } });
    expect(bad.isError).toBe(true);
    expect(structured(bad).error.code).toBe('invalid_arguments');
    await expect(client.callTool({ name: 'no.such.tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('runs a billed chat.completion without progress: one result, charged exactly', async () => {
    const { client } = await mcpClient(seller, token);
    const before = fake.requests.length;
    const result = await client.callTool({ name: 'chat.completion', arguments: { messages: [{ role: 'user', content: 'say five words please' }], max_output_tokens: 50 } });
    expect(result.isError).toBeFalsy();
    const r = structured(result);
    expect(r).toMatchObject({ output: 'w1 w2 w3 w4 w5 ', model: 'gpt-fake', provider: 'fake', input_tokens: 4, output_tokens: 5, estimated: false, currency: 'VWL' });
    const sent = fake.requests[before]!;
    expect(sent.body).toMatchObject({ model: 'gpt-fake', max_tokens: 50, stream: false, messages: [{ role: 'user', content: 'say five words please' }] });
    const usage = structured(await client.callTool({ name: 'usage.recent', arguments: { limit: 1 } })).usage[0];
    expect(usage).toMatchObject({ usage_id: r.usage_id, status: 'ok', input_tokens: 4, output_tokens: 5, charge: r.charge });
    expect(r.charge).toBe(expectedCharge(4, 5, usage.transfer_bytes));
    expect(r.charge).not.toBe('0');
    await client.close();
  });

  it('streams text deltas as notifications/progress with a progress token, then the result', async () => {
    const { client } = await mcpClient(seller, token);
    const deltas: string[] = [];
    const result = await client.callTool({ name: 'chat.completion', arguments: { messages: [{ role: 'user', content: 'stream me' }] } }, undefined, {
      onprogress: (p) => deltas.push(String(p.message)),
    });
    expect(deltas).toEqual(['w1 ', 'w2 ', 'w3 ', 'w4 ', 'w5 ']);
    expect(structured(result)).toMatchObject({ output: 'w1 w2 w3 w4 w5 ', input_tokens: 2, output_tokens: 5, estimated: false });
    expect(fake.requests[fake.requests.length - 1]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 1024 });
    await client.close();
  });

  it('cancellation aborts the upstream call; the output produced stays billed', async () => {
    const { client } = await mcpClient(seller, token);
    const abandoned = fake.abandoned.count;
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = client.callTool({ name: 'chat.completion', arguments: { model: 'gpt-stall', messages: [{ role: 'user', content: 'long answer' }] } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        deltas.push(String(p.message));
        if (deltas.length === 2) controller.abort('changed my mind');
      },
    });
    await expect(call).rejects.toThrow();
    await waitFor(async () => fake.abandoned.count, (n) => n === abandoned + 1, 'the upstream call to be abandoned');
    const usage = await waitFor(
      async () => (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 1 })).usage[0],
      (u) => u?.model === 'gpt-stall',
      'the usage row of the cancelled call',
    );
    expect(usage).toMatchObject({ status: 'cancelled', output_tokens: 2, estimated: true });
    expect(usage.charge).toBe(expectedCharge(usage.input_tokens, 2, usage.transfer_bytes));
    expect(usage.charge).not.toBe('0');
    await client.close();
  });

  it('a closed connection not resumed within the window (1 s here) aborts the upstream call', async () => {
    const init = await rpc(seller, token, initializeBody());
    const sid = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    expect((await rpc(seller, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
    const abandoned = fake.abandoned.count;
    const controller = new AbortController();
    const res = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'chat.completion', arguments: { model: 'gpt-stall', messages: [{ role: 'user', content: 'hang up on me' }] }, _meta: { progressToken: 'p' } },
      }),
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('w2 ')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await waitFor(async () => fake.abandoned.count, (n) => n === abandoned + 1, 'the upstream call to be abandoned');
    const usage = await waitFor(
      async () => (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 1 })).usage[0],
      (u) => u?.call_id === '7',
      'the usage row of the call',
    );
    expect(usage).toMatchObject({ status: 'cancelled', output_tokens: 2 });
  });

  it('a dropped stream resumed with Last-Event-ID delivers the rest of the answer once, billed once', async () => {
    let resume!: () => void;
    fake.behave('gpt-fake', { words: 6, pauseAfter: { deltas: 2, until: new Promise<void>((r) => (resume = r)) } });
    const init = await rpc(seller, token, initializeBody());
    const sid = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    expect((await rpc(seller, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
    const base = { authorization: `Bearer ${token}`, ...headers };
    const before = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 500 })).usage.length;
    const controller = new AbortController();
    const res = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...base },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'resume-me',
        method: 'tools/call',
        params: { name: 'chat.completion', arguments: { model: 'gpt-fake', messages: [{ role: 'user', content: 'a dropped link' }] }, _meta: { progressToken: 'p' } },
      }),
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!/w2 [^\n]*\n\n/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
    const events = (text: string) =>
      text.split('\n\n').slice(0, -1).filter((e) => e.includes('data: {')).map((e) => ({ id: /^id: (.+)$/m.exec(e)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(e)![1]!) }));
    const first = events(seen);
    expect(first.every((e) => e.id)).toBe(true);
    const lastId = first[first.length - 1]!.id!;
    controller.abort();
    // The call goes on while the link is down: the upstream finishes its answer.
    resume();
    const resumed = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), {
      headers: { accept: 'text/event-stream', 'last-event-id': lastId, ...base },
    });
    expect(resumed.status).toBe(200);
    const reader2 = resumed.body!.getReader();
    let rest = '';
    while (!/"id":"resume-me"[^\n]*\n\n/.test(rest)) rest += new TextDecoder().decode((await reader2.read()).value);
    await reader2.cancel();
    const replayed = events(rest);
    const deltas = [...first, ...replayed].filter((e) => e.data.method === 'notifications/progress').map((e) => e.data.params.message);
    expect(deltas).toEqual(['w1 ', 'w2 ', 'w3 ', 'w4 ', 'w5 ', 'w6 ']);
    const answer = replayed.find((e) => e.data.id === 'resume-me')!.data.result;
    expect(answer.structuredContent).toMatchObject({ output: 'w1 w2 w3 w4 w5 w6 ', output_tokens: 6 });
    const rows = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 500 })).usage;
    expect(rows.length).toBe(before + 1);
    expect(rows[0]).toMatchObject({ call_id: 'resume-me', status: 'ok', output_tokens: 6, charge: answer.structuredContent.charge });
    // A second resume from the same point replays the same events, not new ones; an unknown id is refused.
    const again = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), { headers: { accept: 'text/event-stream', 'last-event-id': 'nope.3', ...base } });
    expect(again.status).toBe(400);
    await again.text();
    fake.behave('gpt-fake', {});
  });

  it('returns tool failures as isError results', async () => {
    const { client } = await mcpClient(seller, token);
    const cases: [Record<string, unknown>, string][] = [
      [{ messages: [] }, 'invalid_arguments'],
      [{ messages: [{ role: 'tool', content: 'x' }] }, 'invalid_arguments'],
      [{ messages: [{ role: 'user', content: [{ type: 'image' }] }] }, 'invalid_arguments'],
      [{ messages: [{ role: 'user', content: 'x' }], max_output_tokens: 0 }, 'invalid_arguments'],
      [{ messages: [{ role: 'user', content: 'x' }], provider_key: 'sk' }, 'invalid_arguments'],
      [{ messages: [{ role: 'user', content: 'x' }], model: 'nope' }, 'model_not_found'],
      [{ messages: [{ role: 'user', content: 'x' }], model: 'gpt-off' }, 'no_route'],
      [{ messages: [{ role: 'user', content: 'x' }], routing: { policy: 'fastest' } }, 'invalid_arguments'],
    ];
    for (const [args, code] of cases) {
      const res = await client.callTool({ name: 'chat.completion', arguments: args });
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(structured(res).error.code, JSON.stringify(args)).toBe(code);
    }
    await client.close();
  });

  it('reads the three resources as JSON, and refuses an unknown one', async () => {
    const { client } = await mcpClient(seller, token);
    const read = async (uri: string) => JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    expect(await read('mcp-passthrough://provider/active')).toEqual({
      provider: 'fake',
      preset: 'openai-compatible',
      has_token: false,
      model_count: 3,
      enabled_model_count: 2,
      active_model: 'gpt-fake',
    });
    expect((await read('mcp-passthrough://provider/models')).models).toHaveLength(2);
    const usage = await read('mcp-passthrough://usage/recent');
    expect(usage.usage.length).toBeGreaterThan(0);
    expect(usage.usage.every((u: any) => u.cost === undefined)).toBe(true);
    await expect(client.readResource({ uri: 'mcp-passthrough://balance' })).rejects.toThrow(McpError);
    await client.close();
  });

  it('gets the three prompts (no paid call) and completes arguments', async () => {
    const { client } = await mcpClient(seller, token);
    const calls = fake.requests.length;
    const summary = await client.getPrompt({ name: 'concise_summary', arguments: { content: 'A long text.' } });
    expect((summary.messages[0]!.content as { text: string }).text).toContain('A long text.');
    const picker = await client.getPrompt({ name: 'model_picker', arguments: { task_description: 'translate', quality: 'high', budget: '0.01' } });
    expect((picker.messages[0]!.content as { text: string }).text).toContain('gpt-fake');
    await client.getPrompt({ name: 'balance_check_workflow', arguments: { low_threshold: '1' } });
    await expect(client.getPrompt({ name: 'concise_summary', arguments: {} })).rejects.toThrow(/content/);
    expect(fake.requests.length).toBe(calls);
    const quality = await client.complete({ ref: { type: 'ref/prompt', name: 'model_picker' }, argument: { name: 'quality', value: 'h' } });
    expect(quality.completion.values).toEqual(['high']);
    const uris = await client.complete({ ref: { type: 'ref/resource', uri: 'mcp-passthrough://{x}' }, argument: { name: 'x', value: 'mcp-passthrough://usage' } });
    expect(uris.completion.values).toEqual(['mcp-passthrough://usage/recent']);
    const models = await client.complete({ ref: { type: 'ref/prompt', name: 'model_picker' }, argument: { name: 'model', value: 'gpt-s' } });
    expect(models.completion.values).toEqual(['gpt-stall']);
    await client.close();
  });

  it('terminates with DELETE; the session then answers 404', async () => {
    const { client, transport } = await mcpClient(seller, token);
    const sid = transport.sessionId!;
    await transport.terminateSession();
    const after = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
    expect(after.status).toBe(404);
    expect(after.json.error.code).toBe(-32001);
    await client.close();
  });

  it('ends with session/end; the session then answers 404', async () => {
    const init = await rpc(seller, token, initializeBody());
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const end = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'session/end' }, headers);
    expect(end.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await waitFor(async () => (await rpc(seller, token, { jsonrpc: '2.0', id: 3, method: 'ping' }, headers)).status, (s) => s === 404, 'the session to end');
  });

  it('negotiates protocol versions: echoes a supported one, answers an unknown one with the newest', async () => {
    for (const [asked, got] of [
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
      ['2024-11-05', '2024-11-05'],
      ['2024-10-07', '2025-11-25'],
      ['2030-01-01', '2025-11-25'],
    ]) {
      const res = await rpc(seller, token, initializeBody(asked));
      expect(res.status).toBe(200);
      expect(res.json.result.protocolVersion, asked).toBe(got);
    }
    const init = await rpc(seller, token, initializeBody());
    const sid = init.headers.get('mcp-session-id')!;
    const bad = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' });
    expect(bad.status).toBe(400);
  });

  it('needs notifications/initialized before tools, and answers 202 to it', async () => {
    const init = await rpc(seller, token, initializeBody());
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const early = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
    expect(early.json.error.code).toBe(-32012);
    const note = await rpc(seller, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
    const later = await rpc(seller, token, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers);
    expect(later.json.result.tools).toHaveLength(7);
  });

  it('401 for a missing or wrong bearer; another key cannot touch a session it did not create', async () => {
    const none = await rpc(seller, null, initializeBody());
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect(none.json.error.code).toBe(-32010);
    expect((await rpc(seller, 'mcp_' + 'x'.repeat(43), initializeBody())).status).toBe(401);
    expect((await rpc(seller, 'not-ours', initializeBody())).status).toBe(401);
    const init = await rpc(seller, token, initializeBody());
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const stolen = await rpc(seller, otherToken, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    expect(stolen.status).toBe(404);
    const del = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), { method: 'DELETE', headers: { authorization: `Bearer ${otherToken}`, ...headers } });
    expect(del.status).toBe(404);
    expect((await rpc(seller, token, { jsonrpc: '2.0', id: 3, method: 'ping' }, headers)).status).toBe(200);
  });

  it('keeps one session per bearer: a new initialize ends the earlier one', async () => {
    const first = await rpc(seller, token, initializeBody());
    const h1 = { 'mcp-session-id': first.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await rpc(seller, token, initializeBody());
    expect((await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'ping' }, h1)).status).toBe(404);
  });

  it('answers GET with 405 (no standalone stream) and an unknown session with 404', async () => {
    const get = await fetch(new URL(`${seller.node.baseUrl}/p/mcp-passthrough/mcp`), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
    const unknown = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': 'f'.repeat(36) });
    expect(unknown.status).toBe(404);
    const noSid = await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(noSid.status).toBe(400);
    const parse = await rpc(seller, token, '{not json');
    expect(parse.status).toBe(400);
    expect(parse.json.error.code).toBe(-32700);
  });

  it('sweeps a session idle for more than 30 minutes', async () => {
    const init = await rpc(seller, token, initializeBody());
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    seller.node.jobs.kick('mcp-passthrough.sessions-sweep');
    expect((await rpc(seller, token, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers)).status).toBe(200);
    offset += 31 * 60 * 1000;
    seller.node.jobs.kick('mcp-passthrough.sessions-sweep');
    await waitFor(async () => (await rpc(seller, token, { jsonrpc: '2.0', id: 3, method: 'ping' }, headers)).status, (s) => s === 404, 'the sweep');
  });
});
