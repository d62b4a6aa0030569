/**
 * Backups on one node, through the REST API: every route of Document 1 with its scopes, the files (names, modes,
 * directory), file names refused on every route (no path traversal), a changed byte anywhere making a backup
 * invalid, older and foreign formats refused by version, retention (of all, or per kind), enable/disable across a restart, the
 * daily job at the configured minute (the node's clock shifted, not mocked), and the backup before a clean shutdown.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUPS_SERVICE, type BackupsService } from '../../builtin-plugins/backups/api.js';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import type { SignedClient } from '../../kernel/cli/rest-client.js';
import { definePlugin, type Clock } from '../../sdk/index.js';
import { call, ok, waitFor, type Envelope } from '../support/api.js';
import { nodeCli } from './ledger-support.js';
import { clientWithKey, startTestNode, type TestNode } from '../support/node.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const AUTOMATIC = /^backup_\d{8}_\d{6}\.node\.enc$/;

/** A clock that runs with real time from wherever a test puts it. */
function movableClock(): Clock & { set(iso: string): void; shift(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    set: (iso) => void (offset = Date.parse(iso) - Date.now()),
    shift: (ms) => void (offset += ms),
  };
}

/** What archival will do: a plugin that requires the `backups` service and asks it for an archive backup. */
const archiver: BuiltinPlugin = {
  manifest: { name: 'archiver', version: '1.0.0', requires: [BACKUPS_SERVICE], enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      const backups = ctx.services.use<BackupsService>(BACKUPS_SERVICE);
      ctx.routes.plugin({ method: 'POST', path: 'archive', access: { scope: 'backup:write' }, handler: () => backups.archiveBackup() });
    },
  }),
};

const backupDir = (t: TestNode): string => join(t.dataDir, 'backups');
const files = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.node.enc')).sort();
const modeOf = (path: string): number => statSync(path).mode & 0o777;

function flipped(source: string, dir: string, name: string, at: (size: number) => number): string {
  const bytes = readFileSync(source);
  const i = at(bytes.length);
  bytes[i] = bytes[i]! ^ 0x01;
  writeFileSync(join(dir, name), bytes, { mode: 0o600 });
  return name;
}

