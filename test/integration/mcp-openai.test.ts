/**
 * The OpenAI-compatible door of mcp-passthrough, driven by the official `openai` client against the fake upstreams
 * (OpenAI-compatible and Anthropic presets): whole and streamed answers, usage chunks, exact charges that reconcile
 * with the key's balance and usage rows, OpenAI-shaped errors, the model list, and a stream the client drops.
 */
import { Decimal } from 'decimal.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWords, startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import { chat, configure, createKey, expectedCharge, initializeBody, mcpClient, model, ok, PLUGIN, rpc, rpcAll, startMcpNode, topUp, waitFor } from './mcp-support.js';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;

const user = (content: string) => [{ role: 'user' as const, content }];
const WEATHER_CALL = { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' };
const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } },
};

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await configure(seller, {
    provider: { id: 'primary', preset: 'openai-compatible', endpoint: fake.openaiUrl, models: [model('gpt-fake'), model('gpt-midfail'), model('gpt-hold'), model('gpt-down'), model('gpt-tool')] },
    active: { provider: 'primary', model: 'gpt-fake' },
  });
  await configure(seller, { provider: { id: 'claude', preset: 'anthropic', endpoint: fake.anthropicUrl, token: 'sk-ant-test', models: [model('claude-fake'), model('claude-tool')] } });
  fake.behave('gpt-tool', { toolCall: WEATHER_CALL });
  fake.behave('claude-tool', { toolCall: WEATHER_CALL });
  fake.behave('gpt-midfail', { failAfter: 2 });
  fake.behave('gpt-hold', { stallAfter: 1 });
  fake.behave('gpt-down', { failStatus: 503 });
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy()]);
  await fake?.close();
});

function client(token: string, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: `${seller.node.baseUrl}/p/mcp-passthrough/v1`, apiKey: token, maxRetries });
}

async function fundedKey(amount: string): Promise<{ keyId: number; token: string; openai: OpenAI }> {
  const key = await createKey(seller, { label: 'openai', contact: 'customer' });
  if (amount !== '0') await topUp(customer, seller, key.key_id, amount);
  return { keyId: key.key_id, token: key.token, openai: client(key.token) };
}

async function usageRows(keyId: number): Promise<any[]> {
  return (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 500 })).usage;
}

async function balanceOf(keyId: number): Promise<string> {
  const { keys } = await ok(seller, 'GET', `${PLUGIN}/keys`);
  return keys.find((k: any) => k.key_id === keyId).balance;
}

