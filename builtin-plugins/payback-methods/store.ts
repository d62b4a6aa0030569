/**
 * The plugin's tables. Field values are stored only as ciphertext (crypto.ts); labels, types, currencies and
 * the settlement precision are not secret (Document 1) and stay readable for listing and filtering.
 *
 *   payback_methods    this node's methods. `settlement_min_unit_exponent` is the power of ten of the smallest
 *                      settleable amount (cents: -2), fixed at creation like type and currency.
 *   payback_received   the methods contacts shared with us through `payback.fetch`, per contact key hash, as
 *                      of the last fetch (`fetched_at`); `position` keeps the order the contact sent them in.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Migration } from '../../sdk/index.js';
import type { SharePolicy } from './validate.js';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE payback_methods (
        method_id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        currency TEXT NOT NULL,
        fields_enc TEXT NOT NULL,
        settlement_min_unit INTEGER NOT NULL,
        settlement_min_unit_exponent INTEGER NOT NULL,
        priority INTEGER NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        share_policy TEXT NOT NULL DEFAULT 'auto' CHECK (share_policy IN ('auto', 'never')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX payback_methods_order ON payback_methods (priority, created_at);
      CREATE TABLE payback_received (
        contact_hash TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        currency TEXT NOT NULL,
        priority INTEGER NOT NULL,
        fields_enc TEXT NOT NULL,
        settlement_min_unit INTEGER NOT NULL,
        settlement_min_unit_exponent INTEGER NOT NULL,
        fetched_at TEXT NOT NULL,
        PRIMARY KEY (contact_hash, remote_id)
      );
    `,
  },
];

export interface MethodRow {
  method_id: string;
  type: string;
  label: string;
  currency: string;
  fields_enc: string;
  settlement_min_unit: number;
  settlement_min_unit_exponent: number;
  priority: number;
  enabled: boolean;
  share_policy: SharePolicy;
  created_at: string;
  updated_at: string;
}

export interface ReceivedRow {
  contact_hash: string;
  remote_id: string;
  position: number;
  type: string;
  label: string;
  currency: string;
  priority: number;
  fields_enc: string;
  settlement_min_unit: number;
  settlement_min_unit_exponent: number;
  fetched_at: string;
}

type RawMethod = Omit<MethodRow, 'enabled'> & { enabled: number };

const ORDER = 'ORDER BY priority ASC, created_at DESC, rowid DESC';

const toMethod = (r: RawMethod | undefined): MethodRow | null => (r ? { ...r, enabled: r.enabled === 1 } : null);

export type MethodChanges = Partial<Pick<MethodRow, 'label' | 'priority' | 'enabled' | 'share_policy' | 'fields_enc' | 'updated_at'>>;

export class PaybackStore {
  readonly #get: Statement;
  readonly #insert: Statement;
  readonly #delete: Statement;
  readonly #receivedFor: Statement;
  readonly #receivedInsert: Statement;

  constructor(private readonly db: Database) {
    this.#get = db.prepare('SELECT * FROM payback_methods WHERE method_id = ?');
    this.#insert = db.prepare(`
      INSERT INTO payback_methods (method_id, type, label, currency, fields_enc, settlement_min_unit,
        settlement_min_unit_exponent, priority, enabled, share_policy, created_at, updated_at)
      VALUES (@method_id, @type, @label, @currency, @fields_enc, @settlement_min_unit,
        @settlement_min_unit_exponent, @priority, @enabled, @share_policy, @created_at, @updated_at)`);
    this.#delete = db.prepare('DELETE FROM payback_methods WHERE method_id = ?');
    this.#receivedFor = db.prepare('SELECT * FROM payback_received WHERE contact_hash = ? ORDER BY position ASC');
    this.#receivedInsert = db.prepare(`
      INSERT OR REPLACE INTO payback_received (contact_hash, remote_id, position, type, label, currency, priority,
        fields_enc, settlement_min_unit, settlement_min_unit_exponent, fetched_at)
      VALUES (@contact_hash, @remote_id, @position, @type, @label, @currency, @priority, @fields_enc,
        @settlement_min_unit, @settlement_min_unit_exponent, @fetched_at)`);
  }

  get(methodId: string): MethodRow | null {
    return toMethod(this.#get.get(methodId) as RawMethod | undefined);
  }

  /** Ordered by priority ascending, then newest first. `currency` matches case-insensitively. */
  list(options: { currency?: string; includeDisabled: boolean; sharedOnly?: boolean }): MethodRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (!options.includeDisabled) where.push('enabled = 1');
    if (options.sharedOnly) where.push("share_policy = 'auto'");
    if (options.currency !== undefined) {
      where.push('lower(currency) = lower(?)');
      args.push(options.currency);
    }
    const sql = `SELECT * FROM payback_methods ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${ORDER}`;
    return (this.db.prepare(sql).all(...args) as RawMethod[]).map((r) => toMethod(r)!);
  }

  insert(row: MethodRow): void {
    this.#insert.run({ ...row, enabled: row.enabled ? 1 : 0 });
  }

  update(methodId: string, changes: MethodChanges): void {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    const sets = entries.map(([k]) => `${k} = @${k}`).join(', ');
    const values: Record<string, unknown> = { method_id: methodId };
    for (const [k, v] of entries) values[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    this.db.prepare(`UPDATE payback_methods SET ${sets} WHERE method_id = @method_id`).run(values);
  }

  delete(methodId: string): boolean {
    return this.#delete.run(methodId).changes > 0;
  }

  count(): { total: number; enabled: number; shared: number } {
    return this.db
      .prepare(
        `SELECT count(*) AS total, coalesce(sum(enabled), 0) AS enabled,
          coalesce(sum(CASE WHEN enabled = 1 AND share_policy = 'auto' THEN 1 ELSE 0 END), 0) AS shared FROM payback_methods`,
      )
      .get() as { total: number; enabled: number; shared: number };
  }

  received(contactHash: string): ReceivedRow[] {
    return this.#receivedFor.all(contactHash) as ReceivedRow[];
  }

  /**
   * Replaces what we hold from a contact with what it just sent (all of it, or one currency's worth when the
   * fetch asked for one currency): methods it stopped sharing disappear.
   */
  replaceReceived(contactHash: string, currency: string | null, rows: readonly ReceivedRow[]): void {
    if (currency === null) this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ?').run(contactHash);
    else this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ? AND lower(currency) = lower(?)').run(contactHash, currency);
    for (const row of rows) this.#receivedInsert.run(row);
  }

  forgetContact(contactHash: string): number {
    return this.db.prepare('DELETE FROM payback_received WHERE contact_hash = ?').run(contactHash).changes;
  }

  receivedCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM payback_received').get() as { n: number }).n;
  }
}
