/**
 * node-cli end to end: a real `wallet-node` process on a free loopback port and `node-cli` runs against it,
 * as an operator would use them. Builds nothing: CI runs `npm run build` before vitest.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import { CLI, DAEMON, ROOT, cleanEnv } from '../support/daemon.js';

const HEX64 = /^[0-9a-f]{64}$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}


let dataDir = '';
let workDir = '';
let daemon: ChildProcess | null = null;
let daemonExit: Promise<number | null> | null = null;
let baseUrl = '';
let daemonLog = '';

function cli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: cleanEnv({ NODE_DATA_DIR: dataDir, ...options.env }), cwd: options.cwd ?? workDir, timeout: 20_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** Runs with --json and parses the one envelope on stdout. */
async function cliJson(args: string[], options?: { env?: Record<string, string>; cwd?: string }): Promise<Run & { body: any }> {
  const run = await cli([...args, '--json'], options);
  let body: unknown;
  try {
    body = JSON.parse(run.stdout);
  } catch {
    throw new Error(`node-cli ${args.join(' ')} printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, body };
}

async function waitFor<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nwallet-node output:\n${daemonLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/app/node-cli.js')) || !existsSync(join(ROOT, 'dist/app/wallet-node.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before the e2e tests (CI builds first)');
  }
  dataDir = mkdtempSync(join(tmpdir(), 'node-cli-e2e-data-'));
  workDir = mkdtempSync(join(tmpdir(), 'node-cli-e2e-cwd-'));
  daemon = spawn(process.execPath, [DAEMON], {
    env: cleanEnv({ NODE_DATA_DIR: dataDir, NODE_PORT: '0', NODE_BIND: '127.0.0.1', NODE_TEST_MODE: 'true', NODE_PEER_PRIVATE_ADDRESSES: 'true' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stdout!.on('data', (d) => (daemonLog += String(d)));
  daemon.stderr!.on('data', (d) => (daemonLog += String(d)));
  daemonExit = new Promise((r) => daemon!.once('exit', (code) => r(code)));
  const credsFile = join(dataDir, 'cli.json');
  baseUrl = await waitFor('cli.json', () => {
    if (daemon!.exitCode !== null) throw new Error(`wallet-node exited early (${daemon!.exitCode}):\n${daemonLog}`);
    if (!existsSync(credsFile)) return null;
    try {
      return (JSON.parse(readFileSync(credsFile, 'utf8')) as { base_url: string }).base_url;
    } catch {
      return null; // being written
    }
  });
  await waitFor('/healthz', async () => {
    const res = await fetch(new URL('/healthz', baseUrl)).catch(() => null);
    return res?.ok ? true : null;
  });
}, 30_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await daemonExit;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('node-cli against a running wallet-node', () => {
  let nodeId = '';

  it('the banner of a node outside ./data names its data directory in every node-cli hint', async () => {
    await waitFor('the banner', () => (daemonLog.includes('CLI key') ? true : null));
    const hints = daemonLog.split('\n').filter((l) => l.includes('node-cli '));
    expect(hints.length).toBeGreaterThan(0);
    for (const line of hints) expect(line).toContain(`npx node-cli --data-dir ${dataDir} `);
  });

  it('info --json prints the public key hash, addresses and metadata', async () => {
    const { code, body } = await cliJson(['info']);
    expect(code).toBe(0);
    expect(body.success).toBe(true);
    expect(body.data.public_key_hash).toMatch(HEX64);
    expect(Object.keys(body.data.addresses).sort()).toEqual(['http', 'https', 'tor']);
    expect(body.data.addresses.http).toBe(baseUrl.replace(/\/$/, ''));
    expect(body.data.fee_earnings).toEqual([]);
    expect(body.data.available_credit).toEqual([]);
    expect(body.data.auth_code).toEqual({ status: 'redacted' });
    expect(body.metadata).toEqual({ timestamp: expect.any(String), node_id: body.data.public_key_hash, command: 'info' });
    nodeId = body.data.public_key_hash;
    const cliJsonFile = join(dataDir, 'cli.json');
    expect(statSync(cliJsonFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'cli-rate.json')).mode & 0o777).toBe(0o600);
  });

  it('info prints a human summary with the auth code redacted', async () => {
    const { code, stdout, stderr } = await cli(['info']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain(nodeId);
    expect(stdout).toMatch(/Auth code\s+\*+ \(hidden/);
    expect(stdout).toMatch(/http\s+http:\/\/127\.0\.0\.1:\d+/);
  });

  it('info detail says when balances are not available', async () => {
    const { code, body } = await cliJson(['info', 'detail']);
    expect(code).toBe(0);
    expect(body.data).toHaveProperty('balances');
    if (body.data.balances === null) expect(body.data.balances_available).toBe(false);
    else expect(Array.isArray(body.data.balances)).toBe(true);
  });

  it('info --show-auth off a terminal writes the auth code to a private memory file', async () => {
    const { code, body } = await cliJson(['info', '--show-auth']);
    expect(code).toBe(0);
    expect(body.data.auth_code).toMatchObject({ status: 'file', expires_in_seconds: 300 });
    const file: string = body.data.auth_code.file;
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{20}$/);
      if (existsSync('/dev/shm')) expect(file.startsWith('/dev/shm/')).toBe(true);
      expect(JSON.stringify(body)).not.toContain(readFileSync(file, 'utf8').trim());
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('apikey create, list, disable, enable and delete round trip', async () => {
    const created = await cliJson(['apikey', 'create', 'e2e-key', '--permissions', 'wallet:read,system:read', '--rate-limit', '50']);
    expect(created.code).toBe(0);
    const key = created.body.data;
    expect(Object.keys(key).sort()).toEqual(
      ['created_at', 'enabled', 'expires_at', 'key_id', 'name', 'permissions', 'rate_limit_per_minute', 'secret', 'warning'].sort(),
    );
    expect(key).toMatchObject({ name: 'e2e-key', permissions: ['wallet:read', 'system:read'], rate_limit_per_minute: 50, enabled: true, expires_at: null });
    expect(key.secret).toMatch(HEX64);
    expect(created.stderr).toMatch(/WARNING: .*not be shown again/);
    expect(created.body.metadata.command).toBe('apikey create');

    // the printed secret really signs requests
    const client = new SignedClient({ baseUrl, keyId: key.key_id, secret: key.secret });
    expect((await client.get('/api/v1/wallet/info')).status).toBe(200);

    const find = async () => {
      const list = await cliJson(['apikey', 'list']);
      expect(list.code).toBe(0);
      return list.body.data.keys.find((k: { key_id: string }) => k.key_id === key.key_id);
    };
    const listed = await find();
    expect(Object.keys(listed).sort()).toEqual(
      ['created_at', 'enabled', 'expired', 'expires_at', 'key_id', 'last_used_at', 'name', 'permissions', 'rate_limit_per_minute'].sort(),
    );
    expect(listed).not.toHaveProperty('secret');

    const disabled = await cliJson(['apikey', 'disable', key.key_id]);
    expect(disabled.code).toBe(0);
    expect((await find()).enabled).toBe(false);
    expect((await client.get('/api/v1/wallet/info')).status).toBe(401);

    expect((await cliJson(['apikey', 'enable', key.key_id])).code).toBe(0);
    expect((await find()).enabled).toBe(true);

    const human = await cli(['apikey', 'list']);
    expect(human.stdout).toMatch(/KEY ID\s+NAME\s+PERMISSIONS/);
    expect(human.stdout).toContain('e2e-key');

    const deleted = await cliJson(['apikey', 'delete', key.key_id]);
    expect(deleted.code).toBe(0);
    expect(await find()).toBeUndefined();
    const again = await cliJson(['apikey', 'delete', key.key_id]);
    expect(again.code).toBe(1);
    expect(again.body.error.code).toBe('key_not_found');
  });

  it('changesettings default_fee 1.5, then viewsettings shows it', async () => {
    const changed = await cli(['changesettings', 'default_fee', '1.5']);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('default_fee = 1.5');
    const view = await cliJson(['viewsettings']);
    expect(view.code).toBe(0);
    expect(view.body.data.settings.default_fee).toBe(1.5);
    // camelCase names work too
    expect((await cli(['changesettings', 'defaultFee', '2'])).code).toBe(0);
    expect((await cliJson(['viewsettings'])).body.data.settings.default_fee).toBe(2);
    const human = await cli(['viewsettings']);
    expect(human.stdout).toMatch(/\[transactions\]/);
    expect(human.stdout).toMatch(/default_fee\s+2/);
  });

  it('an invalid setting value exits 1 with validation_error', async () => {
    const bad = await cliJson(['changesettings', 'default_fee', 'abc']);
    expect(bad.code).toBe(1);
    expect(bad.body.success).toBe(false);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.metadata.command).toBe('changesettings');
    const human = await cli(['changesettings', 'default_fee', 'abc']);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^Error: default_fee: /);
    const reset = await cliJson(['changesettings', 'reset']);
    expect(reset.code).toBe(1);
    expect(reset.body.error.code).toBe('CONFIRMATION_REQUIRED');
    const done = await cliJson(['changesettings', 'reset', '--yes']);
    expect(done.code).toBe(0);
    expect((await cliJson(['viewsettings'])).body.data.settings.default_fee).toBe(0);
  });

  it('plugin list --json lists the builtin plugins', async () => {
    const { code, body } = await cliJson(['plugin', 'list']);
    expect(code).toBe(0);
    const names = body.data.plugins.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['system', 'api-keys', 'plugins-admin', 'wallet']));
    for (const p of body.data.plugins) expect(p).toMatchObject({ name: expect.any(String), version: expect.any(String), enabled: expect.any(Boolean), status: expect.any(String) });
    // `plugin` alone lists too
    const bare = await cli(['plugin']);
    expect(bare.stdout).toMatch(/NAME\s+VERSION\s+ENABLED\s+STATUS/);
    const unknown = await cliJson(['plugin', 'enable', 'no-such-plugin']);
    expect(unknown.code).toBe(1);
    expect(unknown.body.error.code).toBe('unknown_plugin');
  });

  it('--no-metadata drops metadata, with flags anywhere on the line', async () => {
    const run = await cli(['--no-metadata', 'info', '-j']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
  });

  it('a mistyped command prints one line naming the closest command and exits 2', async () => {
    const human = await cli(['snd']);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe('Error: Command \'snd\' not found; did you mean "send"?\n');
    const json = await cliJson(['frobnicate']);
    expect(json.code).toBe(2);
    expect(json.body.error.code).toBe('COMMAND_NOT_FOUND');
  });

  it('wallet-node --version prints the release of package.json', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const run = await new Promise<Run>((done) =>
      execFile(process.execPath, [DAEMON, '--version'], { env: cleanEnv(), cwd: workDir, timeout: 20_000 }, (err, stdout, stderr) =>
        done({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
    );
    expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('shutdown stops the processors and start resumes them', async () => {
    const down = await cliJson(['shutdown']);
    expect(down.code).toBe(0);
    expect(Object.values(down.body.data.processors ?? {}).every((v) => v === false)).toBe(true);
    const up = await cliJson(['start']);
    expect(up.code).toBe(0);
    expect(up.body.data.message).toEqual(expect.any(String));
  });

  it('plugin disable needs a restart, restart applies it, enable brings it back', async () => {
    const off = await cli(['plugin', 'disable', 'wallet']);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('node-cli restart');
    const restarted = await cliJson(['restart']);
    expect(restarted.code).toBe(0);
    const gone = await cliJson(['info']);
    expect(gone.code).toBe(1);
    expect(gone.body.error.status).toBe(404);
    // the node id is remembered from earlier runs, so metadata still names the node
    expect(gone.body.metadata.node_id).toBe(nodeId);
    expect((await cli(['plugin', 'enable', 'wallet'])).code).toBe(0);
    expect((await cli(['restart'])).code).toBe(0);
    expect((await cliJson(['info'])).body.data.public_key_hash).toBe(nodeId);
  });

  it('retire needs --yes off a terminal; retire --yes and unretire --yes', async () => {
    const refused = await cliJson(['retire']);
    expect(refused.code).toBe(1);
    expect(refused.body.error.code).toBe('CONFIRMATION_REQUIRED');
    const retired = await cliJson(['retire', '--yes']);
    expect(retired.code).toBe(0);
    expect(retired.body.data.retired).toBe(true);
    const back = await cliJson(['unretire', '--yes']);
    expect(back.code).toBe(0);
    expect(back.body.data.retired).toBe(false);
  });

  it('report debug saves the report in the current directory', async () => {
    const { code, body } = await cliJson(['report', 'debug', 'e2e check']);
    expect(code).toBe(0);
    expect(body.data.file.startsWith(workDir)).toBe(true);
    expect(statSync(body.data.file).mode & 0o777).toBe(0o600);
    const report = JSON.parse(readFileSync(body.data.file, 'utf8'));
    expect(report.description).toBe('e2e check');
    expect(readdirSync(workDir).some((f) => /^debug-report-.*\.json$/.test(f))).toBe(true);
  });

  it('takes credentials from NODE_API_URL, NODE_API_KEY and NODE_API_SECRET', async () => {
    const creds = JSON.parse(readFileSync(join(dataDir, 'cli.json'), 'utf8'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'node-cli-e2e-empty-'));
    try {
      const ok = await cliJson(['info'], {
        env: { NODE_DATA_DIR: elsewhere, NODE_API_URL: creds.base_url, NODE_API_KEY: creds.key_id, NODE_API_SECRET: creds.secret },
      });
      expect(ok.code).toBe(0);
      expect(ok.body.data.public_key_hash).toBe(nodeId);
      const none = await cli(['info'], { env: { NODE_DATA_DIR: elsewhere } });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('no node credentials: start the node first or set NODE_API_URL/NODE_API_KEY/NODE_API_SECRET');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('wallet-node exits 0 within 5 s of SIGTERM', async () => {
    const began = Date.now();
    daemon!.kill('SIGTERM');
    const code = await Promise.race([daemonExit!, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5_000))]);
    expect(code).toBe(0);
    expect(Date.now() - began).toBeLessThan(5_000);
    const after = await cli(['info']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/^Error: cannot reach the node at/);
  });
});
