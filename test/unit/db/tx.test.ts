/**
 * The one transaction helper (kernel/db/tx.ts), over real SQLite: work queued with afterCommit runs once the transaction
 * commits and never after a rollback; a savepoint that fails undoes its own writes and drops its own queued work, while
 * the transaction around it commits with the rest.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TxRunner } from '../../../kernel/db/tx.js';
import { committed } from '../../support/db.js';

function setup() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (v TEXT NOT NULL)');
  const runner = new TxRunner(db);
  const insert = (v: string): void => void db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
  const rows = (): string[] => db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[];
  const ran: string[] = [];
  const queue = (v: string): void => runner.afterCommit(() => ran.push(v));
  return { db, runner, insert, rows, ran, queue };
}

describe('TxRunner', () => {
  it('runs the work queued in a transaction once it commits, and none of it after a rollback', async () => {
    const { runner, insert, rows, ran, queue } = setup();
    runner.run(() => {
      insert('a');
      queue('a');
      expect(ran).toEqual([]);
    });
    expect(() =>
      runner.run(() => {
        insert('b');
        queue('b');
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    await committed();
    expect(rows()).toEqual(['a']);
    expect(ran).toEqual(['a']);
  });

  it('a savepoint that fails undoes its writes and drops its queued work; the transaction around it commits', async () => {
    const { db, runner, insert, rows, ran, queue } = setup();
    runner.run(() => {
      insert('before');
      queue('before');
      expect(() =>
        runner.savepoint(() => {
          insert('undone');
          queue('undone');
          throw new Error('the savepoint fails');
        }),
      ).toThrow('the savepoint fails');
      expect(db.inTransaction).toBe(true);
      const kept = runner.savepoint(() => {
        insert('kept');
        queue('kept');
        return 'its result';
      });
      expect(kept).toBe('its result');
      insert('after');
      queue('after');
    });
    await committed();
    expect(rows()).toEqual(['before', 'kept', 'after']);
    expect(ran).toEqual(['before', 'kept', 'after']);
  });

  it('a savepoint with no transaction open is a transaction of its own', async () => {
    const { db, runner, insert, rows, ran, queue } = setup();
    runner.savepoint(() => {
      expect(db.inTransaction).toBe(true);
      insert('alone');
      queue('alone');
    });
    expect(() =>
      runner.savepoint(() => {
        insert('undone');
        queue('undone');
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    await committed();
    expect(rows()).toEqual(['alone']);
    expect(ran).toEqual(['alone']);
  });
});