describe('chat.completions.create', () => {
  it.each([
    ['openai-compatible', 'gpt-fake', 'primary'],
    ['anthropic', 'claude-fake', 'claude'],
  ])('answers whole through the %s preset and bills exactly what the usage row says', async (_preset, modelId, provider) => {
    const { keyId, openai } = await fundedKey('1');
    const res = await openai.chat.completions.create({
      model: modelId,
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'three words here' }] },
      ],
      max_completion_tokens: 64,
    });
    expect(res.object).toBe('chat.completion');
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.model).toBe(modelId);
    expect(res.choices).toEqual([{ index: 0, message: { role: 'assistant', content: answerWords(5).join(''), refusal: null }, logprobs: null, finish_reason: 'stop' }]);
    expect(res.usage).toEqual({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
    const billing = (res as any).billing;
    expect(billing).toMatchObject({ provider, currency: 'VWL', estimated: false, route: { kind: 'local', hops: 0, failovers: 0 } });
    expect(billing.charge).toBe(expectedCharge(5, 5, billing.transfer_bytes));
    const sent = fake.requests[fake.requests.length - 1]!;
    expect(sent.body).toMatchObject(provider === 'claude' ? { system: 'be brief', max_tokens: 64 } : { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'three words here' }] });
    const [row] = await usageRows(keyId);
    expect(row).toMatchObject({ usage_id: billing.usage_id, call_id: res.id, tool: 'openai.chat.completions', status: 'ok', charge: billing.charge, input_tokens: 5, output_tokens: 5 });
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(billing.charge).toString());
    expect(billing.balance).toBe(await balanceOf(keyId));
  });

  it.each([
    ['openai-compatible', 'gpt-fake'],
    ['anthropic', 'claude-fake'],
  ])('streams through the %s preset in OpenAI chunks, with the usage chunk when asked', async (_preset, modelId) => {
    const { keyId, openai } = await fundedKey('1');
    const stream = await openai.chat.completions.create({ model: modelId, messages: user('four words right here'), stream: true, stream_options: { include_usage: true } });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(answerWords(5).join(''));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === modelId)).toBe(true);
    const finishing = chunks[chunks.length - 2];
    expect(finishing.choices[0].finish_reason).toBe('stop');
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(last.billing.charge).toBe(expectedCharge(4, 5, last.billing.transfer_bytes));
    const [row] = await usageRows(keyId);
    expect(row).toMatchObject({ call_id: last.id, status: 'ok', charge: last.billing.charge });
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(last.billing.charge).toString());

    // Without include_usage: no usage chunk, and the call is billed all the same.
    const plain = await openai.chat.completions.create({ model: modelId, messages: user('x'), stream: true });
    const got: any[] = [];
    for await (const chunk of plain) got.push(chunk);
    expect(got.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    const rows = await usageRows(keyId);
    expect(rows[0]).toMatchObject({ call_id: got[0].id, status: 'ok', input_tokens: 1, output_tokens: 5 });
    const charged = rows.reduce((s, r) => s.plus(r.charge), new Decimal(0));
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(charged).toString());
  });

  it('calls the active model when none is named, and reconciles mixed whole and streamed calls exactly', async () => {
    const { keyId, openai } = await fundedKey('2');
    let charged = new Decimal(0);
    for (let n = 0; n < 30; n++) {
      const modelId = n % 3 === 0 ? 'claude-fake' : 'gpt-fake';
      const messages = user('w '.repeat(1 + (n % 5)).trim());
      if (n % 2) {
        const stream = await openai.chat.completions.create({ model: modelId, messages, max_tokens: 16, stream: true, stream_options: { include_usage: true } });
        let last: any = null;
        for await (const chunk of stream) last = chunk;
        expect(last.billing.charge).toBe(expectedCharge(last.usage.prompt_tokens, last.usage.completion_tokens, last.billing.transfer_bytes));
        charged = charged.plus(last.billing.charge);
      } else {
        const res: any = await openai.chat.completions.create({ model: modelId, messages, max_tokens: 16 });
        expect(res.billing.charge).toBe(expectedCharge(res.usage.prompt_tokens, res.usage.completion_tokens, res.billing.transfer_bytes));
        charged = charged.plus(res.billing.charge);
      }
    }
    const unnamed: any = await openai.chat.completions.create({ messages: user('hi') } as any);
    expect(unnamed.model).toBe('gpt-fake');
    charged = charged.plus(unnamed.billing.charge);
    const rows = await usageRows(keyId);
    expect(rows).toHaveLength(31);
    expect(rows.reduce((s, r) => s.plus(r.charge), new Decimal(0)).toString()).toBe(charged.toString());
    expect(await balanceOf(keyId)).toBe(new Decimal(2).minus(charged).toString());
  });

  it('ends a stream that fails after output with an error event; the output produced is billed', async () => {
    const { keyId, openai } = await fundedKey('1');
    const stream = await openai.chat.completions.create({ model: 'gpt-midfail', messages: user('x'), stream: true });
    const texts: string[] = [];
    const failed = await (async () => {
      for await (const chunk of stream) texts.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as any).code).toBe('upstream_error');
    expect(texts.join('')).toBe(answerWords(2).join(''));
    const [row] = await usageRows(keyId);
    expect(row).toMatchObject({ status: 'error', output_tokens: 2, estimated: true });
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(row.charge).toString());
  });

  it('aborts the upstream when the client drops the stream; what was produced stays billed', async () => {
    const { keyId, openai } = await fundedKey('1');
    const abandoned = fake.abandoned.count;
    const controller = new AbortController();
    const stream = await openai.chat.completions.create({ model: 'gpt-hold', messages: user('x'), stream: true }, { signal: controller.signal });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) break;
    }
    controller.abort();
    await waitFor(async () => fake.abandoned.count > abandoned && (await usageRows(keyId)).length === 1, (done) => done, 'the cancelled call settled');
    const [row] = await usageRows(keyId);
    expect(row).toMatchObject({ status: 'cancelled', output_tokens: 1, estimated: true });
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(row.charge).toString());
  });
});

