import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * WAL lets readers run beside the one writer; synchronous=NORMAL is durable across process crashes in WAL
 * mode (only an OS crash can lose the last commits), which is what "a crash loses no data" needs here.
 */
export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
