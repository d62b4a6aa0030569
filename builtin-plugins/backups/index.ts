import { definePlugin } from '../../sdk/index.js';
import { BACKUPS_SERVICE, type BackupsService } from './api.js';
import { Backups, backupDirectory, KEY_LABEL } from './core.js';
import { DIRECTORY_VARIABLE, recoverFromBackup } from './recovery.js';
import { registerBackupRoutes } from './routes.js';
import type { RetentionScope } from './names.js';
import { backupSettings, nextDailyRun } from './settings.js';

/**
 * Backups: encrypted, authenticated full snapshots of the node's state (format.ts), written on demand, every day at
 * backupCronHour:backupCronMinute UTC and before a clean shutdown while autoBackupEnabled, kept backupRetentionCount
 * (of all, or of each kind: backupRetentionScope), verified on demand, and restored only by boot recovery into an
 * empty data directory (recovery.ts).
 * Rules and shapes: docs/api/backups.md.
 *
 * Job (id `backups.daily`): the daily backup, then retention; its schedule follows the settings as they change.
 */
export default definePlugin({
  recover: recoverFromBackup,
  setup(ctx) {
    ctx.settings.declare(backupSettings);
    const backups = new Backups({
      dir: backupDirectory(ctx.kernel.node.dataDir, ctx.kernel.env(DIRECTORY_VARIABLE)),
      node: ctx.identity.pubkeyHash,
      key: ctx.identity.storageKey(KEY_LABEL),
      snapshots: ctx.kernel.snapshots,
      clock: ctx.clock,
      log: ctx.log,
    });
    backups.prepare();
    // From the directory itself: a restart, or a backup another process wrote, shows at once.
    ctx.metrics.gauge({ name: 'backup_last_success_timestamp_seconds', help: 'Creation time of the newest backup in the backup directory (Unix seconds)' }, () => {
      const newest = backups.list()[0];
      return newest ? [{ value: Date.parse(newest.created_at) / 1000 }] : [];
    });

    const enabled = (): boolean => ctx.settings.get<boolean>('autoBackupEnabled');
    const retention = (): number => ctx.settings.get<number>('backupRetentionCount');
    const prune = () => backups.cleanup(retention(), ctx.settings.get<RetentionScope>('backupRetentionScope'));
    const automatic = async (kind: 'backup' | 'archive') => {
      const made = await backups.create({ kind }, 'wait');
      prune();
      return made;
    };

    ctx.jobs.register({
      name: 'daily',
      processor: 'backup',
      nextRunAt: (now) => (enabled() ? nextDailyRun(now, ctx.settings.get<number>('backupCronHour'), ctx.settings.get<number>('backupCronMinute')) : null),
      run: async () => {
        if (enabled()) await automatic('backup');
      },
    });
    for (const key of ['autoBackupEnabled', 'backupCronHour', 'backupCronMinute']) ctx.settings.onChange(key, () => ctx.jobs.reschedule('daily'));

    ctx.onStop(async (reason) => {
      await backups.idle();
      if (reason !== 'shutdown' || !enabled()) return;
      try {
        await automatic('backup');
      } catch (err) {
        ctx.log.error('backup before shutdown failed', { error: err instanceof Error ? err.message : String(err) });
      }
    });

    registerBackupRoutes(ctx, backups, {
      enabled,
      retention,
      prune,
      nextScheduled: () => {
        const armed = ctx.jobs.nextRun('daily');
        if (armed !== null || !enabled() || !ctx.kernel.jobs.running()) return armed;
        // Between a daily run's start and its re-arming the timer is unset; the next run is the one it will arm.
        return nextDailyRun(ctx.clock.now(), ctx.settings.get<number>('backupCronHour'), ctx.settings.get<number>('backupCronMinute'));
      },
      setEnabled: (value) => void ctx.kernel.settings.update({ autoBackupEnabled: value }),
    });

    const service: BackupsService = {
      archiveBackup: async () => {
        const { filename, size, path } = await automatic('archive');
        return { filename, size, path };
      },
    };
    ctx.services.provide(BACKUPS_SERVICE, service);
  },
});
