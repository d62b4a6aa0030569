import type { SettingDefinition } from '../../sdk/index.js';

/** Document 2's backup policy. Moved here from the system plugin's catalog, names, defaults and ranges unchanged. */
export const backupSettings: readonly SettingDefinition[] = [
  { key: 'autoBackupEnabled', type: 'boolean', default: true, category: 'backup', description: 'Take an encrypted backup every day, and one before a clean shutdown' },
  { key: 'backupRetentionCount', type: 'integer', default: 3, min: 1, max: 1000, category: 'backup', description: 'Backups kept (of all together, or of each kind: see backupRetentionScope); older ones are deleted' },
  { key: 'backupRetentionScope', type: 'enum', options: ['all', 'kind'], default: 'all', category: 'backup', description: 'What retention counts: all backups together (all), or daily, archive and named backups apart (kind)' },
  { key: 'backupCronHour', type: 'integer', default: 0, min: 0, max: 23, category: 'backup', description: 'Hour (UTC) of the daily backup' },
  { key: 'backupCronMinute', type: 'integer', default: 0, min: 0, max: 59, category: 'backup', description: 'Minute of the daily backup' },
];

const DAY_MS = 86_400_000;

/** The first time after `now` (ms) at hour:minute UTC. */
export function nextDailyRun(now: number, hour: number, minute: number): number {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour, minute);
  return today > now ? today : today + DAY_MS;
}
