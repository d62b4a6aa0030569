import { chmodSync, closeSync, fchmodSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const PRIVATE_FILE_MODE = 0o600;
const PAGE_SIZE = 8192;

/**
 * WAL lets readers run beside the one writer; synchronous=NORMAL is durable across process crashes in WAL
 * mode (only an OS crash can lose the last commits), which is what "a crash loses no data" needs here.
 *
 * The file is owner-only whatever the umask: SQLite creates a new database 0644 minus the umask, and gives its
 * `-wal` and `-shm` files the mode of the database file, so making the database file 600 first covers all three.
 */
export function openDatabase(file: string, options: { cacheKiB?: number } = {}): Db {
  // ':memory:' and '' are SQLite's in-memory and temporary databases: there is no file to protect.
  if (file !== ':memory:' && file !== '') makePrivate(file);
  const db = new Database(file);
  // Set before the first table, so it takes only on a new database (an existing one keeps its size). 8 KiB pages read
  // a long scan (an export of a million rows) in half the reads of SQLite's 4 KiB default; 16 KiB read a little
  // faster still but made every commit, the payment path's cost, half as dear again (docs/decisions.md).
  db.pragma(`page_size = ${PAGE_SIZE}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // SQLite's page cache is per connection (16 MiB as better-sqlite3 builds it): a process running many nodes can hold less each.
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`);
  return db;
}

/** Creates `file` empty and owner-only when missing; tightens it and its WAL companions when looser (older directories). */
function makePrivate(file: string): void {
  if (process.platform === 'win32') return;
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    for (const path of [file, `${file}-wal`, `${file}-shm`]) tighten(path);
    return;
  }
  // A file just created here is held by no SQLite connection, so closing this descriptor drops no lock.
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

function tighten(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

export const LOCK_FILE = 'node.lock';

/** Another process (or another node in this process) holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `the data directory ${dataDir} is in use by another running wallet-node (it holds ${LOCK_FILE}); ` +
        'stop that node first, or start this one with another NODE_DATA_DIR. Nothing was changed.',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  /** Gives the directory up (idempotent). The lock also goes when the process dies, however it dies. */
  release(): void;
}

/**
 * One process per data directory: two nodes on the same files fork every chain they touch and overwrite each
 * other's cli.json. The lock is an exclusive SQLite write lock on `node.lock`, held for the node's lifetime:
 * it is a POSIX lock, so the kernel drops it when the process ends (a `kill -9` leaves no stale lock), and SQLite
 * also refuses a second connection of this same process, so in-process test nodes are kept apart too.
 *
 * Nothing else may open `node.lock`: closing any descriptor of the file would drop this process's POSIX locks
 * on it (SQLite defers its own closes for that reason; plain fs calls do not).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  let db: Db | null = null;
  try {
    // timeout 0: a held directory fails at once instead of waiting the default 5 s.
    db = new Database(file, { timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    // The transaction only holds the lock and writes nothing: no journal file beside it.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db?.close();
    if (err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED')) {
      throw new DataDirInUseError(dataDir);
    }
    throw err;
  }
  tighten(file);
  const held = db;
  let released = false;
  return {
    dataDir,
    release: () => {
      if (released) return;
      released = true;
      held.exec('ROLLBACK');
      held.close();
    },
  };
}
