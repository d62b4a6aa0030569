/**
 * The `backups` service. The archival plugin lists `"requires": ["backups"]` and, after it moves rows to the archive
 * tables, calls `archiveBackup()`: an `archive_backup_YYYYMMDD_HHmmss.node.enc` file, kept under the same retention
 * count as the daily ones but counted apart from them.
 */
export const BACKUPS_SERVICE = 'backups';

export interface BackupWritten {
  filename: string;
  size: number;
  path: string;
}

export interface BackupsService {
  /** Writes an archive backup now (after one being written finishes), then applies retention. */
  archiveBackup(): Promise<BackupWritten>;
}
