import { existsSync } from 'node:fs';
import type { Db } from './open.js';

/**
 * A test seam (NODE_TEST_MODE only, NODE_TEST_STORAGE_FAULT_FILE): while the named file exists, every write of the
 * node's database fails as SQLite fails on a full disk (SQLITE_FULL), and every atomic file write (settings, plugin
 * switches) as the file system does (ENOSPC). For tests that cannot mount a small file system to fill. Reads work.
 */
export const storageFaultSeam: { flagFile: string | null } = { flagFile: null };

const faulty = (): boolean => storageFaultSeam.flagFile !== null && existsSync(storageFaultSeam.flagFile);

const fault = (code: string, message: string): Error => Object.assign(new Error(message), { code });

/** Throws ENOSPC while the seam is set and its file exists (writeFileAtomic calls it). */
export function refuseFileWriteIfFaulty(): void {
  if (faulty()) throw fault('ENOSPC', 'ENOSPC: no space left on device (injected)');
}

/** Makes `db` refuse writes while the seam's file exists: every statement that writes, prepared from now on, and exec. */
export function injectStorageFaults(db: Db, flagFile: string): void {
  storageFaultSeam.flagFile = flagFile;
  const refuse = (): void => {
    if (faulty()) throw fault('SQLITE_FULL', 'database or disk is full (injected)');
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
