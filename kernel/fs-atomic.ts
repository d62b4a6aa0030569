import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { refuseFileWriteIfFaulty } from './db/fault-seam.js';

/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn one:
 * write a sibling temp file, fsync it, rename over the target, fsync the directory. A write that fails (a full or
 * read-only disk) leaves the target as it was and removes the temp file, so the space it took is free again.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o600): void {
  refuseFileWriteIfFaulty();
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    try {
      // open() applies the mode only to a file it creates, minus the umask: a leftover temp file keeps its own.
      fchmodSync(fd, mode);
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      // writeSync may write less than asked (a disk that fills meanwhile): a short file must never replace the target.
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
