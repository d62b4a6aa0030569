/** Databases for tests: a plugin's migrations in memory, and counts read from a running node's database. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Migration } from '../../sdk/index.js';

/** An in-memory database with a plugin's migrations applied: for tests of a store over real SQLite. */
export function migratedDatabase(migrations: readonly Migration[]): Database.Database {
  const db = new Database(':memory:');
  for (const m of migrations) {
    if (typeof m.up === 'string') db.exec(m.up);
    else m.up(db);
  }
  return db;
}

/** The one number a query of a node's database answers (`SELECT COUNT(*) ...`), through a second, read-only connection. */
export function queryCount(dataDir: string, sql: string): number {
  const db = new Database(join(dataDir, 'node.db'), { readonly: true });
  try {
    return Object.values(db.prepare(sql).get() as Record<string, number>)[0]!;
  } finally {
    db.close();
  }
}

/** Resolves once the work a TxRunner transaction queued with afterCommit has run: on the microtask after its commit. */
export const committed = (): Promise<void> => new Promise((resolve) => queueMicrotask(resolve));
