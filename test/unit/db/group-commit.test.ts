/**
 * Group commits on a disk that refuses writes (issue 28): the batch is kept whole and in order until it commits, what
 * waits on its commit waits, and a write that fails for any other reason is dropped alone. The disk is made to refuse
 * with the node's storage fault seam; flushes are called by hand (the retry timer is the same call).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { injectStorageFaults, storageFaultSeam } from '../../../kernel/db/fault-seam.js';
import { GroupCommit } from '../../../kernel/db/group-commit.js';
import { StorageHealth } from '../../../kernel/db/storage-health.js';
import type { Logger } from '../../../sdk/index.js';

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('GroupCommit on a failing disk', () => {
  let dir: string;
  let flag: string;
  let db: Database.Database;
  let storage: StorageHealth;
  let writes: GroupCommit;
  let insert: Database.Statement;
  const rows = (): number[] => (db.prepare('SELECT n FROM t ORDER BY rowid').all() as { n: number }[]).map((r) => r.n);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    flag = join(dir, 'fault');
    db = new Database(':memory:');
    injectStorageFaults(db, flag);
    db.exec('CREATE TABLE t (n INTEGER NOT NULL CHECK (n >= 0))');
    insert = db.prepare('INSERT INTO t (n) VALUES (?)');
    storage = new StorageHealth(() => void insert.run(0), silent);
    writes = new GroupCommit(db, { storage, log: silent });
  });
  afterEach(() => {
    storage.stop();
    db.close();
    storageFaultSeam.flagFile = null;
    rmSync(dir, { recursive: true, force: true });
  });

  for (const fault of ['full', 'readonly', 'eio']) {
    it(`keeps a batch the disk refuses (${fault}) and commits it, in order, once the disk takes writes`, () => {
      const committed: number[] = [];
      for (const n of [1, 2]) writes.add(() => void insert.run(n), () => committed.push(n));
      writeFileSync(flag, fault);
      expect(() => writes.flush()).not.toThrow();
      expect(rows()).toEqual([]);
      expect(committed).toEqual([]);
      expect(storage.report()).toMatchObject({ status: 'degraded', reason: { full: 'disk full', readonly: 'read-only file system', eio: 'I/O error' }[fault] });

      writes.add(() => void insert.run(3), () => committed.push(3));
      expect(() => writes.flush()).not.toThrow();
      expect(rows()).toEqual([]);

      rmSync(flag);
      writes.flush();
      expect(rows()).toEqual([1, 2, 3]);
      expect(committed).toEqual([1, 2, 3]);
      expect(storage.report()).toEqual({ status: 'ok' });
    });
  }

  it('drops only the write that fails for another reason (a bug), and commits the others', () => {
    const committed: number[] = [];
    for (const n of [1, -1, 2]) writes.add(() => void insert.run(n), () => committed.push(n));
    expect(() => writes.flush()).not.toThrow();
    expect(rows()).toEqual([1, 2]);
    expect(committed).toEqual([1, 2]);
    expect(storage.report()).toEqual({ status: 'ok' });
  });

  it('writing one by one, stops at a write the disk refuses and keeps it and those after it', () => {
    const committed: number[] = [];
    writes.add(() => void insert.run(1), () => committed.push(1));
    writes.add(() => {
      insert.run(-1);
    });
    let filled = false;
    writes.add(() => {
      // The disk fills between the first writes and this one (once).
      if (!filled) writeFileSync(flag, 'full');
      filled = true;
      insert.run(2);
    }, () => committed.push(2));
    writes.flush();
    expect(rows()).toEqual([1]);
    expect(committed).toEqual([1]);
    expect(storage.degraded).toBe(true);
    rmSync(flag);
    writes.flush();
    expect(rows()).toEqual([1, 2]);
    expect(committed).toEqual([1, 2]);
  });
});
