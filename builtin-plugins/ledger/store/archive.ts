/**
 * The archive's side of archival (../archive.ts): which settled rows may move, the move itself, the archived rows of a
 * chain, and its checkpoint.
 */
import type { PreparedStatements } from '../../../sdk/index.js';
import { CHAINED } from './chains.js';
import { currencyKey } from './rows.js';

/** A settled row as archival moves and digests it. */
export interface ArchivableRow {
  seq: number;
  txid: string;
  content: string | null;
  senderSignature: string | null;
  recipientSignature: string | null;
  pos: number;
}

/** How many rows of a chain are archived, the digest over them in chain order, and the last one's chain position. */
export interface ArchiveCheckpoint {
  archived: number;
  digest: string;
  lastPos: number;
}

export class Archive {
  constructor(private readonly statements: PreparedStatements) {}

  /**
   * The oldest settled rows of a chain that may move to the archive: a prefix of the live chain in chain order, each
   * completed before `olderThan`, at most `limit`, never the chain head (the next payment links to it).
   */
  archivable(contactHash: string, currencyKeyValue: string, olderThan: number, limit: number): ArchivableRow[] {
    const rows = this.statements.get(
      `SELECT seq, txid, content, sender_sig AS senderSignature, recipient_sig AS recipientSignature, chain_pos AS pos, completed_at AS completedAt
         FROM ledger_tx WHERE contact_hash = ? AND currency_key = ? AND ${CHAINED} ORDER BY chain_pos LIMIT ?`,
    ).all(contactHash, currencyKeyValue, limit + 1) as (ArchivableRow & { completedAt: number })[];
    const isHead = (i: number): boolean => i === rows.length - 1 && rows.length <= limit;
    const out: ArchivableRow[] = [];
    for (let i = 0; i < rows.length && out.length < limit && !isHead(i) && rows[i]!.completedAt < olderThan; i++) {
      const { completedAt: _at, ...row } = rows[i]!;
      out.push(row);
    }
    return out;
  }

  /** Moves live rows to the archive as they are (call inside a transaction). */
  move(seqs: readonly number[]): void {
    const copy = this.statements.get('INSERT INTO ledger_tx_archive SELECT * FROM ledger_tx WHERE seq = ?');
    const remove = this.statements.get('DELETE FROM ledger_tx WHERE seq = ?');
    for (const seq of seqs) {
      copy.run(seq);
      remove.run(seq);
    }
  }

  /** The archived rows of a chain in chain order: what its checkpoint digests. */
  rows(contactHash: string, currency: string): ArchivableRow[] {
    return this.statements.get(
      `SELECT seq, txid, content, sender_sig AS senderSignature, recipient_sig AS recipientSignature, chain_pos AS pos
         FROM ledger_tx_archive WHERE contact_hash = ? AND currency_key = ? ORDER BY chain_pos`,
    ).all(contactHash, currencyKey(currency)) as ArchivableRow[];
  }

  checkpoint(contactHash: string, currency: string): ArchiveCheckpoint | null {
    return (
      (this.statements.get('SELECT archived, digest, last_pos AS lastPos FROM ledger_archive_checkpoints WHERE contact_hash = ? AND currency_key = ?').get(
        contactHash,
        currencyKey(currency),
      ) as ArchiveCheckpoint | undefined) ?? null
    );
  }

  putCheckpoint(contactHash: string, currency: string, c: ArchiveCheckpoint, now: number): void {
    this.statements.get(
      `INSERT INTO ledger_archive_checkpoints (contact_hash, currency_key, currency, archived, digest, last_pos, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (contact_hash, currency_key) DO UPDATE SET archived = excluded.archived, digest = excluded.digest, last_pos = excluded.last_pos,
         updated_at = excluded.updated_at`,
    ).run(contactHash, currencyKey(currency), currency, c.archived, c.digest, c.lastPos, now);
  }
}
