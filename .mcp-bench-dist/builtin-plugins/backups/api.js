/**
 * The `backups` service. The archival plugin lists `"requires": ["backups"]` and, after it moves rows to the archive
 * tables, calls `archiveBackup()`: an `archive_backup_YYYYMMDD_HHmmss.node.enc` file, kept under the same retention
 * count as the daily ones but counted apart from them.
 */
export const BACKUPS_SERVICE = 'backups';
//# sourceMappingURL=api.js.map