/**
 * What the service lists and reports: the filtered transaction listing, a routed payment's legs, counts by status,
 * the fees earned relaying, and the activity totals of usage statistics.
 */
import { likeLiteral, type PreparedStatements } from '../../../sdk/index.js';
import { fromParts, type Minor } from '../../../sdk/money.js';
import type { LedgerActivity, TxDirection, TxFilter } from '../api.js';
import { currencyKey, toRow, type RawRow, type TxRow } from './rows.js';

export class Listings {
  constructor(private readonly statements: PreparedStatements) {}

  list(f: TxFilter): { rows: TxRow[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.type === 'relay') where.push('relay = 1');
    else if (f.type) {
      where.push('type = ? AND relay = 0');
      params.push(f.type);
    }
    if (f.contactHash) {
      where.push('contact_hash = ?');
      params.push(f.contactHash);
    }
    if (f.status) {
      where.push('status = ?');
      params.push(f.status);
    }
    if (f.currency) {
      where.push('currency_key = ?');
      params.push(currencyKey(f.currency));
    }
    if (f.search) {
      where.push(`description LIKE ? ESCAPE '\\'`);
      params.push(`%${likeLiteral(f.search)}%`);
    }
    if (f.txidPrefix) {
      where.push(`txid LIKE ? ESCAPE '\\'`);
      params.push(`${likeLiteral(f.txidPrefix)}%`);
    }
    // Amounts are positive: whole * 1e8 + frac is the amount in minor units, well inside SQLite's 64-bit integers.
    if (f.amountMin !== undefined) {
      where.push('amount_whole * 100000000 + amount_frac >= ?');
      params.push(f.amountMin);
    }
    if (f.amountMax !== undefined) {
      where.push('amount_whole * 100000000 + amount_frac <= ?');
      params.push(f.amountMax);
    }
    if (f.from !== undefined) {
      where.push('created_at >= ?');
      params.push(f.from);
    }
    if (f.to !== undefined) {
      where.push('created_at < ?');
      params.push(f.to);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const dir = f.order === 'asc' ? 'ASC' : 'DESC';
    const order = f.sort === 'amount' ? `amount_whole ${dir}, amount_frac ${dir}, seq DESC` : `seq ${dir}`;
    const total = (this.statements.get(`SELECT COUNT(*) AS n FROM ledger_tx_all ${clause}`).get(...params) as { n: number }).n;
    const rows = this.statements
      .get(`SELECT * FROM ledger_tx_all ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`, true)
      .all(...params, f.limit, f.offset) as RawRow[];
    return { rows: rows.map(toRow), total };
  }

  /** This node's legs of one routed payment (memo = the route hash), oldest first. */
  legsOf(routeHash: string): TxRow[] {
    const rows = this.statements.get(`SELECT * FROM ledger_tx_all WHERE memo = ? AND memo <> 'standard' ORDER BY seq`, true).all(routeHash) as RawRow[];
    return rows.map(toRow);
  }

  counts(): Record<string, number> {
    const rows = this.statements.get(`SELECT status, COUNT(*) AS n FROM ledger_tx GROUP BY status`).all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /**
   * The same fees per UTC day (the day the later leg completed) and currency, oldest first, `completedAt` within
   * [from, to); `total` counts the groups.
   */
  feeEarningsByDay(f: { from?: number; to?: number; limit: number; offset: number }): { rows: { day: string; currency: string; amount: Minor }[]; total: number } {
    const routes = `SELECT MIN(currency) AS currency, currency_key, MAX(completed_at) AS at,
        SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END) AS w,
        SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END) AS f
      FROM ledger_tx_all WHERE relay = 1 AND memo <> 'standard'
      GROUP BY memo HAVING COUNT(*) = 2 AND SUM(status = 'completed') = 2`;
    const days = `SELECT date(at / 1000, 'unixepoch') AS day, MIN(currency) AS currency, SUM(w) AS w, SUM(f) AS f FROM (${routes})
      WHERE at >= ? AND at < ? GROUP BY day, currency_key`;
    const range = [f.from ?? 0, f.to ?? Number.MAX_SAFE_INTEGER];
    const total = (this.statements.get(`SELECT COUNT(*) AS n FROM (${days})`).get(...range) as { n: number }).n;
    const rows = this.statements
      .get(`${days} ORDER BY day, currency LIMIT ? OFFSET ?`, true)
      .all(...range, f.limit, f.offset) as { day: string; currency: string; w: bigint; f: bigint }[];
    return { rows: rows.map((r) => ({ day: r.day, currency: r.currency, amount: fromParts(r.w, r.f) })), total };
  }

  /** Completed rows whose completion falls in [from, to): totals per currency and direction, and the UTC days seen. */
  activity(from: number, to: number): LedgerActivity {
    // A relay's payment is counted once, by the leg it was paid (its outgoing leg is the same payment passed on).
    const totals = this.statements.get(
      `SELECT MIN(currency) AS currency, CASE WHEN relay = 1 THEN 'relay' ELSE type END AS type, COUNT(*) AS n, SUM(amount_whole) AS whole,
         SUM(amount_frac) AS frac FROM ledger_tx_all WHERE status = 'completed' AND completed_at >= ? AND completed_at < ?
         AND NOT (relay = 1 AND type = 'sent') GROUP BY currency_key, 2`,
      true,
    ).all(from, to) as { currency: string; type: TxDirection; n: bigint; whole: bigint; frac: bigint }[];
    const days = this.statements.get(
      `SELECT DISTINCT date(completed_at / 1000, 'unixepoch') AS day FROM ledger_tx_all
         WHERE status = 'completed' AND completed_at >= ? AND completed_at < ? ORDER BY day`,
    ).all(from, to) as { day: string }[];
    return {
      totals: totals.map((r) => ({ currency: r.currency, type: r.type, count: Number(r.n), amount: fromParts(r.whole, r.frac) })),
      days: days.map((d) => d.day),
    };
  }
}
