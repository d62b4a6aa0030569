/**
 * Boot recovery: `NODE_BOOT_RECOVERY_BACKUP=<file name>` on a new, empty data directory restores that backup while
 * the node starts. The seed phrase comes with RESTORE or RESTORE_FILE: the backup's key derives from it, and the
 * new directory's identity is made from it right after.
 *
 * Anything wrong stops the start and leaves the directory as it was: a directory that already holds anything (the
 * backup directory aside), no seed phrase, a name that is not a bare backup file name, a missing file, another
 * node's backup, an older format, a file that fails authentication or SQLite's integrity check. Everything is
 * decrypted and checked in a scratch directory first; only a backup that passed every check is installed.
 */
import { existsSync, lstatSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { backupDirectory, KEY_LABEL, unpackBackup } from './core.js';
import { BackupFormatError } from './format.js';
import { isBackupFileName } from './names.js';
export const RECOVERY_VARIABLE = 'NODE_BOOT_RECOVERY_BACKUP';
export const DIRECTORY_VARIABLE = 'NODE_BACKUP_DIR';
export async function recoverFromBackup(boot) {
    const filename = boot.env(RECOVERY_VARIABLE)?.trim();
    if (!filename)
        return;
    const dir = backupDirectory(boot.dataDir, boot.env(DIRECTORY_VARIABLE));
    const unchanged = 'Nothing was changed.';
    if (!isBackupFileName(filename)) {
        throw new Error(`${RECOVERY_VARIABLE}="${filename}" is not a backup file name: give the bare name of a file in ${dir} ` +
            `(set ${DIRECTORY_VARIABLE} for another directory), such as backup_20250101_000000.node.enc. ${unchanged}`);
    }
    // The backup directory may sit inside the data directory (the default): that one entry does not count.
    const inside = relative(boot.dataDir, dir);
    const own = inside && !inside.startsWith('..') && !inside.startsWith(sep) ? inside.split(sep)[0] : null;
    const others = boot.entries.filter((e) => e !== own);
    if (others.length) {
        const shown = others.slice(0, 5).join(', ') + (others.length > 5 ? `, and ${others.length - 5} more` : '');
        throw new Error(`the data directory ${boot.dataDir} is not empty (${shown}): boot recovery only fills a new, empty one. ${unchanged} ` +
            `Recover into an empty directory, or start without ${RECOVERY_VARIABLE} to run the node that is there.`);
    }
    const restoring = boot.restoring;
    if (!restoring) {
        throw new Error(`${filename} is encrypted with a key derived from the node's seed phrase: give the 24 words with RESTORE_FILE ` +
            `(or RESTORE) together with ${RECOVERY_VARIABLE}. ${unchanged}`);
    }
    const path = join(dir, filename);
    if (!existsSync(path) || !lstatSync(path).isFile()) {
        throw new Error(`there is no backup ${filename} in ${dir} (set ${DIRECTORY_VARIABLE} if the backups are elsewhere). ${unchanged}`);
    }
    const scratch = await boot.snapshots.scratch();
    try {
        let unpacked;
        try {
            unpacked = await unpackBackup(path, restoring.storageKey(KEY_LABEL), restoring.pubkeyHash, boot.snapshots, scratch.dir);
        }
        catch (err) {
            if (err instanceof BackupFormatError)
                throw new Error(`${filename} cannot be restored: ${err.message}. ${unchanged}`);
            throw err;
        }
        boot.install(unpacked.files);
        boot.log.info('node state recovered from a backup', { filename, created_at: unpacked.createdAt, node: restoring.pubkeyHash });
    }
    finally {
        await scratch.dispose();
    }
}
//# sourceMappingURL=recovery.js.map