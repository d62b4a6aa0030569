/**
 * One key order over a table and its archive (sdk/archive-keys.ts), over real SQLite: a row inserted after the newest
 * row moved to the archive takes a key after it, and the repair of a table written before moves the rows that took an
 * archived key again after the archive, in their order, leaving older live rows where they were.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { keyAfterArchive, moveLiveAfterArchive } from '../../../sdk/archive-keys.js';

function tables() {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE t_archive (id INTEGER NOT NULL, name TEXT NOT NULL);
    CREATE UNIQUE INDEX t_archive_id ON t_archive (id);`);
  const archive = (...ids: number[]) => {
    for (const id of ids) {
      db.prepare('INSERT INTO t_archive SELECT * FROM t WHERE id = ?').run(id);
      db.prepare('DELETE FROM t WHERE id = ?').run(id);
    }
  };
  const rows = () => db.prepare(`SELECT id, name FROM t UNION ALL SELECT id, name FROM t_archive ORDER BY id`).all() as { id: number; name: string }[];
  return { db, archive, rows };
}

describe('one key order over a table and its archive', () => {
  it('a new row takes the key after every row, live or archived', () => {
    const { db, archive, rows } = tables();
    const insert = db.prepare(`INSERT INTO t (id, name) VALUES (${keyAfterArchive('t', 't_archive', 'id')}, ?)`);
    insert.run('a');
    insert.run('b');
    archive(1, 2);
    insert.run('c');
    archive(3);
    insert.run('d');
    expect(rows()).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }, { id: 4, name: 'd' }]);
  });

  it('the repair moves the rows that took archived keys again after the archive, in their order', () => {
    const { db, archive, rows } = tables();
    // Written the way SQLite keys rows by default: the key after the newest live row.
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    for (const name of ['old', 'a', 'b', 'c']) insert.run(name);
    archive(2, 3, 4);
    for (const name of ['d', 'e', 'f']) insert.run(name);
    // 'old' kept its key 1; d, e, f took 2, 3, 4, which archived rows hold.
    expect(db.prepare('SELECT id FROM t ORDER BY id').pluck().all()).toEqual([1, 2, 3, 4]);

    expect(moveLiveAfterArchive(db, 't', 't_archive', 'id')).toBe(3);
    expect(rows().map((r) => `${r.id}:${r.name}`)).toEqual(['1:old', '2:a', '3:b', '4:c', '5:d', '6:e', '7:f']);
    // Nothing left to repair, and archival takes the moved rows.
    expect(moveLiveAfterArchive(db, 't', 't_archive', 'id')).toBe(0);
    archive(5, 6, 7);
    expect(rows()).toHaveLength(7);
  });
});
