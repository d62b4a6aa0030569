/**
 * The fees earned relaying, kept per currency in ledger_fee_totals (tables.ts, version 7). A route's fee counts once
 * both of this node's legs of it (its two `relay` rows, live or archived) are completed: what came in minus what went
 * out. Around every write that can change that (a relay leg inserted, or its status changed to or from `completed`)
 * the route's share is taken out before and put back after, so a route counts exactly while it qualifies. Archival
 * moves legs from one table to the other and changes no share. Only relay legs pay for this: a direct payment's
 * writes never touch the table (a table or a trigger written at every payment costs each commit a page).
 */
import type { Database, Statement } from 'better-sqlite3';
import { fromParts, type Minor } from '../../../sdk/money.js';
import { MEMO_STANDARD } from '../content.js';
import type { TxStatus } from '../api.js';

/** What the fee totals need to know of a leg being written. */
export interface FeeLeg {
  relay: boolean;
  memo: string;
}

export class FeeTotals {
  readonly #share: Statement;
  readonly #read: Statement;

  constructor(db: Database) {
    // Each table on its own: an aggregate over the view ledger_tx_all reads every row of both (SQLite pushes no WHERE
    // into it), where these find the route's legs through the memo indexes.
    const legs = (table: string, more = ''): string => `FROM ${table} WHERE memo = @memo AND memo <> 'standard' AND relay = 1${more}`;
    const count = (more = ''): string => `(SELECT COUNT(*) ${legs('ledger_tx', more)}) + (SELECT COUNT(*) ${legs('ledger_tx_archive', more)})`;
    const columns = 'SELECT type, currency, currency_key, amount_whole, amount_frac';
    this.#share = db.prepare(`
      INSERT INTO ledger_fee_totals (currency_key, currency, routes, whole, frac)
        SELECT currency_key, MIN(currency), @sign, @sign * SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END),
          @sign * SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END)
        FROM (${columns} ${legs('ledger_tx')} UNION ALL ${columns} ${legs('ledger_tx_archive')}) GROUP BY currency_key
        HAVING ${count()} = 2 AND ${count(" AND status = 'completed'")} = 2
        ON CONFLICT (currency_key) DO UPDATE SET routes = routes + excluded.routes, whole = whole + excluded.whole, frac = frac + excluded.frac`);
    this.#read = db.prepare('SELECT currency, whole AS w, frac AS f FROM ledger_fee_totals WHERE routes > 0').safeIntegers(true);
  }

  /** Runs `write` (a leg inserted), the leg's route counted anew around it. Call inside a transaction. */
  around<T>(leg: FeeLeg, write: () => T): T {
    if (!leg.relay || leg.memo === MEMO_STANDARD) return write();
    this.#share.run({ memo: leg.memo, sign: -1 });
    const result = write();
    this.#share.run({ memo: leg.memo, sign: 1 });
    return result;
  }

  /** Runs `write` (the leg's status, as it stands, changed to `to`), the route counted anew if its completion changes. */
  aroundStatus<T>(leg: FeeLeg & { status: TxStatus }, to: TxStatus | undefined, write: () => T): T {
    return to !== undefined && (leg.status === 'completed') !== (to === 'completed') ? this.around(leg, write) : write();
  }

  /** Per currency, for the routes that count. */
  read(): Record<string, Minor> {
    const rows = this.#read.all() as { currency: string; w: bigint; f: bigint }[];
    return Object.fromEntries(rows.map((r) => [r.currency, fromParts(r.w, r.f)]));
  }
}
