import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../kernel/db/open.js';

describe('openDatabase', () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'open-db-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('makes a new database with 8 KiB pages, in WAL mode', () => {
    const db = openDatabase(join(dir(), 'node.db'));
    db.exec('CREATE TABLE t (x)');
    expect(db.pragma('page_size', { simple: true })).toBe(8192);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('leaves the page size of an existing database as it is', () => {
    const file = join(dir(), 'node.db');
    const old = new Database(file);
    old.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    expect(old.pragma('page_size', { simple: true })).toBe(4096);
    old.close();
    const db = openDatabase(file);
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    expect(db.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    db.close();
  });

  it('keeps SQLite\'s page cache unless told a size, in KiB', () => {
    const plain = openDatabase(join(dir(), 'plain.db'));
    const small = openDatabase(join(dir(), 'small.db'), { cacheKiB: 256 });
    const driverDefault = new Database(':memory:');
    expect(plain.pragma('cache_size', { simple: true })).toBe(driverDefault.pragma('cache_size', { simple: true }));
    driverDefault.close();
    expect(small.pragma('cache_size', { simple: true })).toBe(-256);
    plain.close();
    small.close();
  });
});
