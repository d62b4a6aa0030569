/**
 * A chain's archive checkpoint: archival (archive.ts) extends it, verify-chain (audit.ts) checks the archive against it.
 *
 * Each chain keeps a checkpoint: how many rows were archived and a digest folded over them in chain order,
 *   digest = hex SHA-256(previous digest + "\n" + txid + "\n" + content + "\n" + sender_sig + "\n" + recipient_sig)
 * starting from the empty string, so a later batch extends it. verify-chain recomputes it over the archive:
 * `matched`, or `mismatch` when an archived row was altered, added or removed.
 */
import { createHash } from 'node:crypto';
import type { CheckpointStatus } from './api.js';
import type { LedgerCore } from './core.js';
import type { ArchivableRow } from './store/archive.js';

export const fold = (digest: string, r: ArchivableRow): string =>
  createHash('sha256').update(`${digest}\n${r.txid}\n${r.content ?? ''}\n${r.senderSignature ?? ''}\n${r.recipientSignature ?? ''}`).digest('hex');

/** The chain's archive against its checkpoint: none archived, matched, or mismatch. */
export function checkpointStatus(core: LedgerCore, contactHash: string, currency: string): CheckpointStatus {
  const checkpoint = core.store.archive.checkpoint(contactHash, currency);
  const rows = core.store.archive.rows(contactHash, currency);
  if (!checkpoint) return rows.length ? 'mismatch' : 'none';
  return rows.length === checkpoint.archived && rows.reduce(fold, '') === checkpoint.digest ? 'matched' : 'mismatch';
}
