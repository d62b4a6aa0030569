/**
 * Failures of the disk itself, as opposed to a bug or a refused value: the node reports them as a state (the disk is
 * full, read-only or failing) and retries, instead of treating them as an unexpected error. SQLite reports them with
 * its own codes (and extended ones: `SQLITE_IOERR_WRITE`, `SQLITE_READONLY_DBMOVED`), the file system with errno codes.
 */
export type StorageFault = 'disk full' | 'read-only file system' | 'I/O error';

const ERRNO: Readonly<Record<string, StorageFault>> = { ENOSPC: 'disk full', EDQUOT: 'disk full', EROFS: 'read-only file system', EIO: 'I/O error' };

const SQLITE: readonly (readonly [string, StorageFault])[] = [
  ['SQLITE_FULL', 'disk full'],
  ['SQLITE_READONLY', 'read-only file system'],
  ['SQLITE_IOERR', 'I/O error'],
];

/** The storage fault `err` reports, or null when it is any other error. */
export function storageFault(err: unknown): StorageFault | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const errno = ERRNO[code];
  if (errno) return errno;
  for (const [prefix, fault] of SQLITE) if (code === prefix || code.startsWith(`${prefix}_`)) return fault;
  return null;
}
