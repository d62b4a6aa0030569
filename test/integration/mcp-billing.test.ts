/**
 * Billing of mcp-passthrough against the fake upstreams (OpenAI-compatible and Anthropic presets): exact charges
 * from reported usage, estimates when none is reported, failover before output, failures after output, the request
 * deadline, reservations that concurrent calls cannot overspend, top-ups matched to the bound contact, credit on the
 * contact's line, pilot admission, and 1,000 calls that reconcile exactly.
 */
import { setMaxListeners } from 'node:events';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWords, startFakeUpstream, type FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect } from './ledger-support.js';
import {
  call,
  configure,
  createKey,
  expectedCharge,
  hashOf,
  initializeBody,
  mcpClient,
  model,
  ok,
  PLUGIN,
  balanceOf,
  chat,
  rpc,
  rpcAll,
  startMcpNode,
  structured,
  topUp,
  waitFor,
  type Connected,
} from './mcp-support.js';

let fake: FakeUpstream;
let seller: TestNode;
let customer: TestNode;
let stranger: TestNode;

const user = (content: string) => [{ role: 'user', content }];

beforeAll(async () => {
  fake = await startFakeUpstream();
  [seller, customer, stranger] = await Promise.all([startMcpNode({ env: { NODE_MCP_REQUEST_TIMEOUT_MS: '2000' } }), startTestNode(), startTestNode()]);
  await connect(seller, customer, { nameOfB: 'customer', nameOfA: 'seller' });
  await connect(seller, stranger, { creditAtoB: '0.001', nameOfB: 'stranger', nameOfA: 'seller' });
  await configure(seller, {
    provider: {
      id: 'primary',
      preset: 'openai-compatible',
      endpoint: fake.openaiUrl,
      models: [model('gpt-fake'), model('shared'), model('gpt-midfail'), model('gpt-nousage'), model('gpt-whole'), model('gpt-hang'), model('gpt-hold')],
    },
    active: { provider: 'primary', model: 'gpt-fake' },
  });
  await configure(seller, { provider: { id: 'backup', preset: 'openai-compatible', endpoint: `${fake.openaiUrl}/../v1`, models: [model('shared')] } });
  await configure(seller, { provider: { id: 'claude', preset: 'anthropic', endpoint: fake.anthropicUrl, token: 'sk-ant-test', models: [model('claude-fake')] } });
  fake.behave('gpt-midfail', { failAfter: 2 });
  fake.behave('gpt-nousage', { noUsage: true, words: 8 });
  fake.behave('gpt-whole', { ignoreStream: true, words: 3 });
  fake.behave('gpt-hang', { stallAfter: 0 });
  fake.behave('gpt-hold', { stallAfter: 0 });
});

afterAll(async () => {
  await Promise.all([seller?.destroy(), customer?.destroy(), stranger?.destroy()]);
  await fake?.close();
});

async function fundedKey(amount: string, extra: Record<string, unknown> = {}): Promise<{ keyId: number; token: string; mcp: Connected }> {
  const key = await createKey(seller, { label: 'k', contact: 'customer', ...extra });
  if (amount !== '0') await topUp(customer, seller, key.key_id, amount);
  return { keyId: key.key_id, token: key.token, mcp: await mcpClient(seller, key.token) };
}

