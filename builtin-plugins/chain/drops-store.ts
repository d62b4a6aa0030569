import type { Migration, PluginDb } from '../../sdk/index.js';

export type DropStatus = 'pending' | 'accepted' | 'rejected' | 'expired' | 'failed';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE chain_drop_proposals (
        proposal_id TEXT PRIMARY KEY,
        contact_hash TEXT NOT NULL,
        currency TEXT NOT NULL,
        direction TEXT NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected', 'expired', 'failed')),
        missing_txid TEXT NOT NULL,
        broken_txid TEXT NOT NULL,
        before_txid TEXT,
        reason TEXT,
        -- 1 while a rejection blocks the chain (until the gap is filled or a later drop of it is accepted)
        blocking INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX chain_drop_contact ON chain_drop_proposals (contact_hash, status);
    `,
  },
  {
    // A proposal may re-link a fork (two settled rows on one previous transaction) instead of dropping a gap: nothing
    // is dropped then, and missing_txid names the row re-linked.
    version: 2,
    up: `ALTER TABLE chain_drop_proposals ADD COLUMN kind TEXT NOT NULL DEFAULT 'gap' CHECK (kind IN ('gap', 'fork'));`,
  },
];

/** `gap`: drop the missing run before `broken`; `fork`: re-link `broken`, one of two rows on the same previous one. */
export type DropKind = 'gap' | 'fork';

export interface Proposal {
  proposalId: string;
  kind: DropKind;
  contactHash: string;
  currency: string;
  direction: 'incoming' | 'outgoing';
  status: DropStatus;
  missingTxid: string;
  brokenTxid: string;
  /** The settled row before the gap: what the broken row is re-linked onto (null: the start of the chain). */
  beforeTxid: string | null;
  reason: string | null;
  /** A rejection that blocks the chain with the contact until the gap is resolved. */
  blocking: boolean;
  createdAt: number;
  expiresAt: number;
}

interface Raw {
  proposal_id: string;
  kind: DropKind;
  contact_hash: string;
  currency: string;
  direction: 'incoming' | 'outgoing';
  status: DropStatus;
  missing_txid: string;
  broken_txid: string;
  before_txid: string | null;
  reason: string | null;
  blocking: number;
  created_at: number;
  expires_at: number;
}

const toProposal = (r: Raw): Proposal => ({
  proposalId: r.proposal_id,
  kind: r.kind,
  contactHash: r.contact_hash,
  currency: r.currency,
  direction: r.direction,
  status: r.status,
  missingTxid: r.missing_txid,
  brokenTxid: r.broken_txid,
  beforeTxid: r.before_txid,
  reason: r.reason,
  blocking: r.blocking === 1,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** The tx-drop proposals this node made or received. Expiry is applied as rows are read (no timer needed). */
export class DropStore {
  constructor(
    private readonly db: PluginDb,
    private readonly now: () => number,
  ) {}

  insert(p: Omit<Proposal, 'status' | 'reason' | 'blocking'>): Proposal {
    this.db.handle
      .prepare(
        `INSERT INTO chain_drop_proposals (proposal_id, kind, contact_hash, currency, direction, status, missing_txid, broken_txid, before_txid,
           created_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      )
      .run(p.proposalId, p.kind, p.contactHash, p.currency, p.direction, p.missingTxid, p.brokenTxid, p.beforeTxid, p.createdAt, p.expiresAt, p.createdAt);
    return this.get(p.proposalId)!;
  }

  get(id: string): Proposal | null {
    this.#expire();
    const r = this.db.handle.prepare('SELECT * FROM chain_drop_proposals WHERE proposal_id = ?').get(id) as Raw | undefined;
    return r ? toProposal(r) : null;
  }

  /** Every proposal with the contact, any status; without one, the incoming proposals waiting for an answer. */
  list(contactHash: string | null): Proposal[] {
    this.#expire();
    const rows = contactHash
      ? this.db.handle.prepare('SELECT * FROM chain_drop_proposals WHERE contact_hash = ? ORDER BY created_at DESC').all(contactHash)
      : this.db.handle.prepare(`SELECT * FROM chain_drop_proposals WHERE direction = 'incoming' AND status = 'pending' ORDER BY created_at DESC`).all();
    return (rows as Raw[]).map(toProposal);
  }

  /** The pending proposal for this gap, either way, if any. */
  activeFor(contactHash: string, missingTxid: string): Proposal | null {
    this.#expire();
    const r = this.db.handle
      .prepare(`SELECT * FROM chain_drop_proposals WHERE contact_hash = ? AND missing_txid = ? AND status = 'pending'`)
      .get(contactHash, missingTxid) as Raw | undefined;
    return r ? toProposal(r) : null;
  }

  settle(id: string, status: Exclude<DropStatus, 'pending'>, reason: string | null = null, blocking = false): void {
    this.db.handle
      .prepare('UPDATE chain_drop_proposals SET status = ?, reason = ?, blocking = ?, updated_at = ? WHERE proposal_id = ?')
      .run(status, reason, blocking ? 1 : 0, this.now(), id);
  }

  /** The other pending proposals for a gap just dropped: the agreement on one of them settled them too. */
  supersede(contactHash: string, missingTxid: string): void {
    this.db.handle
      .prepare(`UPDATE chain_drop_proposals SET status = 'rejected', reason = 'superseded', updated_at = ? WHERE contact_hash = ? AND missing_txid = ? AND status = 'pending'`)
      .run(this.now(), contactHash, missingTxid);
  }

  /** Every rejection that blocks a chain now. */
  blocking(): Proposal[] {
    return (this.db.handle.prepare('SELECT * FROM chain_drop_proposals WHERE blocking = 1').all() as Raw[]).map(toProposal);
  }

  /** The chain with the contact is open again (its gap was filled or dropped). */
  unblock(contactHash: string, currency: string): void {
    this.db.handle
      .prepare('UPDATE chain_drop_proposals SET blocking = 0, updated_at = ? WHERE contact_hash = ? AND currency = ? COLLATE NOCASE AND blocking = 1')
      .run(this.now(), contactHash, currency);
  }

  #expire(): void {
    this.db.handle.prepare(`UPDATE chain_drop_proposals SET status = 'expired', updated_at = ? WHERE status = 'pending' AND expires_at <= ?`).run(this.now(), this.now());
  }
}
