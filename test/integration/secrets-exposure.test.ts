/**
 * Where secrets may and may not go. `wallet-node seed` (a real process from dist/, on the data directory of a running
 * node) shows the 24 words on a terminal, else writes them to a memory-only file that deletes itself; the words
 * reach no log, no debug report and no API response. Debug reports: two in one second both save, and the scrubbed
 * submission names no API key. node-cli piped into `head` ends quietly.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrubText } from '../../builtin-plugins/system/scrub.js';
import { memoryDir } from '../../kernel/cli/local.js';
import { call, ok } from '../support/api.js';
import { CLI, cleanEnv, DAEMON, requireBuild, until } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: Record<string, string>, cwd = tmpdir()): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { env: cleanEnv(env), cwd, timeout: 20_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

const walletNode = (args: string[], env: Record<string, string>): Promise<Run> => run(process.execPath, [DAEMON, ...args], env);
const nodeCli = (args: string[], env: Record<string, string>, cwd?: string): Promise<Run> => run(process.execPath, [CLI, ...args], env, cwd);

/** Every file under `dir`, as bytes read as latin1 (a text search that also looks inside the SQLite files). */
function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'latin1'));
  }
  return out;
}

const temps: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

beforeAll(() => requireBuild());
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('the seed phrase', () => {
  let t: TestNode;
  let words: string[];
  /** Every text that left the node or the commands; none may hold three words of the phrase in a row. */
  const seen: { where: string; text: string }[] = [];
  beforeAll(async () => {
    t = await startTestNode();
    words = t.node.identity.revealMnemonic().split(' ');
    expect(words).toHaveLength(24);
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('off a terminal, wallet-node seed writes the words to a mode-600 memory file that deletes itself', async () => {
    const res = await walletNode(['seed'], { NODE_DATA_DIR: t.dataDir, NODE_SECRET_FILE_TTL_SECONDS: '2' });
    seen.push({ where: 'wallet-node seed output', text: res.stdout + res.stderr });
    expect(res.code).toBe(0);
    const file = /written to (\S+) \(mode 600, in memory; deleted in 2 s\)/.exec(res.stdout)?.[1];
    expect(file, res.stdout + res.stderr).toBeDefined();
    expect(dirname(file!)).toBe(memoryDir());
    if (existsSync('/dev/shm')) expect(file!.startsWith('/dev/shm/')).toBe(true);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(readFileSync(file!, 'utf8').trim()).toBe(words.join(' '));
    expect(res.stdout).toContain(t.node.identity.pubkeyHash);
    await until('the seed file deleted', () => (existsSync(file!) ? null : true), 10_000);
  });

  it('keeps the file 300 s by default and refuses a lifetime that is not whole seconds up to an hour', async () => {
    const res = await walletNode(['seed', '--data-dir', t.dataDir], {});
    seen.push({ where: 'wallet-node seed output', text: res.stdout + res.stderr });
    const file = /written to (\S+) /.exec(res.stdout)?.[1];
    expect(file).toBeDefined();
    rmSync(file!, { force: true });
    expect(res.stdout).toContain('deleted in 300 s');
    for (const bad of ['0', '1.5', 'soon', '3601']) {
      const refused = await walletNode(['seed'], { NODE_DATA_DIR: t.dataDir, NODE_SECRET_FILE_TTL_SECONDS: bad });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('NODE_SECRET_FILE_TTL_SECONDS');
    }
  });

  it('on a terminal, wallet-node seed prints the 24 numbered words', async () => {
    const command = [process.execPath, DAEMON, 'seed'].map((a) => `'${a}'`).join(' ');
    const res = await run('script', ['-qec', command, '/dev/null'], { NODE_DATA_DIR: t.dataDir });
    expect(res.code).toBe(0);
    const text = res.stdout.replace(/\r/g, '');
    words.forEach((w, i) => expect(text).toMatch(new RegExp(`\\b${i + 1}\\. ${w}\\b`)));
    expect(text).not.toContain('written to');
  });

  it('never creates an identity: a directory without one is refused and stays empty', async () => {
    const empty = tempDir('seed-empty-');
    const res = await walletNode(['seed'], { NODE_DATA_DIR: empty });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no node identity in .*identity\.enc is missing/);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('the words appear in no log file, debug report or API response', async () => {
    const paths = [
      '/api/v1/wallet/info',
      '/api/v1/wallet/balance',
      '/api/v1/system/status',
      '/api/v1/system/settings',
      '/api/v1/system/metrics',
      '/api/v1/system/debug-report?full=true',
      '/api/v1/keys',
      '/api/v1/plugins',
      '/api/v1/contacts',
    ];
    for (const path of paths) {
      const [p, q] = path.split('?');
      const res = await call(t, 'GET', p!, undefined, q ? Object.fromEntries(new URLSearchParams(q)) : undefined);
      expect(res.status, path).toBe(200);
      seen.push({ where: path, text: JSON.stringify(res.body) });
    }
    const workDir = tempDir('seed-report-');
    const report = await nodeCli(['report', 'debug', '--full'], { NODE_DATA_DIR: t.dataDir }, workDir);
    expect(report.code, report.stderr).toBe(0);
    seen.push({ where: 'report debug output', text: report.stdout + report.stderr });
    const saved = readdirSync(workDir).filter((f) => f.startsWith('debug-report-'));
    expect(saved).toHaveLength(1);
    seen.push({ where: 'report debug file', text: readFileSync(join(workDir, saved[0]!), 'utf8') });
    for (const [path, text] of filesUnder(t.dataDir)) seen.push({ where: path, text });
    expect(seen.some((s) => s.where.endsWith('node.log'))).toBe(true);

    for (const { where, text } of seen) {
      for (let i = 0; i + 3 <= words.length; i++) {
        const run3 = words.slice(i, i + 3).join(' ');
        expect(text.includes(run3), `words ${i + 1}-${i + 3} in ${where}`).toBe(false);
      }
    }
  });
});

describe('debug reports', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('two report debug runs in the same second both save, neither over an existing file', async () => {
    const workDir = tempDir('report-twice-');
    // Every name the next seconds could take is already there, as after an earlier run in that second.
    const taken: string[] = [];
    for (let s = 0; s < 5; s++) {
      const stamp = new Date(Date.now() + s * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      const name = `debug-report-${stamp}.json`;
      writeFileSync(join(workDir, name), 'earlier report\n');
      taken.push(name);
    }
    const first = await nodeCli(['report', 'debug', '--json'], { NODE_DATA_DIR: t.dataDir }, workDir);
    const second = await nodeCli(['report', 'debug', '--json'], { NODE_DATA_DIR: t.dataDir }, workDir);
    expect([first.code, second.code], first.stdout + first.stderr + second.stdout + second.stderr).toEqual([0, 0]);
    const files = [first, second].map((r) => JSON.parse(r.stdout).data.file as string);
    expect(new Set(files).size).toBe(2);
    for (const f of files) {
      expect(f).toMatch(/debug-report-\d{8}T\d{6}Z-\d+\.json$/);
      expect(statSync(f).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(f, 'utf8')).report_version).toBe(1);
    }
    for (const name of taken) expect(readFileSync(join(workDir, name), 'utf8')).toBe('earlier report\n');
  });

  it('the scrubbed submission names no API key', async () => {
    const received: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += String(c)));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ key: 'rep-1' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const created = await ok(t, 'POST', '/api/v1/keys', { name: 'reporter', permissions: ['wallet:read'] });
      const keyIds = [created.key_id as string, t.node.cliCredentials().key_id];
      const local = JSON.stringify(await ok(t, 'GET', '/api/v1/system/debug-report'));
      for (const id of keyIds) expect(local).toContain(id); // the log names them: the scrub has something to do

      await ok(t, 'PUT', '/api/v1/system/settings', { debug_report_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/report` });
      expect((await ok(t, 'POST', '/api/v1/system/debug-report', { description: `key ${keyIds[0]} fails` })).submitted).toBe(true);
      expect(received).toHaveLength(1);
      for (const id of keyIds) expect(received[0]).not.toContain(id);
      expect(received[0]).not.toMatch(/wn[0-9a-f]{8}_/);
      expect(JSON.parse(received[0]!).description).toBe('key [redacted-key-id] fails');
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(scrubText('by wn1a2b3c4d_5e6f708192a3b4c5d6e7f809.')).toBe('by [redacted-key-id].');
  });
});

describe('node-cli into a pipe that closes early', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
    await ok(t, 'PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
    // More than a pipe holds (64 KiB), so node-cli is still writing when head has gone.
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => ok(t, 'POST', '/api/v1/keys', { name: `pipe-key-${batch}-${i}`, permissions: ['wallet:read'] })),
      );
    }
  }, 60_000);
  afterAll(async () => {
    await t.destroy();
  });

  it('node-cli apikey list | head -n 1 ends with status 0 and no stack trace', async () => {
    const dir = tempDir('epipe-');
    const full = await nodeCli(['apikey', 'list'], { NODE_DATA_DIR: t.dataDir });
    expect(full.code).toBe(0);
    expect(Buffer.byteLength(full.stdout)).toBeGreaterThan(64 * 1024);

    // One shell pipeline, so node-cli writes into the very pipe head closes.
    const pipeline = `( "$0" "$1" apikey list 2>"$2/stderr"; echo $? >"$2/code" ) | head -n 1`;
    const head = await run('sh', ['-c', pipeline, process.execPath, CLI, dir], { NODE_DATA_DIR: t.dataDir });
    expect(head.code).toBe(0);
    expect(head.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(readFileSync(join(dir, 'code'), 'utf8').trim()).toBe('0');
    const stderr = readFileSync(join(dir, 'stderr'), 'utf8');
    expect(stderr).not.toMatch(/EPIPE|\n\s+at |Error/);
    expect(stderr).toBe('');
  });
});