describe('errors in OpenAI form', () => {
  it('answers an unknown key with 401 invalid_api_key', async () => {
    const err = await client('mcp_' + 'x'.repeat(43)).chat.completions.create({ model: 'gpt-fake', messages: user('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    const models = await client('nope-nope-nope').models.list().catch((e: unknown) => e);
    expect(models).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('refuses a call the balance cannot cover with 429 insufficient_quota, not retried, nothing sent upstream', async () => {
    const { keyId, token } = await fundedKey('0');
    const before = fake.requests.length;
    // A client that would retry: the answer tells it not to.
    const err = await client(token, 2).chat.completions.create({ model: 'gpt-fake', messages: user('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });
    expect((err as any).error.needed).toMatch(/^0\.\d+$/);
    const streamed = await client(token).chat.completions.create({ model: 'gpt-fake', messages: user('x'), stream: true }).catch((e: unknown) => e);
    expect(streamed).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(fake.requests.length).toBe(before);
    expect(await usageRows(keyId)).toEqual([]);
  });

  it('answers an unknown model with 404 model_not_found and bad parameters with 400 naming them', async () => {
    const { openai } = await fundedKey('1');
    const missing = await openai.chat.completions.create({ model: 'no-such-model', messages: user('x') }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found' });
    const cases: [Record<string, unknown>, string][] = [
      [{ messages: [] }, 'messages'],
      [{ messages: user('x'), n: 2 }, 'n'],
      [{ messages: user('x'), logprobs: true }, 'logprobs'],
      [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] }, 'messages[0].content[0]'],
      [{ messages: user('x'), max_tokens: 0 }, 'max_tokens'],
      [{ messages: user('x'), stream_options: { include_usage: true } }, 'stream_options'],
    ];
    for (const [body, param] of cases) {
      const err = await openai.chat.completions.create({ model: 'gpt-fake', ...body } as any).catch((e: unknown) => e);
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err, param).toMatchObject({ status: 400, param, type: 'invalid_request_error' });
    }
  });

  it('answers an upstream down before output with 502 upstream_error, uncharged', async () => {
    const { keyId, openai } = await fundedKey('1');
    for (const stream of [false, true]) {
      const err = await openai.chat.completions.create({ model: 'gpt-down', messages: user('x'), stream }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect(err).toMatchObject({ status: 502, code: 'upstream_error' });
      expect((err as any).error).toMatchObject({ upstream_status: 503, charge: '0' });
    }
    expect((await usageRows(keyId)).map((r) => [r.status, r.charge])).toEqual([
      ['error', '0'],
      ['error', '0'],
    ]);
    expect(await balanceOf(keyId)).toBe('1');
  });
});

describe('models.list', () => {
  it('lists the enabled models once each, with their rates', async () => {
    const { openai } = await fundedKey('0');
    const page = await openai.models.list();
    const ids = page.data.map((m) => m.id);
    expect([...ids].sort()).toEqual(['claude-fake', 'claude-tool', 'gpt-down', 'gpt-fake', 'gpt-hold', 'gpt-midfail', 'gpt-tool']);
    expect(page.data.find((m) => m.id === 'gpt-fake')).toMatchObject({ object: 'model', owned_by: 'primary', pricing: { in_per_1m: '1.23456789', out_per_1m: '9.87654321', currency: 'VWL' } });
  });
});

describe('tools and generation options', () => {
  const lastSent = () => fake.requests[fake.requests.length - 1]!.body;

  it.each([
    ['openai-compatible', 'gpt-tool'],
    ['anthropic', 'claude-tool'],
  ])('answers a tool call whole through the %s preset, with the options forwarded in its form', async (preset, modelId) => {
    const { keyId, openai } = await fundedKey('1');
    const res = await openai.chat.completions.create({
      model: modelId,
      messages: user('weather in Paris'),
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      ...(preset === 'anthropic' ? {} : { seed: 7, response_format: { type: 'json_object' as const } }),
    });
    expect(res.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ id: expect.any(String), type: 'function', function: WEATHER_CALL }] },
    });
    expect(res.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    const billing = (res as any).billing;
    expect(billing.charge).toBe(expectedCharge(3, 2, billing.transfer_bytes));
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(billing.charge).toString());
    if (preset === 'anthropic') {
      expect(lastSent()).toMatchObject({
        tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: WEATHER_TOOL.function.parameters }],
        tool_choice: { type: 'any' },
        temperature: 0.2,
        top_p: 0.9,
        stop_sequences: ['END'],
      });
      expect(lastSent()).not.toHaveProperty('seed');
    } else {
      expect(lastSent()).toMatchObject({ tools: [WEATHER_TOOL], tool_choice: 'required', temperature: 0.2, top_p: 0.9, stop: ['END'], seed: 7, response_format: { type: 'json_object' } });
    }
  });

  it.each([
    ['openai-compatible', 'gpt-tool'],
    ['anthropic', 'claude-tool'],
  ])('streams a tool call through the %s preset as OpenAI tool_call pieces the client assembles', async (_preset, modelId) => {
    const { keyId, openai } = await fundedKey('1');
    const runner = openai.chat.completions.stream({ model: modelId, messages: user('weather in Paris'), tools: [WEATHER_TOOL], stream_options: { include_usage: true } });
    const pieces: string[] = [];
    runner.on('chunk', (c) => {
      const call = c.choices[0]?.delta?.tool_calls?.[0];
      if (call) pieces.push(call.function?.arguments ?? '');
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls).toEqual([{ id: expect.any(String), type: 'function', function: WEATHER_CALL }]);
    expect(pieces.filter(Boolean)).toHaveLength(2);
    expect(final.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
    const [row] = await usageRows(keyId);
    expect(row).toMatchObject({ status: 'ok', input_tokens: 3, output_tokens: 2, estimated: false });
    expect(row.charge).toBe(expectedCharge(3, 2, row.transfer_bytes));
    expect(await balanceOf(keyId)).toBe(new Decimal(1).minus(row.charge).toString());
  });

  it('forwards the tool turns of a conversation: as they are to OpenAI, as tool_use and tool_result blocks to Anthropic', async () => {
    const { openai } = await fundedKey('1');
    const call = { id: 'call_1', type: 'function' as const, function: WEATHER_CALL };
    const messages = [
      { role: 'system' as const, content: 'use tools' },
      { role: 'user' as const, content: 'weather in Paris' },
      { role: 'assistant' as const, content: null, tool_calls: [call] },
      { role: 'tool' as const, tool_call_id: 'call_1', content: 'sunny 21' },
    ];
    const gpt = await openai.chat.completions.create({ model: 'gpt-fake', messages, tools: [WEATHER_TOOL] });
    expect(gpt.choices[0]!.message.content).toBe(answerWords(5).join(''));
    expect(lastSent().messages).toEqual([messages[0], messages[1], { role: 'assistant', content: null, tool_calls: [call] }, messages[3]]);
    await openai.chat.completions.create({ model: 'claude-fake', messages, tools: [WEATHER_TOOL] });
    expect(lastSent()).toMatchObject({ system: 'use tools' });
    expect(lastSent().messages).toEqual([
      { role: 'user', content: 'weather in Paris' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', unit: 'c' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny 21' }] },
    ]);
  });

  it('refuses options and tool turns that break the rules, naming the field; nothing reaches an upstream', async () => {
    const { keyId, openai } = await fundedKey('1');
    const before = fake.requests.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'claude-fake', seed: 1 }, 'seed'],
      [{ model: 'claude-fake', response_format: { type: 'json_object' } }, 'response_format'],
      [{ temperature: 3 }, 'temperature'],
      [{ top_p: -0.1 }, 'top_p'],
      [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
      [{ seed: 1.5 }, 'seed'],
      [{ tools: [{ type: 'function', function: { name: 'bad name' } }] }, 'tools[0].function.name'],
      [{ tools: [WEATHER_TOOL], tool_choice: { type: 'function', function: { name: 'other' } } }, 'tool_choice'],
      [{ tool_choice: 'required' }, 'tool_choice'],
      [{ response_format: { type: 'xml' } }, 'response_format'],
      [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
      [{ messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'messages[0].tool_calls'],
      [{ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] }] }, 'messages[0].tool_calls[0]'],
    ];
    for (const [body, param] of cases) {
      const err = await openai.chat.completions.create({ model: 'gpt-fake', messages: user('x'), ...body } as any).catch((e: unknown) => e);
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err, param).toMatchObject({ status: 400, param });
    }
    expect(fake.requests.length).toBe(before);
    expect(await usageRows(keyId)).toEqual([]);
  });

  it('the MCP tool takes the same arguments and answers tool_calls, billed the same way', async () => {
    const key = await createKey(seller, { label: 'mcp', contact: 'customer' });
    await topUp(customer, seller, key.key_id, '1');
    const mcp = await mcpClient(seller, key.token);
    try {
      for (const modelId of ['gpt-tool', 'claude-tool']) {
        const whole = await chat(mcp, { model: modelId, messages: user('weather in Paris'), tools: [WEATHER_TOOL], tool_choice: 'auto', temperature: 0 });
        expect(whole.isError).toBe(false);
        expect(whole.r).toMatchObject({ output: '', tool_calls: [{ type: 'function', function: WEATHER_CALL }], input_tokens: 3, output_tokens: 2 });
        expect(whole.r.charge).toBe(expectedCharge(3, 2, whole.r.transfer_bytes));
        expect(lastSent()).toMatchObject({ temperature: 0 });
        const streamed = await chat(mcp, { model: modelId, messages: user('weather in Paris'), tools: [WEATHER_TOOL] }, () => undefined);
        expect(streamed.r).toMatchObject({ tool_calls: [{ type: 'function', function: WEATHER_CALL }], output_tokens: 2 });
      }
      const refused = await chat(mcp, { model: 'claude-fake', messages: user('x'), seed: 3 });
      expect(refused.r.error).toMatchObject({ code: 'invalid_arguments', field: 'seed' });
    } finally {
      await mcp.client.close();
    }
  });
});

