/**
 * Archival of settled transactions (issue 15; Document 2: `transactionsArchiveRetentionDays`,
 * `transactionsArchiveBatchSize`). Rows settled longer ago than the retention move, a batch per database
 * transaction, from `ledger_tx` to `ledger_tx_archive`: never deleted, and every read that must see them (lookups,
 * listings, exports, refunds, sync, audits, balances) goes through `ledger_tx_all`. Only a prefix of a chain moves
 * (the head stays live: the next payment links to it), and only for chains whose audit finds no gap or fork.
 *
 * Each chain keeps a checkpoint: how many rows were archived and a digest folded over them in chain order,
 *   digest = hex SHA-256(previous digest + "\n" + txid + "\n" + content + "\n" + sender_sig + "\n" + recipient_sig)
 * starting from the empty string, so a later batch extends it. verify-chain recomputes it over the archive:
 * `matched`, or `mismatch` when an archived row was altered, added or removed.
 */
import { createHash } from 'node:crypto';
import type { LedgerCore } from './core.js';
import { currencyKey, type ArchivableRow } from './store.js';
import { auditChain } from './audit.js';
import { inBatches } from '../../sdk/batches.js';

export type CheckpointStatus = 'none' | 'matched' | 'mismatch';

export interface ArchiveResult {
  /** Rows moved to the archive. */
  moved: number;
  /** Database transactions it took (a batch of at most the batch size each, an empty one ending each chain). */
  batches: number;
  chains: { contactHash: string; currency: string; moved: number }[];
  /** Chains left as they are: their audit found a gap or a fork. */
  skipped: { contactHash: string; currency: string; reason: string }[];
}

const fold = (digest: string, r: ArchivableRow): string =>
  createHash('sha256').update(`${digest}\n${r.txid}\n${r.content ?? ''}\n${r.senderSignature ?? ''}\n${r.recipientSignature ?? ''}`).digest('hex');

export async function archiveSettled(core: LedgerCore, olderThan: number, batchSize: number): Promise<ArchiveResult> {
  const result: ArchiveResult = { moved: 0, batches: 0, chains: [], skipped: [] };
  for (const { contactHash, currency } of core.store.chainPairs()) {
    const audit = auditChain(core, contactHash, currency);
    if (audit.gaps.length || audit.forks.length) {
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
  const rows = core.store.archivable(contactHash, currencyKey(currency), olderThan, batchSize);
  if (!rows.length) return 0;
  const before = core.store.checkpoint(contactHash, currency) ?? { archived: 0, digest: '', lastPos: 0 };
  core.store.moveToArchive(rows.map((r) => r.seq));
  core.store.putCheckpoint(
    contactHash,
    currency,
    { archived: before.archived + rows.length, digest: rows.reduce(fold, before.digest), lastPos: rows[rows.length - 1]!.pos },
    core.now(),
  );
  return rows.length;
}

/** The chain's archive against its checkpoint: none archived, matched, or mismatch. */
export function checkpointStatus(core: LedgerCore, contactHash: string, currency: string): CheckpointStatus {
  const checkpoint = core.store.checkpoint(contactHash, currency);
  const rows = core.store.archivedRows(contactHash, currency);
  if (!checkpoint) return rows.length ? 'mismatch' : 'none';
  return rows.length === checkpoint.archived && rows.reduce(fold, '') === checkpoint.digest ? 'matched' : 'mismatch';
}