describe('charges', () => {
  it('bills an Anthropic call, whole and streamed, from the reported usage; system text travels as system', async () => {
    fake.requireToken = 'sk-ant-test';
    try {
      const { mcp } = await fundedKey('1');
      const messages = [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'three words here' },
      ];
      const whole = await chat(mcp, { model: 'claude-fake', messages, max_output_tokens: 64 });
      expect(whole.isError).toBe(false);
      expect(whole.r).toMatchObject({ output: answerWords(5).join(''), provider: 'claude', input_tokens: 5, output_tokens: 5, estimated: false });
      expect(whole.r.charge).toBe(expectedCharge(5, 5, whole.r.transfer_bytes));
      const sent = fake.requests[fake.requests.length - 1]!;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe('sk-ant-test');
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.body).toMatchObject({ system: 'be brief', max_tokens: 64, messages: [{ role: 'user', content: 'three words here' }] });
      const deltas: string[] = [];
      const streamed = await chat(mcp, { model: 'claude-fake', messages }, (m) => deltas.push(m));
      expect(deltas).toEqual(answerWords(5));
      expect(streamed.r).toMatchObject({ input_tokens: 5, output_tokens: 5, estimated: false });
      expect(streamed.r.charge).toBe(expectedCharge(5, 5, streamed.r.transfer_bytes));
      expect(new Decimal(streamed.r.balance).toString()).toBe(new Decimal(1).minus(whole.r.charge).minus(streamed.r.charge).toString());
    } finally {
      fake.requireToken = null;
    }
  });

  it('estimates and flags a call whose upstream reported no usage', async () => {
    const { mcp } = await fundedKey('1');
    const res = await chat(mcp, { model: 'gpt-nousage', messages: user('count these four words') }, () => undefined);
    expect(res.r).toMatchObject({ estimated: true, output_tokens: 8 });
    // Four bytes a token, plus four a message: 22 bytes → 6 + 4.
    expect(res.r.input_tokens).toBe(10);
    expect(res.r.charge).toBe(expectedCharge(10, 8, res.r.transfer_bytes));
  });

  it('takes a whole answer to a stream request as one delta', async () => {
    const { mcp } = await fundedKey('1');
    const deltas: string[] = [];
    const res = await chat(mcp, { model: 'gpt-whole', messages: user('x') }, (m) => deltas.push(m));
    expect(deltas).toEqual(['w1 w2 w3 ']);
    expect(res.r).toMatchObject({ output_tokens: 3, estimated: false });
  });

  it('fails over to another provider when one fails before output; the call is billed at the serving row', async () => {
    const { mcp } = await fundedKey('1');
    fake.behave('shared', { failStatus: 503 });
    const before = fake.requests.length;
    const failing = await chat(mcp, { model: 'shared', messages: user('hello') });
    // Both providers run on the one fake, so both fail here: the call ends with the last failure, uncharged.
    expect(failing.isError).toBe(true);
    expect(failing.r.error).toMatchObject({ code: 'upstream_error', upstream_status: 503, failovers: 1, charge: '0' });
    // Each tried twice: a 503 is retried once (the default `retries`) before the call fails over.
    expect(fake.requests.length - before).toBe(4);
    fake.behave('shared', {});
    const served = await chat(mcp, { model: 'shared', messages: user('hello') });
    expect(served.r.route).toEqual({ kind: 'local', provider: 'primary', hops: 0, failovers: 0 });
  });

  it('fails over from a provider without a working token to the next', async () => {
    const { mcp } = await fundedKey('1');
    fake.requireToken = 'sk-right';
    try {
      await configure(seller, { provider: { id: 'backup', token: 'sk-right' } });
      const res = await chat(mcp, { model: 'shared', messages: user('hello') });
      expect(res.isError).toBe(false);
      expect(res.r.route).toEqual({ kind: 'local', provider: 'backup', hops: 0, failovers: 1 });
      await configure(seller, { set: { failover: 'off' } });
      const alone = await chat(mcp, { model: 'shared', messages: user('hello') });
      expect(alone.r.error).toMatchObject({ code: 'upstream_error', upstream_status: 401, failovers: 0 });
    } finally {
      fake.requireToken = null;
      await configure(seller, { set: { failover: 'on' } });
    }
  });

  it('a failure after output ends the call: the output and its charge stand', async () => {
    const { mcp } = await fundedKey('1');
    const deltas: string[] = [];
    const res = await chat(mcp, { model: 'gpt-midfail', messages: user('go on') }, (m) => deltas.push(m));
    expect(res.isError).toBe(true);
    expect(deltas).toEqual(['w1 ', 'w2 ']);
    expect(res.r).toMatchObject({ output: 'w1 w2 ', output_tokens: 2, estimated: true, error: { code: 'upstream_error' } });
    expect(res.r.charge).toBe(expectedCharge(res.r.input_tokens, 2, res.r.transfer_bytes));
  });

  it('ends a call at the request deadline; nothing produced, nothing charged', async () => {
    const { mcp, keyId } = await fundedKey('1');
    const res = await chat(mcp, { model: 'gpt-hang', messages: user('are you there') }, () => undefined);
    expect(res.r.error).toMatchObject({ code: 'upstream_timeout', charge: '0' });
    const { usage } = await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 1 });
    expect(usage[0]).toMatchObject({ status: 'error', charge: '0', input_tokens: 0, output_tokens: 0 });
    expect((await balanceOf(mcp)).balance).toBe('1');
  });
});

