/**
 * displayDecimals and displayDateFormat (Document 2) in node-cli's human output: amounts keep all 8 decimals whatever
 * displayDecimals says (currency rule 2: it is a GUI setting), and dates follow the chosen format; `--json` keeps the
 * API's values. Two real nodes
 * in this process, node-cli run in-process with each node's cli.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCliContributions, builtinCliRateLimits, identifyNode } from '../../builtin-plugins/cli-commands.js';
import { runCli } from '../../kernel/cli/run.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { connect, ok, send, settled } from './ledger-support.js';

const scratch = mkdtempSync(join(tmpdir(), 'cli-display-'));

const SETUP = { version: 'test', contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode };

/** node-cli as the operator runs it on the node's machine; `json` is the parsed envelope when --json was given. */
async function cli(t: TestNode, args: string[]): Promise<{ code: number; stdout: string; json: any }> {
  const out: string[] = [];
  const env = { NODE_DATA_DIR: t.dataDir, NODE_CLI_RATE_FILE: join(scratch, 'rate.json') };
  const silent = new PassThrough().resume();
  const code = await runCli({ argv: args, env, cwd: scratch, stdout: { write: (s: string) => void out.push(s) }, stderr: silent as never, stdin: silent as never }, SETUP);
  const stdout = out.join('');
  return { code, stdout, json: args.includes('--json') ? JSON.parse(stdout) : null };
}

/** The cells of the table row that mentions `needle`. */
const rowWith = (stdout: string, needle: string): string[] => {
  const line = stdout.split('\n').find((l) => l.includes(needle));
  if (!line) throw new Error(`no line with ${needle} in:\n${stdout}`);
  return line.trim().split(/\s{2,}/);
};

describe('node-cli display settings', () => {
  let A: TestNode;
  let B: TestNode;
  let txid: string;

  beforeAll(async () => {
    [A, B] = await Promise.all([startTestNode(), startTestNode()]);
    await connect(A, B, { creditAtoB: '100', creditBtoA: '100' });
    txid = await send(B, 'Alice', '1.23456789', 'VWL', 'display test');
    expect((await settled(B, txid, A)).status).toBe('completed');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([A, B].map((t) => t?.destroy()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('displayDecimals leaves node-cli amounts at full precision, human and --json alike (currency rule 2)', async () => {
    for (const decimals of [0, 3]) {
      await ok(A, 'PUT', '/api/v1/system/settings', { display_decimals: decimals });
      expect(rowWith((await cli(A, ['viewbalances'])).stdout, 'Bob')).toEqual(['Bob', 'VWL', '1.23456789', '0', '1.23456789']);
      expect(rowWith((await cli(A, ['history'])).stdout, 'display test')).toContain('1.23456789');
    }
    await ok(B, 'PUT', '/api/v1/system/settings', { display_decimals: 4 });
    expect(rowWith((await cli(B, ['overview'])).stdout, 'VWL')).toEqual(['VWL', '-1.23456789']);
    expect((await cli(B, ['overview', '--json'])).json.data.balances[0].total_balance).toBe('-1.23456789');
    expect((await cli(A, ['viewbalances', '--json'])).json.data.balances[0]).toMatchObject({ received: '1.23456789', net_balance: '1.23456789' });
  });

  it('displayDateFormat changes how history shows times; --json keeps the API timestamp', async () => {
    const json = await cli(A, ['history', '--json']);
    const timestamp: string = json.json.data.transactions[0].timestamp;
    const at = new Date(timestamp);
    const pad = (n: number): string => String(n).padStart(2, '0');

    await ok(A, 'PUT', '/api/v1/system/settings', { display_date_format: 'YYYY/MM/DD HH:mm:ss' });
    const slashed = `${at.getUTCFullYear()}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;
    expect(rowWith((await cli(A, ['history'])).stdout, 'display test')[0]).toBe(slashed);

    // Any format string of the usual tokens, literal letters in brackets (Document 2: "Date format string").
    await ok(A, 'PUT', '/api/v1/system/settings', { display_date_format: 'DD.MM.YYYY [um] HH:mm' });
    const german = `${pad(at.getUTCDate())}.${pad(at.getUTCMonth() + 1)}.${at.getUTCFullYear()} um ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`;
    expect(rowWith((await cli(A, ['history'])).stdout, 'display test')[0]).toBe(german);

    await ok(A, 'PUT', '/api/v1/system/settings', { display_date_format: 'unix' });
    expect(rowWith((await cli(A, ['history'])).stdout, 'display test')[0]).toBe(String(Math.floor(at.getTime() / 1000)));

    expect((await cli(A, ['history', '--json'])).json.data.transactions[0].timestamp).toBe(timestamp);
  });

  it('analytics status shows its times in displayDateFormat too; --json keeps ISO 8601', async () => {
    await ok(B, 'PUT', '/api/v1/system/settings', { analytics_enabled: true, display_date_format: 'unix' });
    const json = await cli(B, ['analytics', 'status', '--json']);
    const optIn: string = json.json.data.opt_in_at;
    expect(optIn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const human = await cli(B, ['analytics', 'status']);
    expect(human.stdout).toMatch(new RegExp(`consent\\s+given ${Math.floor(Date.parse(optIn) / 1000)}\n`));
  });
});
