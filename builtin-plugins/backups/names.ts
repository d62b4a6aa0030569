/**
 * Backup file names. Every name a client sends (a route's body or path, the CLI, NODE_BOOT_RECOVERY_BACKUP) must be
 * a bare name of this form before it is joined to the backup directory: no separator, no dot but the extension's,
 * so no name can point outside the directory.
 *
 *   backup_YYYYMMDD_HHmmss.node.enc           daily, before shutdown, or created without a name (UTC)
 *   archive_backup_YYYYMMDD_HHmmss.node.enc   taken when archival moves rows (the archival plugin asks for it)
 *   <name>.node.enc                           created with a name: alphanumerics, underscore, hyphen
 */
export const EXTENSION = '.node.enc';
const AUTOMATIC_PREFIX = 'backup_';
const ARCHIVE_PREFIX = 'archive_backup_';
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const FILE = /^[A-Za-z0-9_-]{1,64}\.node\.enc$/;

export type BackupKind = 'backup' | 'archive';
/** The groups retention keeps apart when backupRetentionScope is `kind`. */
export type BackupGroup = BackupKind | 'named';
/** backupRetentionScope: the newest N of all backups (Document 1), or of each group. */
export type RetentionScope = 'all' | 'kind';

export const NAME_PATTERN = NAME.source;

/** `YYYYMMDD_HHmmss` in UTC. */
export function stamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}_${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

export function automaticFileName(kind: BackupKind, ms: number): string {
  return `${kind === 'archive' ? ARCHIVE_PREFIX : AUTOMATIC_PREFIX}${stamp(ms)}${EXTENSION}`;
}

/** Why `name` cannot name a backup, or null. The prefixes of automatic backups are reserved for them. */
export function namedFileProblem(name: string): string | null {
  if (!NAME.test(name)) return 'a backup name has 1 to 64 letters, digits, underscores or hyphens';
  const lower = name.toLowerCase();
  if (lower.startsWith(AUTOMATIC_PREFIX) || lower.startsWith('archive_')) {
    return `names starting with ${AUTOMATIC_PREFIX} or archive_ are reserved for automatic backups`;
  }
  return null;
}

export const namedFileName = (name: string): string => `${name}${EXTENSION}`;

export function isBackupFileName(filename: string): boolean {
  return FILE.test(filename);
}

export function groupOf(filename: string): BackupGroup {
  if (filename.startsWith(ARCHIVE_PREFIX)) return 'archive';
  if (filename.startsWith(AUTOMATIC_PREFIX)) return 'backup';
  return 'named';
}

/** `512 B`, `1.50 KB`, `1.00 GB` (powers of 1024). */
export function humanSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(2)} ${units[unit]}`;
}