describe('provider health', () => {
  it('retries and fails over from a dead provider, skips it once it cools down, and takes it back after a probe', async () => {
    const { keyId, token, openai } = await fundedKey('1');
    const mcp = await mcpClient(seller, token);
    const explain = async () => {
      const res = await mcp.client.callTool({ name: 'route.explain', arguments: { model: 'gpt-fake' } });
      return (res.structuredContent as any).candidates.find((c: any) => c.provider === 'dead');
    };
    const servedBy = async () => {
      const res: any = await openai.chat.completions.create({ model: 'gpt-fake', messages: user('x') });
      return { provider: res.billing.provider, failovers: res.billing.route.failovers };
    };
    // Nothing listens on port 9: every attempt on `dead` is refused at once.
    await configure(seller, {
      set: { cooldown_seconds: '1', retries: '1' },
      provider: { id: 'dead', preset: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', models: [model('gpt-fake')] },
      active: { provider: 'dead', model: 'gpt-fake' },
    });
    try {
      // Two attempts (one retry), then the next provider: two failures so far.
      expect(await servedBy()).toEqual({ provider: 'primary', failovers: 1 });
      expect((await explain()).health).toMatchObject({ state: 'healthy', consecutive_failures: 2 });
      // The third failure starts the cooldown; the retry is skipped.
      expect(await servedBy()).toEqual({ provider: 'primary', failovers: 1 });
      const cooling = await explain();
      expect(cooling).toMatchObject({ ready: false, rejections: ['cooling_down'], health: { state: 'cooling', consecutive_failures: 3 } });
      expect(cooling.health.last_error).toMatch(/^upstream_unreachable/);
      const status = await ok(seller, 'GET', `${PLUGIN}/status`);
      expect(status.providers.find((p: any) => p.id === 'dead').health['gpt-fake']).toMatchObject({ state: 'cooling' });
      // Skipped: the call goes straight to the next provider.
      expect(await servedBy()).toEqual({ provider: 'primary', failovers: 0 });

      // The provider comes back; after the cooldown one call probes it and it serves again.
      await configure(seller, { provider: { id: 'dead', endpoint: fake.openaiUrl } });
      await waitFor(explain, (c) => c.health.state === 'half_open' && c.ready, 'the cooldown to end');
      expect(await servedBy()).toEqual({ provider: 'dead', failovers: 0 });
      expect((await explain()).health).toMatchObject({ state: 'healthy', consecutive_failures: 0 });
      const rows = await usageRows(keyId);
      expect(rows.map((r) => r.provider)).toEqual(['dead', 'primary', 'primary', 'primary']);
      expect(await balanceOf(keyId)).toBe(rows.reduce((b, r) => b.minus(r.charge), new Decimal(1)).toString());
    } finally {
      await configure(seller, { set: { cooldown_seconds: '30', retries: '1' }, active: { provider: 'primary', model: 'gpt-fake' } });
      await mcp.client.close();
    }
  });
});

describe('both doors', () => {
  it('1,000 mixed calls through the OpenAI door and the MCP tool on one key reconcile exactly', async () => {
    const { keyId, token, openai } = await fundedKey('3');
    const charges = new Map<string, string>();
    const models = ['gpt-fake', 'claude-fake', 'gpt-tool', 'claude-tool'];
    const argsOf = (n: number) => ({
      model: models[n % 4]!,
      messages: user('w '.repeat(1 + (n % 7)).trim()),
      max_tokens: 16,
      ...(n % 4 >= 2 ? { tools: [WEATHER_TOOL] } : {}),
      ...(n % 5 === 0 ? { temperature: 0.5 } : {}),
    });
    // 500 through the OpenAI door (under its 600 requests a minute per key), 20 at a time, whole and streamed.
    for (let batch = 0; batch < 25; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const n = batch * 20 + i;
          if (n % 2) {
            const stream = await openai.chat.completions.create({ ...argsOf(n), stream: true, stream_options: { include_usage: true } });
            let last: any = null;
            for await (const chunk of stream) last = chunk;
            charges.set(last.id, last.billing.charge);
          } else {
            const res: any = await openai.chat.completions.create(argsOf(n));
            charges.set(res.id, res.billing.charge);
          }
        }),
      );
    }
    // 500 through the MCP tool, in JSON-RPC batches of 100, half of them streamed.
    const init = await rpc(seller, token, initializeBody('2025-03-26'));
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-03-26' };
    await rpc(seller, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    for (let batch = 0; batch < 5; batch++) {
      const calls = Array.from({ length: 100 }, (_, i) => {
        const n = batch * 100 + i;
        const { max_tokens, ...rest } = argsOf(n);
        return {
          jsonrpc: '2.0',
          id: `mcp-${n}`,
          method: 'tools/call',
          params: { name: 'chat.completion', arguments: { ...rest, max_output_tokens: max_tokens }, ...(n % 2 ? { _meta: { progressToken: n } } : {}) },
        };
      });
      const res = await rpcAll(seller, token, calls, headers);
      expect(res.size).toBe(100);
      for (const [id, message] of res) {
        const r = message.result.structuredContent;
        expect(message.result.isError, JSON.stringify(r)).toBeFalsy();
        expect(r.charge).toBe(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes));
        charges.set(String(id), r.charge);
      }
    }
    expect(charges.size).toBe(1000);
    const total = [...charges.values()].reduce((s, c) => s.plus(c), new Decimal(0));
    expect(await balanceOf(keyId)).toBe(new Decimal(3).minus(total).toString());
    // The newest 500 usage rows (the operator's page) carry exactly the charges the answers said.
    const rows = await usageRows(keyId);
    expect(rows).toHaveLength(500);
    for (const r of rows) expect(r.charge, r.call_id).toBe(charges.get(r.call_id));
  }, 120_000);
});