describe('funds', () => {
  it('refuses a call the balance cannot cover before anything reaches the upstream', async () => {
    const { mcp } = await fundedKey('0.0001');
    const before = fake.requests.length;
    const res = await chat(mcp, { messages: user('hi') });
    expect(res.isError).toBe(true);
    expect(res.r.error.code).toBe('insufficient_funds');
    expect(new Decimal(res.r.error.needed).gt(res.r.error.available)).toBe(true);
    expect(fake.requests.length).toBe(before);
    const small = await chat(mcp, { messages: user('hi'), max_output_tokens: 5 });
    expect(small.isError).toBe(false);
  });

  it('concurrent calls cannot overspend: only as many start as the balance can reserve', async () => {
    const { mcp } = await fundedKey('0.001');
    const args = { model: 'gpt-hold', messages: user('hold'), max_output_tokens: 10 };
    const probe = await chat(mcp, { ...args, max_output_tokens: 100000 });
    expect(probe.r.error.code).toBe('insufficient_funds');
    const controller = new AbortController();
    // Twelve calls listen to one signal: more than Node's default warning threshold, on purpose.
    setMaxListeners(20, controller.signal);
    const outcomes: ('started' | 'refused')[] = [];
    const calls = Array.from({ length: 12 }, () =>
      mcp.client
        .callTool({ name: 'chat.completion', arguments: args }, undefined, { signal: controller.signal, timeout: 60_000, onprogress: () => undefined })
        .then((res) => {
          outcomes.push(structured(res).error?.code === 'insufficient_funds' ? 'refused' : 'started');
        })
        .catch(() => outcomes.push('started')),
    );
    const stalled = await waitFor(async () => fake.stalled(), (n) => n + outcomes.filter((o) => o === 'refused').length === 12, 'every call to start or be refused');
    expect(stalled).toBeGreaterThan(0);
    expect(stalled).toBeLessThan(12);
    const funds = await balanceOf(mcp);
    // What the calls in flight hold never exceeds the balance.
    expect(new Decimal(funds.reserved).lte(funds.balance)).toBe(true);
    expect(new Decimal(funds.available).lt(new Decimal(funds.reserved).div(stalled))).toBe(true);
    controller.abort();
    await Promise.all(calls);
    await waitFor(async () => fake.stalled(), (n) => n === 0, 'the held calls to be abandoned');
    await waitFor(async () => (await balanceOf(mcp)).reserved, (r) => r === '0', 'the reservations to be released');
    expect((await balanceOf(mcp)).balance).toBe('0.001');
  });

  it('1,000 calls leave the balance exactly equal to top-ups minus the sum of charges', async () => {
    const { keyId, token } = await fundedKey('3');
    await topUp(customer, seller, keyId, '0.12345678');
    // JSON-RPC batches of 100 (protocol 2025-03-26): 1,000 calls from one key stay under its 600 POSTs a minute.
    const init = await rpc(seller, token, initializeBody('2025-03-26'));
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-03-26' };
    expect((await rpc(seller, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
    let charged = new Decimal(0);
    const models = ['gpt-fake', 'claude-fake', 'gpt-nousage'];
    for (let batch = 0; batch < 10; batch++) {
      const calls = Array.from({ length: 100 }, (_, i) => {
        const n = batch * 100 + i;
        return {
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: {
            name: 'chat.completion',
            arguments: { model: models[n % 3], messages: user('w '.repeat(1 + (n % 7)).trim()), max_output_tokens: 16 },
            ...(n % 2 ? { _meta: { progressToken: `p${n}` } } : {}),
          },
        };
      });
      const res = await rpcAll(seller, token, calls, headers);
      expect(res.size).toBe(100);
      for (const [, message] of res) {
        const r = message.result.structuredContent;
        expect(message.result.isError, JSON.stringify(r)).toBeFalsy();
        expect(r.charge).toBe(expectedCharge(r.input_tokens, r.output_tokens, r.transfer_bytes));
        charged = charged.plus(r.charge);
      }
    }
    const mcp = await mcpClient(seller, token);
    const funds = await balanceOf(mcp);
    expect(funds.balance).toBe(new Decimal('3.12345678').minus(charged).toString());
    expect(funds.reserved).toBe('0');
    const { topups } = await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 500 });
    expect(topups.map((t: any) => t.amount)).toEqual(['0.12345678', '3']);
    // The per-day summary adds up to the same calls and charges, one group per model (issue 31: the GUI's charts).
    const page = await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId, limit: 10, offset: 990 });
    expect({ total: page.total, rows: page.usage.length }).toEqual({ total: 1000, rows: 10 });
    const summary = await ok(seller, 'GET', `${PLUGIN}/usage-summary`, undefined, { key_id: keyId });
    expect(summary.days.map((d: any) => d.model).sort()).toEqual([...models].sort());
    expect(summary.days.reduce((n: number, d: any) => n + d.calls, 0)).toBe(1000);
    expect(summary.days.reduce((sum: Decimal, d: any) => sum.plus(d.charge), new Decimal(0)).toString()).toBe(charged.toString());
    expect((await ok(seller, 'GET', `${PLUGIN}/usage-summary`, undefined, { key_id: keyId, model: 'gpt-fake', limit: 1 })).pagination).toEqual({ total: 1, limit: 1, offset: 0 });
  });
});

