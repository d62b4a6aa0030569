/**
 * node-cli `mcp ...` against a real node, run in-process: status, set, provider (token from a file, models from a
 * file), activate, config, key create/revoke, keys and usage, in human and --json output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import type { TestNode } from '../support/node.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpNode } from './mcp-support.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
let t: TestNode;

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  let stdout = '';
  let stderr = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const errStream = Object.assign(new PassThrough(), { isTTY: false, write: (s: string) => ((stderr += s), true) });
  const code = await runCli(
    {
      argv: args,
      env: { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: join(scratch, 'rate.json') },
      cwd: scratch,
      stdout: { write: (s: string) => void (stdout += s) },
      stderr: errStream as never,
      stdin: stdin as never,
    },
    { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode },
  );
  let json: any = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    // human output
  }
  return { code, stdout, stderr, json };
}

/**
 * fetch that accepts the test node's self-signed certificate, as a customer's client does once the operator's
 * certificate is trusted (a public node has a CA-signed one).
 */
const trustingFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
  new Promise((done, fail) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const req = request(String(input instanceof Request ? input.url : input), { method: init.method ?? 'GET', headers, rejectUnauthorized: false }, (res) => {
      const status = res.statusCode ?? 500;
      const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream);
      done(new Response(body, { status, headers: res.headers as Record<string, string> }));
    });
    req.on('error', fail);
    req.end(init.body === undefined || init.body === null ? undefined : String(init.body));
  });

beforeAll(async () => {
  t = await startMcpNode();
});

afterAll(async () => {
  await t?.destroy();
  rmSync(scratch, { recursive: true, force: true });
});

describe('node-cli mcp', () => {
  it('shows the status, human and --json', async () => {
    const human = await cli(['mcp']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('MCP passthrough');
    expect(human.stdout).toContain('No provider yet');
    expect(human.stdout).toMatch(/owed to sellers\s+nothing/);
    const json = await cli(['mcp', 'status', '--json']);
    expect(json.json).toMatchObject({ success: true, data: { mode: 'pilot', currency: 'VWL', key_count: 0, federation: { offer_count: 0, owed_calls: 0 } } });
  });

  it('configures a provider from files, activates a model and changes a setting', async () => {
    const tokenFile = join(scratch, 'token');
    const modelsFile = join(scratch, 'models.json');
    writeFileSync(tokenFile, 'sk-from-file\n');
    writeFileSync(modelsFile, JSON.stringify([{ id: 'm1', enabled: true, pricing_mode: 'manual', manual_in_per_1m: '1', manual_out_per_1m: '2' }]));
    const saved = await cli(['mcp', 'provider', 'local', '--preset', 'ollama', '--token-file', tokenFile, '--models-file', modelsFile, '--json']);
    expect(saved.code).toBe(0);
    expect(saved.json.data.providers[0]).toMatchObject({ id: 'local', preset: 'ollama', endpoint: 'http://127.0.0.1:11434/v1', has_token: true });
    expect(saved.stdout).not.toContain('sk-from-file');
    expect((await cli(['mcp', 'activate', 'local', 'm1', '--json'])).json.data.active).toEqual({ provider: 'local', model: 'm1' });
    expect((await cli(['mcp', 'set', 'mode', 'open'])).stdout).toContain('mode set to open');
    const config = await cli(['mcp', 'config']);
    expect(config.stdout).toContain('m1');
    const bad = await cli(['mcp', 'set', 'mode', 'shut', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ success: false, error: { code: 'invalid_setting' } });
    const missing = await cli(['mcp', 'provider', 'x', '--token-file', join(scratch, 'nope')]);
    expect(missing.code).toBe(1);
  });

  it('creates a key (token once), lists keys without tokens, revokes, and shows usage', async () => {
    const created = await cli(['mcp', 'key', 'create', 'desk', '--ttl', '3600', '--json']);
    expect(created.code).toBe(0);
    const token = created.json.data.token as string;
    expect(token).toMatch(/^mcp_/);
    expect(created.stderr).toContain('warning: the key is not bound');
    const human = await cli(['mcp', 'key', 'create', 'desk2']);
    expect(human.stdout).toMatch(/token\s+mcp_/);
    const keys = await cli(['mcp', 'keys']);
    expect(keys.stdout).toContain('desk');
    expect(keys.stdout).not.toContain(token);
    expect((await cli(['mcp', 'key', 'revoke', String(created.json.data.key_id)])).stdout).toContain('revoked');
    expect((await cli(['mcp', 'keys', '--json'])).json.data.keys[0].status).toBe('revoked');
    expect((await cli(['mcp', 'key', 'revoke', 'x'])).code).toBe(1);
    const usage = await cli(['mcp', 'usage', '--limit', '10']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain('No usage yet.');
    expect((await cli(['mcp', 'usage', '--limit', '501', '--json'])).json.success).toBe(false);
  });

  it('sets a key\'s limits at creation and changes them with key update; default returns one to the operator\'s', async () => {
    const created = await cli(['mcp', 'key', 'create', 'limited', '--rpm', '60', '--budget', '5/month', '--models', 'm1', '--json']);
    expect(created.code).toBe(0);
    expect(created.json.data.limits).toMatchObject({ requests_per_minute: 60, budget: { amount: '5', period: 'month' }, allowed_models: ['m1'] });
    const id = String(created.json.data.key_id);
    const updated = await cli(['mcp', 'key', 'update', id, '--rpm', 'default', '--parallel', '4', '--sessions', '3']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/requests per minute\s+0 \(default\)/);
    expect(updated.stdout).toMatch(/parallel calls\s+4/);
    expect(updated.stdout).toMatch(/budget\s+5 per month/);
    const bad = await cli(['mcp', 'key', 'update', id, '--budget', '5/year', '--json']);
    expect(bad.code).toBe(1);
  });

  it('key create prints the endpoint URL and an MCP client configuration that connects as printed', async () => {
    const human = await cli(['mcp', 'key', 'create', 'laptop']);
    expect(human.code).toBe(0);
    const address = t.node.addresses().https ?? t.node.addresses().http;
    const endpoint = `${address}/p/mcp-passthrough/mcp`;
    expect(human.stdout).toMatch(new RegExp(`endpoint\\s+${endpoint.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n`));
    // OpenAI SDKs take the door's base URL and the same token as their API key.
    expect(human.stdout).toContain(`openai base url  ${address}/p/mcp-passthrough/v1\n`);
    const printed = human.stdout.slice(human.stdout.indexOf('{', human.stdout.indexOf('MCP client configuration')));
    const server = JSON.parse(printed).mcpServers['wallet-node'];
    expect(server).toMatchObject({ type: 'http', url: endpoint, headers: { Authorization: expect.stringMatching(/^Bearer mcp_/) } });

    // Its expiry follows displayDateFormat, as every date of human output.
    expect((await t.admin.put('/api/v1/system/settings', { display_date_format: 'unix' })).status).toBe(200);
    expect((await cli(['mcp', 'key', 'create', 'tablet', '--ttl', '3600'])).stdout).toMatch(/expires\s+\d{10}\n/);

    const json = await cli(['mcp', 'key', 'create', 'phone', '--json']);
    expect(json.json.data.endpoint).toBe(endpoint);
    expect(json.json.data.openai_base_url).toBe(`${address}/p/mcp-passthrough/v1`);
    expect(json.json.data.client_config.mcpServers['wallet-node'].headers.Authorization).toBe(`Bearer ${json.json.data.token}`);

    // The configuration as a client reads it: its URL and headers are all it needs to open a session.
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch: trustingFetch });
    const client = new Client({ name: 'configured-client', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
