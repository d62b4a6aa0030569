import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn one:
 * write a sibling temp file, fsync it, rename over the target, fsync the directory.
 */
export function writeFileAtomic(path, content, mode = 0o600) {
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    const fd = openSync(tmp, 'w', mode);
    try {
        // open() applies the mode only to a file it creates, minus the umask: a leftover temp file keeps its own.
        fchmodSync(fd, mode);
        writeSync(fd, typeof content === 'string' ? Buffer.from(content) : content);
        fsyncSync(fd);
    }
    finally {
        closeSync(fd);
    }
    renameSync(tmp, path);
    const dirFd = openSync(dirname(path), 'r');
    try {
        fsyncSync(dirFd);
    }
    finally {
        closeSync(dirFd);
    }
}
//# sourceMappingURL=fs-atomic.js.map