describe('backup routes, files and scopes', () => {
  let t: TestNode;
  const clock = movableClock();

  beforeAll(async () => {
    clock.set('2031-03-04T05:06:07.000Z');
    t = await startTestNode({ clock, extraBuiltins: [archiver] });
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('a new node: daily backups on, none yet, the next one at midnight UTC, a private directory', async () => {
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toEqual({
      enabled: true,
      backup_count: 0,
      retention_count: 3,
      last_backup: null,
      last_backup_file: null,
      backup_directory: backupDir(t),
      next_scheduled: '2031-03-05T00:00:00.000Z',
    });
    expect(modeOf(backupDir(t))).toBe(0o700);
    expect(await ok(t, 'GET', '/api/v1/backup/list')).toEqual({ backups: [], count: 0 });
  });

  it('create writes backup_YYYYMMDD_HHmmss.node.enc (mode 600) that lists and verifies', async () => {
    const res = await call(t, 'POST', '/api/v1/backup/create');
    expect(res.status).toBe(201);
    const made = res.body.data;
    expect(made).toEqual({ message: expect.stringContaining(made.filename), filename: expect.stringMatching(AUTOMATIC), size: expect.any(Number), path: join(backupDir(t), made.filename) });
    expect(made.filename.startsWith('backup_20310304_0506')).toBe(true);
    expect(statSync(made.path).size).toBe(made.size);
    expect(modeOf(made.path)).toBe(0o600);
    // Encrypted: nothing of the node's database shows through.
    const bytes = readFileSync(made.path);
    for (const plain of ['SQLite format 3', 'CREATE TABLE', 'kernel_state', 'allowedCurrencies']) expect({ plain, found: bytes.includes(Buffer.from(plain)) }).toEqual({ plain, found: false });

    const list = await ok(t, 'GET', '/api/v1/backup/list');
    expect(list).toEqual({ count: 1, backups: [{ filename: made.filename, size: made.size, size_human: expect.stringMatching(/^\d+\.\d\d (KB|MB)$/), created_at: expect.stringMatching(ISO) }] });
    expect(list.backups[0].created_at.startsWith('2031-03-04T05:06')).toBe(true);
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: made.filename })).toEqual({
      filename: made.filename,
      valid: true,
      version: 3,
      created_at: list.backups[0].created_at,
    });
    const status = await ok(t, 'GET', '/api/v1/backup/status');
    expect(status).toMatchObject({ backup_count: 1, last_backup_file: made.filename, last_backup: list.backups[0].created_at });
  });

  it('a named backup: <name>.node.enc; never overwritten; names limited to letters, digits, _ and -', async () => {
    const made = await call(t, 'POST', '/api/v1/backup/create', { name: 'before-upgrade_2' });
    expect(made.status).toBe(201);
    expect(made.body.data.filename).toBe('before-upgrade_2.node.enc');
    const again = await call(t, 'POST', '/api/v1/backup/create', { name: 'before-upgrade_2' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('backup_exists');
    for (const name of ['../escape', 'a/b', 'a b', 'x.y', '', 'ümlaut', 'a'.repeat(65), 'archive_x', 'backup_20240101_000000', 'BACKUP_x', 123]) {
      const res = await call(t, 'POST', '/api/v1/backup/create', { name });
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({ name, status: 400, code: 'invalid_name' });
    }
    expect(files(backupDir(t))).toHaveLength(2);
    expect(existsSync(join(t.dataDir, 'escape.node.enc'))).toBe(false);
  });

  it('one backup at a time: a create while another is written answers 409 backup_in_progress', async () => {
    const names = ['race_a', 'race_b', 'race_c', 'race_d', 'race_e'];
    const answers = await Promise.all(names.map((name) => call(t, 'POST', '/api/v1/backup/create', { name })));
    const made = answers.filter((a) => a.status === 201).map((a) => a.body.data.filename as string);
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status !== 201)) expect([a.status, a.body.error.code]).toEqual([409, 'backup_in_progress']);
    expect(readdirSync(backupDir(t)).filter((n) => n.startsWith('race_')).sort()).toEqual(made.sort());
    expect(readdirSync(backupDir(t)).filter((n) => n.endsWith('.partial'))).toEqual([]);
    for (const f of made) await ok(t, 'DELETE', `/api/v1/backup/${f}`);
  });

  it('no file name reaches outside the backup directory, on any route', async () => {
    const outside = ['node.db', 'settings.json', 'cli.json'];
    const before = outside.map((n) => readFileSync(join(t.dataDir, n)).length);
    // A link inside the directory to the database: never read or followed.
    symlinkSync(join(t.dataDir, 'node.db'), join(backupDir(t), 'linked.node.enc'));
    for (const filename of ['../node.db', '../settings.json', '..%2Fnode.db', '/etc/passwd', 'node.db', '../backups/x.node.enc', '.node.enc', 'x.node.enc/', 'x\0.node.enc', '', ' x.node.enc']) {
      const res = await call(t, 'POST', '/api/v1/backup/verify', { filename });
      expect({ filename, status: res.status, code: res.body.error?.code }).toEqual({ filename, status: 400, code: 'invalid_filename' });
    }
    for (const path of ['..%2Fnode.db', '..%2F..%2Fsettings.json', '%2e%2e%2fcli.json', '%2E%2E%2Fnode.db', 'x%00.node.enc', '..%5Cnode.db']) {
      const res = await call(t, 'DELETE', `/api/v1/backup/${path}`);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 400, code: 'invalid_filename' });
    }
    expect((await call(t, 'DELETE', '/api/v1/backup/nope.node.enc')).body.error.code).toBe('backup_not_found');
    const linked = await call(t, 'POST', '/api/v1/backup/verify', { filename: 'linked.node.enc' });
    expect([linked.status, linked.body.error?.code]).toEqual([404, 'backup_not_found']);
    expect((await call(t, 'DELETE', '/api/v1/backup/linked.node.enc')).status).toBe(404);
    expect((await ok(t, 'GET', '/api/v1/backup/list')).backups.map((b: any) => b.filename)).not.toContain('linked.node.enc');
    rmSync(join(backupDir(t), 'linked.node.enc'));
    expect(outside.map((n) => readFileSync(join(t.dataDir, n)).length)).toEqual(before);
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toMatchObject({ backup_count: 2 });
  });

  it('delete removes one backup', async () => {
    const res = await ok(t, 'DELETE', '/api/v1/backup/before-upgrade_2.node.enc');
    expect(res).toEqual({ message: expect.any(String), filename: 'before-upgrade_2.node.enc' });
    expect(files(backupDir(t))).toHaveLength(1);
  });

  it('restore is always 422 offline_restore_required, whatever the body', async () => {
    const [name] = files(backupDir(t));
    for (const body of [undefined, {}, { filename: name, confirm: true }, { filename: '../node.db', confirm: true }]) {
      const res = await call(t, 'POST', '/api/v1/backup/restore', body);
      expect(res.status).toBe(422);
      expect(res.body.error).toEqual({ code: 'offline_restore_required', message: expect.stringContaining('NODE_BOOT_RECOVERY_BACKUP') });
    }
  });

  it('a changed byte anywhere makes a backup invalid; older and foreign formats are refused by version', async () => {
    const dir = backupDir(t);
    const [name] = files(dir);
    const source = join(dir, name!);
    const size = statSync(source).size;
    const headerEnd = 12 + readFileSync(source).readUInt32BE(8);
    const cases: Record<string, (n: number) => number> = {
      magic: () => 0,
      header_length: () => 10,
      header_start: () => 13,
      header_end: () => headerEnd - 2,
      // Still valid JSON and a valid time: only the authentication of the header can tell.
      created_at_digit: () => readFileSync(source).indexOf('"created_at":"') + '"created_at":"'.length + 3,
      first_chunk: () => headerEnd + 5,
      middle: (n) => Math.floor(n / 2),
      last_tag_byte: (n) => n - 1,
    };
    for (const [label, at] of Object.entries(cases)) {
      const res = await ok(t, 'POST', '/api/v1/backup/verify', { filename: flipped(source, dir, `flip-${label.replace(/_/g, '-')}.node.enc`, at) });
      expect({ label, valid: res.valid, reason: typeof res.reason }).toEqual({ label, valid: false, reason: 'string' });
    }
    const bytes = readFileSync(source);
    writeFileSync(join(dir, 'cut.node.enc'), bytes.subarray(0, size - 10));
    writeFileSync(join(dir, 'chunk-gone.node.enc'), bytes.subarray(0, headerEnd + 100));
    writeFileSync(join(dir, 'grown.node.enc'), Buffer.concat([bytes, Buffer.from('x')]));
    writeFileSync(join(dir, 'empty.node.enc'), '');
    writeFileSync(join(dir, 'random.node.enc'), Buffer.alloc(4096, 7));
    const damaged: Record<string, number | null> = { 'cut.node.enc': 3, 'chunk-gone.node.enc': 3, 'grown.node.enc': 3, 'empty.node.enc': null, 'random.node.enc': null };
    for (const [filename, version] of Object.entries(damaged)) {
      expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename })).toMatchObject({ filename, valid: false, version, reason: expect.any(String) });
    }

    // Format 2: the same layout under an older version number, refused before any decryption.
    const header = JSON.parse(bytes.subarray(12, headerEnd).toString('utf8'));
    const older = Buffer.from(JSON.stringify({ ...header, format: 2 }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(older.length);
    writeFileSync(join(dir, 'older.node.enc'), Buffer.concat([bytes.subarray(0, 8), length, older, bytes.subarray(headerEnd)]));
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: 'older.node.enc' })).toEqual({
      filename: 'older.node.enc',
      valid: false,
      version: 2,
      created_at: null,
      reason: expect.stringMatching(/format version 2 is older than 3/),
    });
    // The reference node's JSON envelope (an encrypted mysqldump).
    writeFileSync(join(dir, 'reference.node.enc'), JSON.stringify({ version: '1.0', created_at: '2025-01-01T00:00:00Z', encrypted: { ciphertext: 'AAAA', version: 2 } }, null, 2));
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: 'reference.node.enc' })).toMatchObject({ valid: false, version: '1.0', reason: expect.stringMatching(/older backup format/) });
    // The untouched original still verifies.
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: name })).toMatchObject({ valid: true });
    for (const f of files(dir)) if (f !== name) rmSync(join(dir, f));
  });

  it('cleanup keeps the most recent 3 backups of all kinds together by default (Document 1)', async () => {
    const dir = backupDir(t);
    for (const f of files(dir)) rmSync(join(dir, f));
    const made: string[] = [];
    for (const name of ['before_upgrade', undefined, undefined, undefined]) {
      clock.shift(1000);
      made.push((await ok(t, 'POST', '/api/v1/backup/create', name ? { name } : undefined)).filename);
    }
    // The oldest is a named backup: it counts like any other.
    const cleanup = await ok(t, 'POST', '/api/v1/backup/cleanup');
    expect(cleanup).toEqual({ message: expect.any(String), deleted_count: 1, deleted_files: ['before_upgrade.node.enc'] });
    expect(files(dir)).toEqual(made.slice(1).sort());
    // An archive backup prunes across kinds as well.
    clock.shift(1000);
    const archive = (await ok(t, 'POST', '/api/v1/plugins/archiver/archive')).filename;
    expect(files(dir)).toEqual([...made.slice(2), archive].sort());
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toMatchObject({ backup_count: 3, retention_count: 3 });
  });

  it('with backup_retention_scope kind, retention keeps exactly the newest N of each kind: daily, archive, named', async () => {
    await ok(t, 'PUT', '/api/v1/system/settings', { backup_retention_count: 2, backup_retention_scope: 'kind' });
    const dir = backupDir(t);
    for (const f of files(dir)) rmSync(join(dir, f));
    // Archive backups apply retention themselves, as the daily ones do.
    const archives: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.shift(1000);
      archives.push((await ok(t, 'POST', '/api/v1/plugins/archiver/archive')).filename);
    }
    expect(archives.every((f) => /^archive_backup_\d{8}_\d{6}\.node\.enc$/.test(f))).toBe(true);
    expect(files(dir)).toEqual(archives.slice(1).sort());

    const daily: string[] = [];
    for (let i = 0; i < 4; i++) {
      clock.shift(1000);
      daily.push((await ok(t, 'POST', '/api/v1/backup/create')).filename);
    }
    const named: string[] = [];
    for (const name of ['first', 'second', 'third']) {
      clock.shift(1000);
      named.push((await ok(t, 'POST', '/api/v1/backup/create', { name })).filename);
    }
    expect(files(dir)).toHaveLength(2 + 4 + 3);
    const cleanup = await ok(t, 'POST', '/api/v1/backup/cleanup');
    expect(cleanup).toEqual({ message: expect.any(String), deleted_count: 3, deleted_files: expect.any(Array) });
    expect([...cleanup.deleted_files].sort()).toEqual([daily[0], daily[1], named[0]].sort());
    expect(files(dir)).toEqual([...archives.slice(1), ...daily.slice(2), ...named.slice(1)].sort());
    expect((await ok(t, 'POST', '/api/v1/backup/cleanup')).deleted_count).toBe(0);
    await ok(t, 'PUT', '/api/v1/system/settings', { backup_retention_count: 3, backup_retention_scope: 'all' });
  });

  it('disable and enable persist across a restart; next_scheduled is null while disabled', async () => {
    expect(await ok(t, 'POST', '/api/v1/backup/disable')).toEqual({ message: expect.any(String), enabled: false });
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toMatchObject({ enabled: false, next_scheduled: null });
    expect((await ok(t, 'GET', '/api/v1/system/settings')).settings.auto_backup_enabled).toBe(false);
    const before = files(backupDir(t));
    await t.restart();
    // Disabled: no backup was taken at that shutdown.
    expect(files(backupDir(t))).toEqual(before);
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toMatchObject({ enabled: false, next_scheduled: null });
    expect(await ok(t, 'POST', '/api/v1/backup/enable')).toEqual({ message: expect.any(String), enabled: true });
    const status = await ok(t, 'GET', '/api/v1/backup/status');
    expect(status.enabled).toBe(true);
    expect(Date.parse(status.next_scheduled)).toBeGreaterThan(clock.now());
    expect(status.next_scheduled.endsWith('T00:00:00.000Z')).toBe(true);
  });

  describe('scopes: backup:read for status, list and verify; backup:write for the rest; admin for all', () => {
    const key = async (permissions: string[]): Promise<SignedClient> => {
      const res = await t.admin.post<Envelope>('/api/v1/keys', { name: `k-${permissions.join('-').replace(/[^a-z]/g, '')}`, permissions });
      expect(res.status).toBe(201);
      return clientWithKey(t.node, res.body.data.key_id, res.body.data.secret);
    };
    const routes = (name: string) => ({
      read: [
        ['GET', '/api/v1/backup/status', undefined],
        ['GET', '/api/v1/backup/list', undefined],
        ['POST', '/api/v1/backup/verify', { filename: name }],
      ] as const,
      write: [
        ['POST', '/api/v1/backup/create', { name: `scoped-${Date.now()}` }],
        ['POST', '/api/v1/backup/enable', undefined],
        ['POST', '/api/v1/backup/disable', undefined],
        ['POST', '/api/v1/backup/cleanup', undefined],
        ['POST', '/api/v1/backup/restore', undefined],
        ['DELETE', '/api/v1/backup/missing.node.enc', undefined],
      ] as const,
    });
    const statusOf = async (c: SignedClient, method: string, path: string, body: unknown): Promise<number> =>
      (await c.request(method, path, body === undefined ? {} : { body })).status;

    it('each key reaches exactly the routes its scopes allow', async () => {
      const [name] = files(backupDir(t));
      const reader = await key(['backup:read']);
      const writer = await key(['backup:write']);
      const both = await key(['backup:*']);
      const other = await key(['wallet:read', 'system:read']);
      const { read, write } = routes(name!);
      for (const [method, path, body] of read) {
        expect({ path, reader: await statusOf(reader, method, path, body) }).toEqual({ path, reader: 200 });
        expect({ path, writer: await statusOf(writer, method, path, body) }).toEqual({ path, writer: 403 });
        expect({ path, both: await statusOf(both, method, path, body) }).toEqual({ path, both: 200 });
        expect({ path, other: await statusOf(other, method, path, body) }).toEqual({ path, other: 403 });
      }
      const allowed: Record<string, number> = { create: 201, enable: 200, disable: 200, cleanup: 200, restore: 422, 'missing.node.enc': 404 };
      for (const [method, path, body] of write) {
        const expected = allowed[path.split('/').pop()!]!;
        expect({ path, reader: await statusOf(reader, method, path, body) }).toEqual({ path, reader: 403 });
        expect({ path, other: await statusOf(other, method, path, body) }).toEqual({ path, other: 403 });
        const fresh = body && 'name' in body ? { name: `${body.name}w` } : body;
        expect({ path, writer: await statusOf(writer, method, path, fresh) }).toEqual({ path, writer: expected });
        const again = body && 'name' in body ? { name: `${body.name}b` } : body;
        expect({ path, both: await statusOf(both, method, path, again) }).toEqual({ path, both: expected });
      }
      const denied = await reader.post<Envelope>('/api/v1/backup/create', {});
      expect(denied.body.error).toMatchObject({ code: 'permission_denied' });
      await ok(t, 'POST', '/api/v1/backup/enable');
    });
  });
});

