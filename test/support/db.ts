/** An in-memory database with a plugin's migrations applied: for tests of a store over real SQLite. */
import Database from 'better-sqlite3';
import type { Migration } from '../../sdk/index.js';

export function migratedDatabase(migrations: readonly Migration[]): Database.Database {
  const db = new Database(':memory:');
  for (const m of migrations) {
    if (typeof m.up === 'string') db.exec(m.up);
    else m.up(db);
  }
  return db;
}