describe('top-ups and admission', () => {
  it('credits a top-up once, to the key its memo names, only from the bound contact', async () => {
    const { keyId, mcp } = await fundedKey('0.5');
    expect((await balanceOf(mcp)).balance).toBe('0.5');
    // The stranger pays with this key's memo: recorded, not credited.
    const txid = await topUp(stranger, seller, keyId, '0.0002');
    const { topups } = await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId });
    expect(topups[0]).toMatchObject({ txid, status: 'unmatched', reason: 'not_the_bound_contact', contact_hash: hashOf(stranger) });
    expect((await balanceOf(mcp)).balance).toBe('0.5');
    await topUp(customer, seller, 99999, '0.1');
    const all = await ok(seller, 'GET', `${PLUGIN}/usage`);
    expect(all.topups[0]).toMatchObject({ key_id: null, status: 'unmatched', reason: 'unknown_key' });
    await ok(seller, 'POST', `${PLUGIN}/key-revoke`, { id: keyId });
    await topUp(customer, seller, keyId, '0.1');
    expect((await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: keyId })).topups[0]).toMatchObject({ status: 'unmatched', reason: 'key_revoked' });
    // Ordinary descriptions are none of the plugin's business.
    await topUp(customer, seller, keyId, '0.1', 'lunch');
    expect((await ok(seller, 'GET', `${PLUGIN}/usage`)).topups).toHaveLength(all.topups.length + 1);
  });

  it('pilot mode refuses inference to a key whose contact is blocked; diagnostics still work', async () => {
    const { mcp } = await fundedKey('0.5');
    await ok(seller, 'POST', `/api/v1/contacts/block/${encodeURIComponent(customer.node.baseUrl)}`);
    try {
      const res = await chat(mcp, { messages: user('hi') });
      expect(res.r.error.code).toBe('admission_refused');
      expect((await balanceOf(mcp)).balance).toBe('0.5');
      const status = structured(await mcp.client.callTool({ name: 'route.status', arguments: {} }));
      expect(status.admission.ok).toBe(false);
      expect(status.rejections[0].reasons).toContain('admission_refused');
    } finally {
      await ok(seller, 'POST', `/api/v1/contacts/unblock/${encodeURIComponent(customer.node.baseUrl)}`);
    }
    expect((await chat(mcp, { messages: user('hi') })).isError).toBe(false);
  });

  it('open mode admits an unbound key; any payer with its memo funds it', async () => {
    await configure(seller, { set: { mode: 'open' } });
    try {
      const key = await createKey(seller, { label: 'open' });
      await topUp(customer, seller, key.key_id, '0.0009');
      const mcp = await mcpClient(seller, key.token);
      const res = await chat(mcp, { messages: user('hi'), max_output_tokens: 5 });
      expect(res.isError).toBe(false);
      await configure(seller, { set: { mode: 'pilot' } });
      expect((await chat(mcp, { messages: user('hi'), max_output_tokens: 5 })).r.error.code).toBe('admission_refused');
    } finally {
      await configure(seller, { set: { mode: 'pilot' } });
    }
  });

  it('credit funding: calls become the contact debt within its line; a top-up pays the debt first', async () => {
    const key = await createKey(seller, { label: 'credit', contact: 'stranger', funding: 'credit' });
    const mcp = await mcpClient(seller, key.token);
    // The line is 0.001; the stranger already owes the node 0.0002 on the ledger (its unmatched payment above).
    expect(await balanceOf(mcp)).toMatchObject({ balance: '0', debt: '0', funding: 'credit', credit_available: '0.0008', available: '0.0008' });
    const first = await chat(mcp, { messages: user('on credit'), max_output_tokens: 10 });
    expect(first.isError).toBe(false);
    const usage = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: key.key_id, limit: 1 })).usage[0];
    expect(usage).toMatchObject({ from_balance: '0', from_credit: first.r.charge });
    expect(first.r.debt).toBe(first.r.charge);
    const after = await balanceOf(mcp);
    expect(after.credit_available).toBe(new Decimal('0.0008').minus(first.r.charge).toString());
    const txid = await topUp(stranger, seller, key.key_id, '0.0001');
    const topup = (await ok(seller, 'GET', `${PLUGIN}/usage`, undefined, { key_id: key.key_id })).topups[0];
    expect(topup).toMatchObject({ txid, status: 'credited', to_debt: first.r.charge, to_balance: new Decimal('0.0001').minus(first.r.charge).toString() });
    const paid = await balanceOf(mcp);
    expect(paid).toMatchObject({ debt: '0', balance: topup.to_balance, credit_available: '0.0007' });
    // Spend until refused: the ledger debt plus the key's debt never passes the line.
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) refused = (await chat(mcp, { messages: user('more'), max_output_tokens: 10 })).r.error?.code === 'insufficient_funds';
    expect(refused).toBe(true);
    const end = await balanceOf(mcp);
    expect(end.balance).toBe('0');
    expect(new Decimal(end.debt).plus('0.0003').lte('0.001')).toBe(true);
    expect(new Decimal(end.credit_available).gte(0)).toBe(true);
    const refusedCredit = await call(seller, 'POST', `${PLUGIN}/key-create`, { label: 'x', funding: 'credit' });
    expect(refusedCredit.body.error.code).toBe('contact_required');
  });
});
