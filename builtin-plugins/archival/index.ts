import { definePlugin, type PluginContext } from '../../sdk/index.js';
import { BACKUPS_SERVICE, type BackupsService } from '../backups/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { PaymentRequestsService } from '../payment-requests/api.js';

/**
 * Archival (issue 15; Document 2 "archive" settings): two nightly jobs on the node's clock, payment requests at 01:00
 * UTC and transactions at 01:30 UTC. Each moves what is older than its retention (`paymentRequestsArchiveRetentionDays`,
 * `transactionsArchiveRetentionDays`) to archive tables in batches of its batch size; the owning plugins keep every
 * read seeing archived rows, and the ledger skips chains with a gap and keeps a checkpoint per chain that
 * verify-chain checks. When rows moved and backups are on, an archive backup (`archive_backup_…`) follows.
 */
const DAY_MS = 86_400_000;

export default definePlugin({
  setup(ctx) {
    const ledger = ctx.services.use<LedgerService>('ledger');
    const requests = ctx.services.use<PaymentRequestsService>('payment-requests');
    const backups = ctx.services.use<BackupsService>(BACKUPS_SERVICE);
    const cutoff = (setting: string): number => ctx.clock.now() - ctx.settings.get<number>(setting) * DAY_MS;

    ctx.jobs.register({
      name: 'payment-requests',
      processor: 'cleanup',
      dailyAt: { hour: 1, minute: 0 },
      run: async () => {
        const { moved, batches } = await requests.archiveResolved(cutoff('paymentRequestsArchiveRetentionDays'), ctx.settings.get<number>('paymentRequestsArchiveBatchSize'));
        ctx.log.info('payment request archival ran', { moved, batches });
        if (moved) await archiveBackup(ctx, backups);
      },
    });
    ctx.jobs.register({
      name: 'transactions',
      processor: 'cleanup',
      dailyAt: { hour: 1, minute: 30 },
      run: async () => {
        const result = await ledger.archiveSettled(cutoff('transactionsArchiveRetentionDays'), ctx.settings.get<number>('transactionsArchiveBatchSize'));
        ctx.log.info('transaction archival ran', {
          moved: result.moved,
          batches: result.batches,
          chains: result.chains.length,
          skipped: result.skipped.map((s) => `${s.contactHash.slice(0, 16)} ${s.currency}: ${s.reason}`),
        });
        if (result.moved) await archiveBackup(ctx, backups);
      },
    });
  },
});

async function archiveBackup(ctx: PluginContext, backups: BackupsService): Promise<void> {
  if (!ctx.settings.get<boolean>('autoBackupEnabled')) return;
  try {
    const made = await backups.archiveBackup();
    ctx.log.info('archive backup written', { filename: made.filename });
  } catch (err) {
    ctx.log.error('archive backup failed', { error: err instanceof Error ? err.message : String(err) });
  }
}
