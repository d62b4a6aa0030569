/**
 * The totals of each line (contact and currency): the running balances kept as rows complete, their rebuild from the
 * completed rows, and what locked legs and legs settled ahead of their chain entries add to a contact's debt.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { PreparedStatements } from '../../../sdk/index.js';
import { fromParts, toParts, type Minor } from '../../../sdk/money.js';
import type { BalanceRecord } from '../api.js';
import { currencyKey } from './rows.js';

export class Balances {
  readonly #balanceGet: Statement;
  readonly #balanceUpsert: Statement;
  readonly #balancesAll: Statement;
  readonly #balancesOne: Statement;

  constructor(
    db: Database,
    private readonly statements: PreparedStatements,
  ) {
    this.#balanceGet = db.prepare('SELECT * FROM ledger_balances WHERE contact_hash = ? AND currency_key = ?').safeIntegers(true);
    this.#balanceUpsert = db.prepare(`INSERT INTO ledger_balances (contact_hash, currency_key, currency, received_whole, received_frac,
        sent_whole, sent_frac, updated_at) VALUES (@contact_hash, @currency_key, @currency, @rw, @rf, @sw, @sf, @now)
      ON CONFLICT (contact_hash, currency_key) DO UPDATE SET received_whole = @rw, received_frac = @rf, sent_whole = @sw, sent_frac = @sf,
        updated_at = @now`);
    this.#balancesAll = db.prepare('SELECT * FROM ledger_balances ORDER BY contact_hash, currency_key').safeIntegers(true);
    this.#balancesOne = db.prepare('SELECT * FROM ledger_balances WHERE contact_hash = ? ORDER BY currency_key').safeIntegers(true);
  }

  of(contactHash: string, currency: string): { received: Minor; sent: Minor } {
    const r = this.#balanceGet.get(contactHash, currencyKey(currency)) as
      | { received_whole: bigint; received_frac: bigint; sent_whole: bigint; sent_frac: bigint }
      | undefined;
    if (!r) return { received: 0n, sent: 0n };
    return { received: fromParts(r.received_whole, r.received_frac), sent: fromParts(r.sent_whole, r.sent_frac) };
  }

  add(contactHash: string, currency: string, side: 'received' | 'sent', amount: Minor, now: number): void {
    const current = this.of(contactHash, currency);
    const next = { ...current, [side]: current[side] + amount };
    const r = toParts(next.received);
    const s = toParts(next.sent);
    this.#balanceUpsert.run({
      contact_hash: contactHash,
      currency_key: currencyKey(currency),
      currency,
      rw: r.whole,
      rf: r.frac,
      sw: s.whole,
      sf: s.frac,
      now,
    });
  }

  list(contactHash?: string): BalanceRecord[] {
    const rows = (contactHash ? this.#balancesOne.all(contactHash) : this.#balancesAll.all()) as {
      contact_hash: string;
      currency: string;
      received_whole: bigint;
      received_frac: bigint;
      sent_whole: bigint;
      sent_frac: bigint;
    }[];
    return rows.map((r) => ({
      contactHash: r.contact_hash,
      currency: r.currency,
      received: fromParts(r.received_whole, r.received_frac),
      sent: fromParts(r.sent_whole, r.sent_frac),
    }));
  }

  /**
   * Recomputes every balance row from the completed transactions (the totals are kept incrementally; this is the
   * audit). Returns the rows that differed, with what they held and what they hold now. Call inside a transaction.
   */
  /** Recomputes the stored totals from the completed rows: of every chain, or of one (`only`). Returns what changed. */
  rebuild(
    now: number,
    only?: { contactHash: string; currency: string },
  ): { contactHash: string; currency: string; before: { received: Minor; sent: Minor }; after: { received: Minor; sent: Minor } }[] {
    const where = only ? `AND contact_hash = ? AND currency_key = ?` : '';
    const sums = this.statements.get(
      `SELECT contact_hash, currency_key, MIN(currency) AS currency, type, SUM(amount_whole) AS w, SUM(amount_frac) AS f
         FROM ledger_tx_all WHERE status = 'completed' ${where} GROUP BY contact_hash, currency_key, type`,
      true,
    ).all(...(only ? [only.contactHash, currencyKey(only.currency)] : [])) as { contact_hash: string; currency_key: string; currency: string; type: string; w: bigint; f: bigint }[];
    const want = new Map<string, { contactHash: string; currency: string; received: Minor; sent: Minor }>();
    for (const r of sums) {
      const key = `${r.contact_hash}:${r.currency_key}`;
      const entry = want.get(key) ?? { contactHash: r.contact_hash, currency: r.currency, received: 0n, sent: 0n };
      const total = fromParts(r.w, 0n) + r.f;
      if (r.type === 'received') entry.received += total;
      else if (r.type === 'sent') entry.sent += total;
      want.set(key, entry);
    }
    const changed = [];
    for (const b of this.list(only?.contactHash)) {
      if (only && currencyKey(b.currency) !== currencyKey(only.currency)) continue;
      const key = `${b.contactHash}:${currencyKey(b.currency)}`;
      if (!want.has(key)) want.set(key, { contactHash: b.contactHash, currency: b.currency, received: 0n, sent: 0n });
    }
    for (const w of want.values()) {
      const before = this.of(w.contactHash, w.currency);
      if (before.received === w.received && before.sent === w.sent) continue;
      const r = toParts(w.received);
      const s = toParts(w.sent);
      this.#balanceUpsert.run({ contact_hash: w.contactHash, currency_key: currencyKey(w.currency), currency: w.currency, rw: r.whole, rf: r.frac, sw: s.whole, sf: s.frac, now });
      changed.push({ contactHash: w.contactHash, currency: w.currency, before, after: { received: w.received, sent: w.sent } });
    }
    return changed;
  }

  /** What locked legs from a contact add to its debt here: incoming legs accepted (locked) and not yet settled. */
  lockedIncoming(contactHash: string, currency: string): Minor {
    const r = this.statements.get(
      `SELECT SUM(amount_whole) AS w, SUM(amount_frac) AS f FROM ledger_tx INDEXED BY ledger_tx_locks
         WHERE contact_hash = ? AND currency_key = ? AND status = 'accepted' AND lock_condition IS NOT NULL AND type = 'received'`,
      true,
    ).get(contactHash, currencyKey(currency)) as { w: bigint | null; f: bigint | null };
    return fromParts(r.w ?? 0n, r.f ?? 0n);
  }

  /** What the legs received from the contact and completed here, still without their chain entries, add up to. */
  settledAwaitingEntry(contactHash: string, currency: string): Minor {
    const r = this.statements.get(
      `SELECT SUM(amount_whole) AS w, SUM(amount_frac) AS f FROM ledger_tx
         WHERE contact_hash = ? AND currency_key = ? AND status = 'completed' AND chain_pos IS NULL AND type = 'received'`,
      true,
    ).get(contactHash, currencyKey(currency)) as { w: bigint | null; f: bigint | null };
    return fromParts(r.w ?? 0n, r.f ?? 0n);
  }
}
