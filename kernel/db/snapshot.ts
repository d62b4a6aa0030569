/**
 * Consistent copies of the node's state while it serves, SQLite's integrity check off the event loop, and the move
 * of a recovered state into an empty data directory.
 *
 * The state is the database plus the files the node keeps beside it (settings, plugin switches, trusted plugin keys). The
 * identity is not part of it: the seed phrase brings it back. cli.json and the TLS certificate are made again at
 * start (peers re-pin the new certificate through the node's signed hello).
 *
 * Plaintext copies live only in scratch directories inside the data directory: the database is plaintext on that
 * volume already, so a copy there exposes nothing new, and a crash leaves them where the next start removes them.
 */
import { copyFileSync, chmodSync, closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { mkdtemp, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BackgroundFlush } from '../../sdk/flush.js';
import type { DatabaseCheck, ScratchDir, SnapshotMechanism, StateFile, StateSnapshot } from '../../sdk/index.js';
import { DATABASE_FILE, IDENTITY_FILE, MASTER_KEY_FILE, PLUGINS_STATE_FILE, SETTINGS_FILE, TRUSTED_KEYS_FILE } from '../data-files.js';
import type { Db } from './open.js';

/**
 * Installed third-party plugins are code the operator installs from its source again; their switches, settings and
 * limits (plugins-state.json), the keys that may sign them and their stores (in the database) are state.
 */
const STATE_FILES = [SETTINGS_FILE, PLUGINS_STATE_FILE, TRUSTED_KEYS_FILE] as const;
export const SNAPSHOT_FILE_NAMES: readonly string[] = [DATABASE_FILE, ...STATE_FILES];
/** What a snapshot holds, as the SDK's `SnapshotMechanism` describes it (the running node's and boot recovery's). */
export const SNAPSHOT_FILES: Pick<SnapshotMechanism, 'fileNames' | 'databaseFile' | 'jsonFiles'> = {
  fileNames: SNAPSHOT_FILE_NAMES,
  databaseFile: DATABASE_FILE,
  jsonFiles: [SETTINGS_FILE, PLUGINS_STATE_FILE],
};
/** Files whose presence means the directory already holds a node: a recovered state never replaces them. */
const NODE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, IDENTITY_FILE, MASTER_KEY_FILE, ...STATE_FILES];

const SCRATCH_PREFIX = '.scratch-';
const PRIVATE_FILE_MODE = 0o600;
/**
 * What the online copy takes per turn of the event loop: 1 MiB of pages, about a millisecond of work, so requests
 * queued meanwhile wait that long at most.
 */
const BYTES_PER_STEP = 1024 * 1024;
/**
 * Every so many steps the copy's written pages are flushed to disk off the event loop. SQLite syncs the copy when
 * the copy finishes, on this thread: without the flushes that one sync writes out the whole file (half a second
 * per GiB, every request waiting); with them, only what came since the last flush, and the copy waits for one more
 * flush before its last step, so the final sync finds almost nothing to write.
 */
const STEPS_PER_FLUSH = 16;
const MAX_PROBLEMS = 100;

export async function scratchDir(dataDir: string): Promise<ScratchDir> {
  // mkdtemp creates the directory 700 whatever the umask.
  const dir = await mkdtemp(join(dataDir, SCRATCH_PREFIX));
  return { dir, dispose: () => removeGradually(dir) };
}

/** How much of a scratch file one truncation frees. */
const TRUNCATE_STEP = 64 * 1024 * 1024;

/**
 * Removes a scratch directory, its large files shortened step by step first: freeing a GiB in one unlink holds the
 * file system's journal long enough (a fifth of a second here) that the node's own database writes, on the event
 * loop, wait behind it.
 */
async function removeGradually(dir: string): Promise<void> {
  try {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const fh = await open(join(dir, entry.name), 'r+');
      try {
        for (let size = (await fh.stat()).size - TRUNCATE_STEP; size > 0; size -= TRUNCATE_STEP) await fh.truncate(size);
      } finally {
        await fh.close();
      }
    }
  } catch {
    // whatever is left goes with the directory below
  }
  await rm(dir, { recursive: true, force: true });
}

/** Removes what a crash left of scratch directories; called at start, before anything else reads the directory. */
export function sweepScratch(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith(SCRATCH_PREFIX)) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

async function fileOf(name: string, path: string): Promise<StateFile> {
  return { name, path, size: (await stat(path)).size };
}

/**
 * The copy is made with SQLite's online copy API on the node's own connection: every write the node commits while the
 * copy runs is carried into it, so the copy never restarts and is the state at the moment it finishes.
 */
