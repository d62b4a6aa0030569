import { readFileSync } from 'node:fs';
import type { Db } from './open.js';

/**
 * A test seam (NODE_TEST_MODE only, NODE_TEST_STORAGE_FAULT_FILE): while the named file exists, every write of the
 * node's database fails as SQLite fails on a broken disk, and every atomic file write (settings, plugin switches) as
 * the file system does. The file says which fault: `full` (or empty), `readonly` or `eio`. For tests that cannot
 * mount a small file system to fill, or make a disk read-only or failing under a running node. Reads work.
 */
export const storageFaultSeam: { flagFile: string | null } = { flagFile: null };

const FAULTS: Readonly<Record<string, { sqlite: [string, string]; fs: [string, string] }>> = {
  full: { sqlite: ['SQLITE_FULL', 'database or disk is full'], fs: ['ENOSPC', 'ENOSPC: no space left on device'] },
  readonly: { sqlite: ['SQLITE_READONLY', 'attempt to write a readonly database'], fs: ['EROFS', 'EROFS: read-only file system'] },
  eio: { sqlite: ['SQLITE_IOERR_WRITE', 'disk I/O error'], fs: ['EIO', 'EIO: i/o error'] },
};

/** The fault the seam's file names now, or null while there is none. */
function currentFault(): (typeof FAULTS)[string] | null {
  if (storageFaultSeam.flagFile === null) return null;
  let kind: string;
  try {
    kind = readFileSync(storageFaultSeam.flagFile, 'utf8').trim() || 'full';
  } catch {
    return null;
  }
  const known = FAULTS[kind];
  if (!known) throw new Error(`${storageFaultSeam.flagFile}: unknown storage fault "${kind}" (full, readonly or eio)`);
  return known;
}

const fault = ([code, message]: [string, string]): Error => Object.assign(new Error(`${message} (injected)`), { code });

/** Throws as the file system would while the seam names a fault (writeFileAtomic calls it). */
export function refuseFileWriteIfFaulty(): void {
  const now = currentFault();
  if (now) throw fault(now.fs);
}

/** Makes `db` refuse writes while the seam's file exists: every statement that writes, prepared from now on, and exec. */
export function injectStorageFaults(db: Db, flagFile: string): void {
  storageFaultSeam.flagFile = flagFile;
  const refuse = (): void => {
    const now = currentFault();
    if (now) throw fault(now.sqlite);
  };
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const stmt = prepare(source);
    if (!stmt.reader) {
      const run = stmt.run.bind(stmt);
      stmt.run = (...params: unknown[]) => {
        refuse();
        return run(...params);
      };
    }
    return stmt;
  }) as Db['prepare'];
  const exec = db.exec.bind(db);
  db.exec = (source: string) => {
    refuse();
    return exec(source);
  };
}