describe('the backup directory is configurable (NODE_BACKUP_DIR)', () => {
  let t: TestNode;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'backup-volume-'));
    t = await startTestNode({ env: { NODE_BACKUP_DIR: join(root, 'node-a', 'backups') } });
  });
  afterAll(async () => {
    await t?.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes there, mode 700, and nothing under the data directory', async () => {
    const dir = join(root, 'node-a', 'backups');
    expect((await ok(t, 'GET', '/api/v1/backup/status')).backup_directory).toBe(dir);
    const made = await ok(t, 'POST', '/api/v1/backup/create');
    expect(made.path).toBe(join(dir, made.filename));
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(made.path)).toBe(0o600);
    expect(existsSync(join(t.dataDir, 'backups'))).toBe(false);
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: made.filename })).toMatchObject({ valid: true });
  });
});

describe('the daily backup runs at backupCronHour:backupCronMinute (UTC, on the node clock)', () => {
  let t: TestNode;
  const clock = movableClock();
  afterAll(async () => {
    await t?.destroy();
  });

  it('runs at 02:30 once the clock gets there, applies retention, and schedules the next day', async () => {
    t = await startTestNode({ clock });
    await ok(t, 'PUT', '/api/v1/system/settings', { backup_retention_count: 1 });
    // Two old daily backups, one of which retention removes after the run.
    clock.set('2030-01-14T10:00:00.000Z');
    await ok(t, 'POST', '/api/v1/backup/create');
    clock.set('2030-01-15T02:29:57.000Z');
    await ok(t, 'PUT', '/api/v1/system/settings', { backup_cron_hour: 2, backup_cron_minute: 30 });
    expect((await ok(t, 'GET', '/api/v1/backup/status')).next_scheduled).toBe('2030-01-15T02:30:00.000Z');
    expect(files(backupDir(t))).toEqual(['backup_20300114_100000.node.enc']);

    const list = await waitFor(
      () => ok(t, 'GET', '/api/v1/backup/list'),
      (l) => l.backups.some((b: any) => b.filename.startsWith('backup_20300115_')),
      'the daily backup',
      15_000,
    );
    expect(list.backups.map((b: any) => b.filename)).toContain('backup_20300115_023000.node.enc');
    await waitFor(() => Promise.resolve(files(backupDir(t))), (f) => f.length === 1, 'retention after the daily backup');
    expect(files(backupDir(t))).toEqual(['backup_20300115_023000.node.enc']);
    expect(await ok(t, 'GET', '/api/v1/backup/status')).toMatchObject({ next_scheduled: '2030-01-16T02:30:00.000Z', last_backup_file: 'backup_20300115_023000.node.enc' });
    expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: 'backup_20300115_023000.node.enc' })).toMatchObject({ valid: true });
  });
});

