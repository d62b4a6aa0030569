/**
 * Archival of settled transactions (issue 15; Document 2: `transactionsArchiveRetentionDays`,
 * `transactionsArchiveBatchSize`). Rows settled longer ago than the retention move, a batch per database
 * transaction, from `ledger_tx` to `ledger_tx_archive`: never deleted, and every read that must see them (lookups,
 * listings, exports, refunds, sync, audits, balances) goes through `ledger_tx_all`. Only a prefix of a chain moves
 * (the head stays live: the next payment links to it), and only for chains whose audit finds no gap or fork.
 */
import type { LedgerCore } from './core.js';
import type { ArchiveResult } from './api.js';
import { fold } from './archive-checkpoint.js';
import { currencyKey } from './store/rows.js';
import { auditLinks } from './audit.js';
import { inBatches } from '../../sdk/batches.js';

export async function archiveSettled(core: LedgerCore, olderThan: number, batchSize: number): Promise<ArchiveResult> {
  const result: ArchiveResult = { moved: 0, batches: 0, chains: [], skipped: [] };
  for (const { contactHash, currency } of core.store.chains.chainsOnLines()) {
    // A chain that is one line has neither gap nor fork; only one that is not is audited for which it has.
    const audit = core.store.chains.line(contactHash, currency).linear ? null : auditLinks(core, contactHash, currency);
    if (audit && (audit.gaps.length || audit.forks.length)) {
      result.skipped.push({ contactHash, currency, reason: audit.gaps.length ? 'gap' : 'fork' });
      continue;
    }
    const { moved, batches } = await inBatches(() => core.ctx.db.tx(() => archiveBatch(core, contactHash, currency, olderThan, batchSize)), batchSize);
    if (moved) result.chains.push({ contactHash, currency, moved });
    result.moved += moved;
    result.batches += batches;
  }
  return result;
}

/** Moves the next batch of a chain's archivable rows and extends its checkpoint (call inside a transaction). */
function archiveBatch(core: LedgerCore, contactHash: string, currency: string, olderThan: number, batchSize: number): number {
  const rows = core.store.archive.archivable(contactHash, currencyKey(currency), olderThan, batchSize);
  if (!rows.length) return 0;
  const before = core.store.archive.checkpoint(contactHash, currency) ?? { archived: 0, digest: '', lastPos: 0 };
  core.store.archive.move(rows.map((r) => r.seq));
  core.store.archive.putCheckpoint(
    contactHash,
    currency,
    { archived: before.archived + rows.length, digest: rows.reduce(fold, before.digest), lastPos: rows[rows.length - 1]!.pos },
    core.now(),
  );
  return rows.length;
}
