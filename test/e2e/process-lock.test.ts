/**
 * One process per data directory, and what a real `wallet-node` process leaves readable: a second start on a held
 * directory fails at once and changes nothing (also while 200 payments run); `kill -9` leaves no stale lock; the
 * RESTORE phrase is gone from /proc/<pid>/environ; every file the node creates is owner-only whatever the umask.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { cliJsonClient, connectToTestNode, freePort, healthy, kill9, requireBuild, ROOT, signedCall, spawnDaemon, until, type Daemon } from '../support/daemon.js';
import { startTestNode, type TestNode } from '../support/node.js';

type Env = { success: boolean; data: any; error?: any };

const IN_USE = /data directory .* is in use by another running wallet-node/;

const dirs: string[] = [];
const daemons: Daemon[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const daemon = (...args: Parameters<typeof spawnDaemon>): Daemon => {
  const d = spawnDaemon(...args);
  daemons.push(d);
  return d;
};

/** A wallet-node on `dataDir` and `port`, once it serves and has written cli.json. */
async function serving(dataDir: string, port: number, env: Record<string, string> = {}, options: { shell?: string } = {}): Promise<Daemon> {
  const d = daemon({ NODE_DATA_DIR: dataDir, NODE_PORT: String(port), ...env }, options);
  await healthy(d, port);
  await until('cli.json', () => (readdirSync(dataDir).includes('cli.json') ? true : null));
  return d;
}

/** Each file's bytes and mtime, so "changed nothing" can be checked byte for byte. */
function snapshot(dir: string, skip: RegExp): Map<string, { bytes: string; mtimeMs: number }> {
  const out = new Map<string, { bytes: string; mtimeMs: number }>();
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path, name);
      else if (!skip.test(name)) out.set(name, { bytes: readFileSync(path).toString('base64'), mtimeMs: statSync(path).mtimeMs });
      else out.set(name, { bytes: '(changes while the node runs)', mtimeMs: 0 });
    }
  };
  walk(dir, '');
  return out;
}

/** Starts a second wallet-node on `dataDir` and returns its exit code, output and how long it took. */
async function secondStart(dataDir: string): Promise<{ code: number | null; ms: number; output: string }> {
  const started = Date.now();
  const second = daemon({ NODE_DATA_DIR: dataDir, NODE_PORT: '0' });
  const code = await Promise.race([second.exit, new Promise<'running'>((r) => setTimeout(() => r('running'), 10_000))]);
  if (code === 'running') throw new Error(`the second wallet-node is still running:\n${second.output()}`);
  return { code, ms: Date.now() - started, output: second.output() };
}

beforeAll(() => requireBuild());

