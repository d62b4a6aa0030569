/**
 * Backups end to end, as an operator runs them: a real `wallet-node` process and `node-cli backup ...` (human and
 * --json), the backup the daemon writes when SIGTERM stops it, then boot recovery in new `wallet-node` processes:
 * refused with a message and exit code 1, changing nothing, for a non-empty directory or a changed byte; done for a
 * good file into a new directory, where the identity, the payback methods and the API keys are back.
 * Needs dist/ (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignedClient } from '../../kernel/cli/rest-client.js';
import { generateMnemonic } from '../../kernel/crypto/mnemonic.js';
import { CLI, cleanEnv, cliJsonClient, freePort, healthy, kill9, requireBuild, signedCall, spawnDaemon, until, type Daemon } from '../support/daemon.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const dirs: string[] = [];
const daemons: Daemon[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

function nodeCli(dataDir: string, args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: cleanEnv({ NODE_DATA_DIR: dataDir }), cwd: dataDir, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

async function nodeCliJson(dataDir: string, args: string[]): Promise<Run & { body: any }> {
  const run = await nodeCli(dataDir, [...args, '--json']);
  try {
    return { ...run, body: JSON.parse(run.stdout) };
  } catch {
    throw new Error(`node-cli ${args.join(' ')} printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

async function serving(env: Record<string, string>): Promise<{ daemon: Daemon; port: number }> {
  const port = await freePort();
  const daemon = spawnDaemon({ NODE_PORT: String(port), ...env });
  daemons.push(daemon);
  await healthy(daemon, port);
  await until('cli.json', () => (readdirSync(env.NODE_DATA_DIR!).includes('cli.json') ? true : null));
  return { daemon, port };
}

/** A start that must fail: its exit code and output. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const daemon = spawnDaemon({ NODE_PORT: '0', ...env });
  daemons.push(daemon);
  const code = await Promise.race([daemon.exit, new Promise<'running'>((r) => setTimeout(() => r('running'), 20_000))]);
  if (code === 'running') throw new Error(`wallet-node is still running:\n${daemon.output()}`);
  return { code, output: daemon.output() };
}

/** Every file's bytes under `dir` (the lock file aside), to check that a refused start changed nothing. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name !== 'node.lock') out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name)).toString('base64');
  }
  return out;
}

beforeAll(() => requireBuild());
afterEach(async () => {
  for (const d of daemons.splice(0)) await kill9(d);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('backups with wallet-node and node-cli', () => {
  const seedFile = join(tempDir('seed-'), 'seed.txt');
  const dataDir = join(tempDir('backup-e2e-'), 'data');
  const backups = join(dataDir, 'backups');
  let pubkey = '';
  let apiKey: { key_id: string; secret: string };
  let methods: unknown;

  it('node-cli backup: create, list, status, verify, delete, disable, restore; the eleventh in a minute is refused', async () => {
    writeFileSync(seedFile, `${generateMnemonic()}\n`, { mode: 0o600 });
    const { daemon } = await serving({ NODE_DATA_DIR: dataDir, RESTORE_FILE: seedFile });
    const a = signedCall(cliJsonClient(dataDir));
    pubkey = (await a('GET', '/api/v1/wallet/info')).public_key_hash;
    await a('POST', '/api/v1/payback-methods', { type: 'bank_wire', label: 'Main account', currency: 'EUR', fields: { rail: 'sepa', recipient_name: 'Ilse Marrow', iban: 'DE89370400440532013000' } });
    methods = await a('GET', '/api/v1/payback-methods');
    apiKey = await a('POST', '/api/v1/keys', { name: 'monitor', permissions: ['backup:read', 'wallet:read'] });

    // Ten `backup` commands: Document 2 allows a wallet 10 a minute; the eleventh is refused.
    const created = await nodeCliJson(dataDir, ['backup', 'create', '--name', 'e2e']);
    expect(created.code).toBe(0);
    expect(created.body.data).toEqual({ message: expect.any(String), filename: 'e2e.node.enc', size: expect.any(Number), path: join(backups, 'e2e.node.enc') });
    const human = await nodeCli(dataDir, ['backup', 'create', '--name', 'spare']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Backup spare\.node\.enc created \(\d+\.\d\d (KB|MB)\): \//);
    expect(statSync(join(backups, 'spare.node.enc')).mode & 0o777).toBe(0o600);

    const list = await nodeCli(dataDir, ['backup', 'list']);
    expect(list.stdout).toMatch(/Backups: 2/);
    expect(list.stdout).toContain('e2e.node.enc');
    expect(list.stdout).toContain('spare.node.enc');

    const status = await nodeCli(dataDir, ['backup', 'status']);
    expect(status.stdout).toMatch(/daily backups\s+enabled/);
    expect(status.stdout).toContain(backups);

    const verified = await nodeCli(dataDir, ['backup', 'verify', 'e2e.node.enc']);
    expect([verified.code, verified.stdout]).toEqual([0, expect.stringMatching(/^e2e\.node\.enc is valid \(format 3, created /)]);

    const bytes = readFileSync(join(backups, 'e2e.node.enc'));
    bytes[Math.floor(bytes.length / 2)] ^= 0x10;
    writeFileSync(join(backups, 'flipped.node.enc'), bytes);
    const invalid = await nodeCliJson(dataDir, ['backup', 'verify', 'flipped.node.enc']);
    expect(invalid.code).toBe(1);
    expect(invalid.body.error).toMatchObject({ code: 'BACKUP_INVALID', filename: 'flipped.node.enc', version: 3 });

    const traversal = await nodeCliJson(dataDir, ['backup', 'delete', '../settings.json']);
    expect(traversal.code).not.toBe(0);
    expect(traversal.body.error.code).toBe('invalid_filename');
    expect((await nodeCliJson(dataDir, ['backup', 'disable'])).body.data.enabled).toBe(false);
    expect((await a('GET', '/api/v1/backup/status'))).toMatchObject({ enabled: false, next_scheduled: null, backup_count: 3 });

    const unconfirmed = await nodeCliJson(dataDir, ['backup', 'restore', 'e2e.node.enc']);
    expect([unconfirmed.code, unconfirmed.body.error.code]).toEqual([1, 'CONFIRMATION_REQUIRED']);
    const restore = await nodeCliJson(dataDir, ['backup', 'restore', 'e2e.node.enc', '--confirm']);
    expect(restore.code).toBe(1);
    expect(restore.body.error.code).toBe('offline_restore_required');
    expect(restore.stderr).toContain('NODE_BOOT_RECOVERY_BACKUP=e2e.node.enc');
    expect(restore.stderr).toContain('RESTORE_FILE=');
    expect((await nodeCliJson(dataDir, ['backup', 'enable'])).body.error.code).toBe('RATE_LIMITED');

    await a('DELETE', '/api/v1/backup/flipped.node.enc');
    expect((await a('POST', '/api/v1/backup/enable')).enabled).toBe(true);

    // SIGTERM: the daemon writes one more backup before it stops.
    const before = readdirSync(backups).filter((f) => f.startsWith('backup_'));
    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    const after = readdirSync(backups).filter((f) => f.startsWith('backup_'));
    expect(after.length).toBe(before.length + 1);
    expect(after.every((f) => /^backup_\d{8}_\d{6}\.node\.enc$/.test(f))).toBe(true);
  }, 120_000);

  it('boot recovery into a directory that holds a node: exit 1, a clear message, nothing changed', async () => {
    const before = contents(dataDir);
    const run = await failedStart({ NODE_DATA_DIR: dataDir, RESTORE_FILE: seedFile, NODE_BOOT_RECOVERY_BACKUP: 'e2e.node.enc' });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/wallet-node: failed to start: boot recovery \(backups\): the data directory .* is not empty .*Nothing was changed/);
    expect(contents(dataDir)).toEqual(before);
  });

  it('boot recovery of a file with a changed byte: exit 1, the new directory stays empty', async () => {
    const elsewhere = tempDir('flipped-volume-');
    const bytes = readFileSync(join(backups, 'e2e.node.enc'));
    bytes[bytes.length - 20] ^= 0x01;
    writeFileSync(join(elsewhere, 'e2e.node.enc'), bytes);
    const fresh = join(tempDir('recover-bad-'), 'data');
    const run = await failedStart({ NODE_DATA_DIR: fresh, RESTORE_FILE: seedFile, NODE_BOOT_RECOVERY_BACKUP: 'e2e.node.enc', NODE_BACKUP_DIR: elsewhere });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/failed to start: boot recovery \(backups\): e2e\.node\.enc cannot be restored: .*changed or damaged/);
    expect(readdirSync(fresh).filter((n) => n !== 'node.lock')).toEqual([]);
  });

  it('boot recovery of a good file into a new directory: the same node, its payback methods and API keys', async () => {
    const volume = tempDir('backup-volume-');
    copyFileSync(join(backups, 'e2e.node.enc'), join(volume, 'e2e.node.enc'));
    const fresh = join(tempDir('recover-good-'), 'data');
    const { daemon } = await serving({ NODE_DATA_DIR: fresh, RESTORE_FILE: seedFile, NODE_BOOT_RECOVERY_BACKUP: 'e2e.node.enc', NODE_BACKUP_DIR: volume });
    expect(daemon.output()).not.toMatch(/New node/);
    const r = signedCall(cliJsonClient(fresh));
    expect((await r('GET', '/api/v1/wallet/info')).public_key_hash).toBe(pubkey);
    expect(await r('GET', '/api/v1/payback-methods')).toEqual(methods);
    const baseUrl = (JSON.parse(readFileSync(join(fresh, 'cli.json'), 'utf8')) as { base_url: string }).base_url;
    const keyed = signedCall(new SignedClient({ baseUrl, keyId: apiKey.key_id, secret: apiKey.secret }));
    expect((await keyed('GET', '/api/v1/backup/list')).backups.map((b: any) => b.filename)).toEqual(['e2e.node.enc']);
    expect((await nodeCliJson(fresh, ['backup', 'verify', 'e2e.node.enc'])).body.data.valid).toBe(true);
    daemon.proc.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
  }, 60_000);
});