describe('a backup before a clean shutdown', () => {
  it('is written when daily backups are enabled, not at an in-process restart, and verifies afterwards', async () => {
    const t = await startTestNode();
    try {
      expect(files(backupDir(t))).toEqual([]);
      await t.node.restart();
      expect(files(backupDir(t))).toEqual([]);
      await t.stop();
      const written = files(backupDir(t));
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(AUTOMATIC);
      await t.restart();
      expect(await ok(t, 'POST', '/api/v1/backup/verify', { filename: written[0] })).toMatchObject({ valid: true, version: 3 });
    } finally {
      await t.destroy();
    }
  });
});

describe('node-cli backup, in process (--json is the API data)', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode();
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('create, delete, disable, enable, cleanup', async () => {
    const made = await nodeCli(t, ['backup', 'create', '--name', 'cli']);
    expect(made).toMatchObject({ code: 0, body: { success: true, data: { filename: 'cli.node.enc', path: join(backupDir(t), 'cli.node.enc') } } });
    expect((await nodeCli(t, ['backup', 'disable'])).body.data).toEqual({ message: expect.any(String), enabled: false });
    expect((await nodeCli(t, ['backup', 'enable'])).body.data).toEqual({ message: expect.stringMatching(/next at \d{4}-/), enabled: true });
    expect((await nodeCli(t, ['backup', 'cleanup'])).body.data).toEqual({ message: expect.any(String), deleted_count: 0, deleted_files: [] });
    expect((await nodeCli(t, ['backup', 'delete', 'cli.node.enc'])).body.data).toEqual({ message: expect.any(String), filename: 'cli.node.enc' });
    const gone = await nodeCli(t, ['backup', 'delete', 'cli.node.enc']);
    expect([gone.code, gone.body.error.code]).toEqual([1, 'backup_not_found']);
  });
});