export async function takeSnapshot(
  db: Db,
  dataDir: string,
  options: { onProgress?: (copiedPages: number, totalPages: number) => void } = {},
): Promise<StateSnapshot> {
  const scratch = await scratchDir(dataDir);
  try {
    const dbPath = join(scratch.dir, DATABASE_FILE);
    // Created first with its final mode: SQLite would create it (and its journal) from the umask.
    await writeFile(dbPath, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    // Closed only after the copy: closing a descriptor of a file drops the process's POSIX locks on it.
    const copyFile = await open(dbPath, 'r');
    const flusher = new BackgroundFlush(copyFile);
    let flushedForLastStep = false;
    let steps = 0;
    const pagesPerStep = Math.max(1, Math.floor(BYTES_PER_STEP / (db.pragma('page_size', { simple: true }) as number)));
    try {
      await db.backup(dbPath, {
        progress: ({ totalPages, remainingPages }) => {
          options.onProgress?.(totalPages - remainingPages, totalPages);
          if (remainingPages <= pagesPerStep && !flushedForLastStep) {
            // The next step ends the copy and syncs it here: until the pages so far are on disk, steps copy nothing
            // (each such turn of the loop is a lock and a release) and the requests keep being served.
            if (!flusher.busy) void flusher.flush().then(() => (flushedForLastStep = true));
            return 0;
          }
          if (++steps % STEPS_PER_FLUSH === 0) void flusher.flush();
          return pagesPerStep;
        },
      });
    } finally {
      await flusher.settled();
      await copyFile.close();
    }
    // The copy carries the source's WAL flag in its header; a rollback journal makes the one file the whole copy.
    const copy = new Database(dbPath);
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const files = [await fileOf(DATABASE_FILE, dbPath)];
    for (const name of STATE_FILES) {
      const source = join(dataDir, name);
      if (!existsSync(source)) continue;
      const target = join(scratch.dir, name);
      copyFileSync(source, target);
      chmodSync(target, PRIVATE_FILE_MODE);
      files.push(await fileOf(name, target));
    }
    return { files, dispose: scratch.dispose };
  } catch (err) {
    await scratch.dispose();
    throw err;
  }
}

/*
 * Runs in a worker (plain JavaScript: the same source serves the compiled node and the tests). integrity_check reads
 * every page, seconds for a large database, which would stall the node's event loop.
 */
const CHECK_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let db = null;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const rows = db.pragma('integrity_check(' + workerData.max + ')');
  const problems = rows.map((r) => String(Object.values(r)[0])).filter((m) => m !== 'ok');
  parentPort.postMessage({ ok: problems.length === 0, problems });
} catch (err) {
  parentPort.postMessage({ ok: false, problems: [String((err && err.message) || err)] });
} finally {
  if (db) db.close();
}
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

export function checkDatabase(file: string): Promise<DatabaseCheck> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECK_SOURCE, { eval: true, workerData: { driver, file, max: MAX_PROBLEMS } });
    let answered = false;
    worker.once('message', (result: DatabaseCheck) => {
      answered = true;
      resolve(result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the integrity check stopped (exit ${code})`));
    });
  });
}

/**
 * Moves the files of a recovered state into `dataDir`. The caller made sure the directory is new; this refuses
 * anyway when any node file is there, so no state is ever overwritten. The database moves last: until it is in
 * place the directory does not look like a node's.
 */
export function installState(dataDir: string, files: readonly { name: string; path: string }[]): void {
  const names = files.map((f) => f.name);
  const unknown = names.filter((n) => !SNAPSHOT_FILE_NAMES.includes(n));
  if (unknown.length) throw new Error(`cannot install ${unknown.join(', ')}: a state holds only ${SNAPSHOT_FILE_NAMES.join(', ')}`);
  if (new Set(names).size !== names.length) throw new Error('a state file is listed twice');
  if (!names.includes(DATABASE_FILE)) throw new Error(`a state to install needs ${DATABASE_FILE}`);
  const present = NODE_FILES.filter((n) => existsSync(join(dataDir, n)));
  if (present.length) throw new Error(`${dataDir} already holds a node (${present.join(', ')}); nothing was installed`);
  const ordered = [...files].sort((a, b) => Number(a.name === DATABASE_FILE) - Number(b.name === DATABASE_FILE));
  for (const file of ordered) {
    const target = join(dataDir, file.name);
    try {
      renameSync(file.path, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      copyFileSync(file.path, target);
      unlinkSync(file.path);
    }
    if ((statSync(target).mode & 0o077) !== 0) chmodSync(target, PRIVATE_FILE_MODE);
  }
  const fd = openSync(dataDir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function snapshotMechanism(db: Db, dataDir: string): SnapshotMechanism {
  return {
    ...SNAPSHOT_FILES,
    take: (options) => takeSnapshot(db, dataDir, options),
    scratch: () => scratchDir(dataDir),
    check: checkDatabase,
  };
}