afterEach(async () => {
  for (const d of daemons.splice(0)) await kill9(d);
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('one wallet-node per data directory', () => {
  it('a second start fails within 2 s and changes nothing; the holder serves on; after kill -9 the next start succeeds', async () => {
    const dataDir = tempDir('lock-e2e-');
    const port = await freePort();
    const first = await serving(dataDir, port);
    // The first start tells the operator how to read the seed phrase, and shows no word of it.
    const seedCommand = `wallet-node seed --data-dir ${dataDir}`;
    await until('the banner', () => (first.output().includes(seedCommand) ? true : null));
    expect(first.output()).toMatch(/New node: write its 24-word seed phrase down now/);
    const client = cliJsonClient(dataDir);
    const pubkey = (await client.get<Env>('/api/v1/wallet/info')).body.data.public_key_hash;
    const before = snapshot(dataDir, /^node\.(db-wal|db-shm|db|log)$/);
    const cliJsonBefore = readFileSync(join(dataDir, 'cli.json'));

    const second = await secondStart(dataDir);
    expect(second.code).not.toBe(0);
    expect(second.ms).toBeLessThan(2000);
    expect(second.output).toMatch(IN_USE);
    expect(readFileSync(join(dataDir, 'cli.json')).equals(cliJsonBefore)).toBe(true);
    expect(snapshot(dataDir, /^node\.(db-wal|db-shm|db|log)$/)).toEqual(before);

    // node-cli's credentials still reach the holder.
    const status = await client.get<Env>('/api/v1/system/status');
    expect(status.status).toBe(200);

    await kill9(first);
    const next = await serving(dataDir, port);
    await until('the banner', () => (next.output().includes(seedCommand) ? true : null));
    expect(next.output()).not.toMatch(/New node/);
    expect((await cliJsonClient(dataDir).get<Env>('/api/v1/wallet/info')).body.data.public_key_hash).toBe(pubkey);
    next.proc.kill('SIGTERM');
    expect(await next.exit).toBe(0);
  });

  describe('while 200 payments run', () => {
    let B: TestNode;
    afterAll(async () => {
      await B?.destroy();
    });

    it("a second start on the payer's directory is refused and both chains stay one valid line", async () => {
      B = await startTestNode();
      const dataDir = tempDir('lock-pay-e2e-');
      const port = await freePort();
      await serving(dataDir, port);
      const A = cliJsonClient(dataDir);
      const a = signedCall(A);
      // 200 sends and the polling of their outcome would outrun the admin key's 1000 requests a minute.
      await a('PUT', '/api/v1/system/settings', { rate_limit_enabled: false });
      await connectToTestNode(a, `http://127.0.0.1:${port}`, B);
      const cliJsonBefore = readFileSync(join(dataDir, 'cli.json'));

      const txids: string[] = [];
      let second: Promise<{ code: number | null; ms: number; output: string }> | null = null;
      for (let i = 0; i < 200; i++) {
        if (i === 20) second = secondStart(dataDir);
        txids.push((await a('POST', '/api/v1/wallet/send', { address: 'Bob', amount: '1', currency: 'VWL' })).txid);
      }
      const refused = await second!;
      expect(refused.code).not.toBe(0);
      expect(refused.ms).toBeLessThan(2000);
      expect(refused.output).toMatch(IN_USE);
      expect(readFileSync(join(dataDir, 'cli.json')).equals(cliJsonBefore)).toBe(true);

      /** All 200 completed on one side, polled a page at a time; a timeout says where the payments stand. */
      const allCompleted = async (who: string, list: (q: Record<string, number>) => Promise<any>): Promise<any[]> => {
        let byStatus: Record<string, number> = {};
        const probe = async (): Promise<any[] | null> => {
          const rows: any[] = [];
          for (let offset = 0; ; offset += 100) {
            const page = await list({ limit: 100, offset });
            rows.push(...page.transactions);
            if (offset + 100 >= page.pagination.total) break;
          }
          byStatus = {};
          for (const t of rows) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
          const done = rows.filter((t) => t.status === 'completed');
          return done.length === 200 ? done : null;
        };
        return until(`every payment completed on ${who}`, probe, 60_000).catch((err: Error) => {
          throw new Error(`${err.message}: ${JSON.stringify(byStatus)}`);
        });
      };
      const onA = await allCompleted('Alice', (q) => a('GET', '/api/v1/wallet/transactions', undefined, q));
      const onB = await allCompleted('Bob', async (q) => (await B.admin.get<Env>('/api/v1/wallet/transactions', { query: q })).body.data);
      expect(new Set(onA.map((t) => t.txid))).toEqual(new Set(txids));
      expect(new Set(onB.map((t) => t.txid))).toEqual(new Set(txids));
      // One line per side, and the same line: each payment follows exactly one other, one starts the chain.
      for (const rows of [onA, onB]) {
        const byTxid = new Map(rows.map((t) => [t.txid as string, t.previous_txid as string | null]));
        const prevs = [...byTxid.values()];
        expect(prevs.filter((p) => p === null)).toHaveLength(1);
        expect(new Set(prevs).size).toBe(prevs.length);
        for (const p of prevs) if (p !== null) expect(byTxid.has(p)).toBe(true);
      }
      expect(new Map(onA.map((t) => [t.txid, t.previous_txid]))).toEqual(new Map(onB.map((t) => [t.txid, t.previous_txid])));
    }, 120_000);
  });
});

describe('what a running wallet-node exposes', () => {
  it('RESTORE is gone from /proc/<pid>/environ of the node, which has the restored identity', async () => {
    const words = generateMnemonic();
    const file = join(tempDir('restore-file-'), 'seed.txt');
    writeFileSync(file, `${words}\n`, { mode: 0o600 });
    const viaFile = await startTestNode({ env: { RESTORE_FILE: file } });
    try {
      const dataDir = tempDir('restore-env-e2e-');
      const port = await freePort();
      const node = await serving(dataDir, port, { RESTORE: words });
      const environ = readFileSync(`/proc/${node.proc.pid}/environ`, 'latin1');
      expect(environ).toContain(`NODE_DATA_DIR=${dataDir}`); // it is the node's environment that was read
      expect(environ.split('\0').some((e) => e.startsWith('RESTORE='))).toBe(false);
      const list = words.split(' ');
      for (let i = 0; i + 3 <= list.length; i++) expect(environ).not.toContain(list.slice(i, i + 3).join(' '));
      expect(node.output()).not.toContain(list.slice(0, 3).join(' '));

      const info = (await cliJsonClient(dataDir).get<Env>('/api/v1/wallet/info')).body.data;
      expect(info.public_key_hash).toBe(viaFile.node.identity.pubkeyHash);
    } finally {
      await viaFile.destroy();
    }
  });

  it('every file and directory it creates is owner-only under umask 000', async () => {
    const dataDir = join(tempDir('umask-e2e-'), 'data');
    const port = await freePort();
    const node = await serving(dataDir, port, {}, { shell: 'umask 000;' });
    const client = cliJsonClient(dataDir);
    expect((await client.put<Env>('/api/v1/system/settings', { max_output: 7 })).status).toBe(200);
    expect((await client.post<Env>('/api/v1/plugins/wallet/disable')).status).toBeLessThan(500);

    const modes = new Map<string, number>();
    const walk = (d: string, rel: string): void => {
      modes.set(rel || '.', statSync(d).mode & 0o777);
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const name = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(join(d, e.name), name);
        else modes.set(name, statSync(join(d, e.name)).mode & 0o777);
      }
    };
    walk(dataDir, '');
    for (const [name, mode] of modes) expect(`${name} ${(mode & 0o077).toString(8)}`).toBe(`${name} 0`);
    for (const name of ['node.db', 'node.db-wal', 'node.db-shm', 'node.lock', 'cli.json', 'master.key', 'identity.enc', 'node.log', 'settings.json']) {
      expect(modes.has(name), name).toBe(true);
    }
    node.proc.kill('SIGTERM');
    expect(await node.exit).toBe(0);
  });

  it('generated data directories and debug reports are git-ignored', () => {
    const ignored = (path: string): boolean => {
      try {
        execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
        return true;
      } catch {
        return false;
      }
    };
    for (const path of ['data/node.db', 'data-bob/node.db', 'data2/cli.json', 'debug-report-20260101T120000Z.json', 'debug-report-20260101T120000Z-2.json']) {
      expect(ignored(path), path).toBe(true);
    }
    expect(ignored('app/wallet-node.ts')).toBe(false);
  });
});
