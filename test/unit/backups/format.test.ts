/**
 * The backup file format on its own (format.ts): files spanning several chunks come back byte for byte; chunks
 * swapped, dropped or cut at a chunk boundary are refused; and the pure rules around it (names, retention groups,
 * sizes, the daily schedule).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackupFormatError, openBackup, readHeader, sealBackup } from '../../../builtin-plugins/backups/format.js';
import { automaticFileName, groupOf, humanSize, isBackupFileName, namedFileProblem } from '../../../builtin-plugins/backups/names.js';
import { nextDailyRun } from '../../../builtin-plugins/backups/settings.js';

const CHUNK = 1 << 20;
const NAMES = ['node.db', 'settings.json', 'plugins-state.json'];
const root = mkdtempSync(join(tmpdir(), 'backup-format-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const dir = (): string => mkdtempSync(join(root, `d${counter++}-`));
const key = randomBytes(32);
const node = 'ab'.repeat(32);

async function sealed(contents: Record<string, Buffer>): Promise<string> {
  const src = dir();
  const files = Object.entries(contents).map(([name, bytes]) => {
    writeFileSync(join(src, name), bytes);
    return { name, path: join(src, name), size: bytes.length };
  });
  const out = join(dir(), 'b.node.enc');
  const fh = await open(out, 'wx');
  const written = await sealBackup(fh, files, key, { createdAt: '2030-01-02T03:04:05.000Z', node });
  await fh.close();
  expect(statSync(out).size).toBe(written);
  return out;
}

async function opened(path: string, withKey = key): Promise<Record<string, Buffer>> {
  const fh = await open(path, 'r');
  try {
    const target = dir();
    const files = await openBackup(fh, await readHeader(fh), withKey, target, NAMES);
    return Object.fromEntries(files.map((f) => [f.name, readFileSync(f.path)]));
  } finally {
    await fh.close();
  }
}

describe('the backup file format', () => {
  it('round-trips files that span chunk boundaries, an empty file among them', async () => {
    // 3 MiB and a bit: four chunks; the frame headers shift every boundary off the files' own.
    const contents = { 'node.db': randomBytes(3 * CHUNK + 17), 'settings.json': Buffer.from('{"a":1}'), 'plugins-state.json': Buffer.alloc(0) };
    const back = await opened(await sealed(contents));
    expect(Object.keys(back).sort()).toEqual(Object.keys(contents).sort());
    for (const [name, bytes] of Object.entries(contents)) expect(back[name]!.equals(bytes)).toBe(true);
  });

  it('round-trips a plaintext of exactly one chunk (the last chunk full)', async () => {
    const frame = 1 + 'node.db'.length + 8;
    const contents = { 'node.db': randomBytes(CHUNK - frame) };
    expect((await opened(await sealed(contents)))['node.db']!.equals(contents['node.db'])).toBe(true);
  });

  it('refuses swapped chunks, a dropped last chunk, another key, and an unknown file inside', async () => {
    const path = await sealed({ 'node.db': randomBytes(2 * CHUNK + 5) });
    const bytes = readFileSync(path);
    const start = 12 + bytes.readUInt32BE(8);
    const block = CHUNK + 16;
    const first = bytes.subarray(start, start + block);
    const second = bytes.subarray(start + block, start + 2 * block);
    const swapped = Buffer.concat([bytes.subarray(0, start), second, first, bytes.subarray(start + 2 * block)]);
    const dropped = bytes.subarray(0, start + 2 * block);
    for (const [label, variant] of [['swapped', swapped], ['dropped', dropped]] as const) {
      const file = join(dir(), `${label}.node.enc`);
      writeFileSync(file, variant);
      await expect(opened(file), label).rejects.toBeInstanceOf(BackupFormatError);
    }
    await expect(opened(path, randomBytes(32))).rejects.toThrow(/does not decrypt/);
    await expect(opened(await sealed({ 'master.key': randomBytes(32) }))).rejects.toThrow(/unexpected file/);
  });
});

describe('names, groups, sizes and the schedule', () => {
  it('names automatic backups after the UTC time, to the second', () => {
    expect(automaticFileName('backup', Date.parse('2030-01-02T03:04:05.678Z'))).toBe('backup_20300102_030405.node.enc');
    expect(automaticFileName('archive', Date.parse('2030-12-31T23:59:59Z'))).toBe('archive_backup_20301231_235959.node.enc');
  });

  it('accepts only bare names of letters, digits, _ and -; reserves the automatic prefixes', () => {
    for (const ok of ['a', 'before-upgrade_2', 'X'.repeat(64)]) expect(namedFileProblem(ok)).toBeNull();
    for (const bad of ['', 'a.b', 'a/b', '..', 'X'.repeat(65), 'backup_1', 'Archive_x']) expect(namedFileProblem(bad)).not.toBeNull();
    for (const file of ['backup_20300102_030405.node.enc', 'x.node.enc']) expect(isBackupFileName(file)).toBe(true);
    for (const file of ['../x.node.enc', 'x.node.enc.tmp', '.node.enc', 'x.node.enc/', 'a.b.node.enc']) expect(isBackupFileName(file)).toBe(false);
    expect([groupOf('backup_20300102_030405.node.enc'), groupOf('archive_backup_20300102_030405.node.enc'), groupOf('mine.node.enc')]).toEqual(['backup', 'archive', 'named']);
  });

  it('shows sizes in powers of 1024', () => {
    expect([humanSize(0), humanSize(1023), humanSize(1536), humanSize(5 * 1024 ** 3)]).toEqual(['0 B', '1023 B', '1.50 KB', '5.00 GB']);
  });

  it('runs daily at hour:minute UTC: later today, else tomorrow, never now', () => {
    const at = (iso: string): string => new Date(nextDailyRun(Date.parse(iso), 2, 30)).toISOString();
    expect(at('2030-01-15T01:00:00.000Z')).toBe('2030-01-15T02:30:00.000Z');
    expect(at('2030-01-15T02:29:59.999Z')).toBe('2030-01-15T02:30:00.000Z');
    expect(at('2030-01-15T02:30:00.000Z')).toBe('2030-01-16T02:30:00.000Z');
    expect(at('2030-12-31T23:00:00.000Z')).toBe('2031-01-01T02:30:00.000Z');
  });
});
