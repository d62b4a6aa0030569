/**
 * Helpers of the mcp-passthrough tests: a seller node with the plugin enabled (it is off by default), a customer
 * node that is its accepted contact and pays top-ups, operator REST calls, and MCP clients (the official SDK's
 * Client over its Streamable HTTP transport) for customer keys.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Decimal } from 'decimal.js';
import { call, hashOf, ok, waitFor } from '../support/api.js';
import type { FakeUpstream } from '../support/fake-upstreams.js';
import { startTestNode, type StartOptions, type TestNode } from '../support/node.js';
import { connect, send, settled } from './ledger-support.js';

export const PLUGIN = '/api/v1/plugins/mcp-passthrough';

/** A node with mcp-passthrough enabled (enable, then restart: plugin switches take effect on restart). */
export async function startMcpNode(options: StartOptions = {}): Promise<TestNode> {
  const t = await startTestNode(options);
  await ok(t, 'POST', '/api/v1/plugins/mcp-passthrough/enable');
  await t.restart();
  return t;
}

export async function configure(t: TestNode, body: Record<string, unknown>): Promise<any> {
  return ok(t, 'POST', `${PLUGIN}/configure`, body);
}

/** Rates of the tests' models: manual pricing per million tokens and per gigabyte. */
export const RATES = { in: '1.23456789', out: '9.87654321', xfer: '0.5' };

export function model(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    enabled: true,
    pricing_mode: 'manual',
    manual_in_per_1m: RATES.in,
    manual_out_per_1m: RATES.out,
    manual_xfer_per_gb: RATES.xfer,
    cost_in_per_1m: '1',
    cost_out_per_1m: '5',
    cost_currency: 'USD',
    ...extra,
  };
}

/** An OpenAI-compatible provider on the fake upstream with the given model rows, made active with the first. */
export async function openaiProvider(t: TestNode, fake: FakeUpstream, id: string, models: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<any> {
  return configure(t, {
    provider: { id, preset: 'openai-compatible', endpoint: fake.openaiUrl, models, ...extra },
    active: { provider: id, model: models[0]!.id },
  });
}

/** The exact charge of Document 2's formula, as a decimal string, cut to 8 decimals. */
export function expectedCharge(input: number, output: number, bytes: number, rates = RATES): string {
  const total = new Decimal(input)
    .times(rates.in)
    .plus(new Decimal(output).times(rates.out))
    .div(1_000_000)
    .plus(new Decimal(bytes).times(rates.xfer).div(1_000_000_000));
  return total.toDecimalPlaces(8, Decimal.ROUND_DOWN).toString();
}

export async function createKey(t: TestNode, body: Record<string, unknown>): Promise<{ key_id: number; token: string; [k: string]: any }> {
  return ok(t, 'POST', `${PLUGIN}/key-create`, body);
}

/** Seller and customer nodes as accepted contacts in VWL: the seller extends `credit` to the customer. */
export async function sellerAndCustomer(credit = '1000'): Promise<{ seller: TestNode; customer: TestNode }> {
  const [seller, customer] = await Promise.all([startMcpNode(), startTestNode()]);
  await connect(seller, customer, { creditAtoB: credit, creditBtoA: '1000', nameOfB: 'customer', nameOfA: 'seller' });
  return { seller, customer };
}

/** The customer pays the seller `amount` VWL described as the key's top-up memo; waits until it completes. */
export async function topUp(customer: TestNode, seller: TestNode, keyId: number, amount: string, memo = `mcp-topup:${keyId}`): Promise<string> {
  const txid = await send(customer, seller.node.baseUrl, amount, 'VWL', memo);
  const s = await settled(customer, txid, seller);
  if (s.status !== 'completed') throw new Error(`top-up ${txid} ended ${s.status}`);
  return txid;
}

export function mcpUrl(t: TestNode): URL {
  return new URL(`${t.node.baseUrl}/p/mcp-passthrough/mcp`);
}

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function mcpClient(t: TestNode, token: string, headers: Record<string, string> = {}): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(mcpUrl(t), { requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } } });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC POST to the endpoint (for what the SDK client never sends). */
export async function rpc(
  t: TestNode,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(mcpUrl(t), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  if (res.headers.get('content-type')?.includes('application/json')) json = text ? JSON.parse(text) : null;
  else if (res.headers.get('content-type')?.includes('text/event-stream')) {
    // A priming event (an id with empty data, for resumption) carries no message.
    const data = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
    json = data[data.length - 1] ?? null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Posts a JSON-RPC batch and collects the responses of its requests by id (from the event stream). */
export async function rpcAll(t: TestNode, token: string, batch: unknown[], headers: Record<string, string>): Promise<Map<string | number, any>> {
  const res = await rpc(t, token, batch, headers);
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${res.text}`);
  const out = new Map<string | number, any>();
  for (const line of res.text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const m = JSON.parse(line.slice(6));
    if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) out.set(m.id, m);
  }
  return out;
}

export const initializeBody = (version = '2025-11-25', id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

export { call, hashOf, ok, waitFor };

/** A decimal amount of the wire (`"0.00012"`, `"-3"`) in minor units (1e-8), for exact sums in tests. */
export function minor(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole, frac = ''] = amount.replace('-', '').split('.');
  const v = BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
  return negative ? -v : v;
}

/** The structured result of a tool call. */
export function structured(result: unknown): any {
  return (result as { structuredContent?: unknown }).structuredContent;
}

/** One `chat.completion` call: whether the tool answered an error, and its structured result. */
export async function chat(mcp: Connected, args: Record<string, unknown>, onprogress?: (message: string) => void): Promise<{ isError: boolean; r: any }> {
  const res = await mcp.client.callTool({ name: 'chat.completion', arguments: args }, undefined, onprogress ? { onprogress: (p) => onprogress(String(p.message)) } : undefined);
  return { isError: res.isError === true, r: structured(res) };
}

/** The key's funds as `balance.check` reports them. */
export async function balanceOf(mcp: Connected): Promise<any> {
  return structured(await mcp.client.callTool({ name: 'balance.check', arguments: {} }));
}
