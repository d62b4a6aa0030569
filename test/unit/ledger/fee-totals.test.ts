/**
 * The fees earned relaying, as the ledger keeps them (store/fees.ts), against the sum over every relayed leg that
 * `feeEarnings` used to read: after every step of seeded random histories (routes opened, legs completed by a patch or
 * by the chain, released, archived, a third leg on a route, a completion taken back), over real SQLite through the
 * store's own writes, and from a ledger that held routes before the migration.
 */
import { describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { fromParts, type Minor } from '../../../sdk/money.js';
import { LedgerStore } from '../../../builtin-plugins/ledger/store.js';
import { migrations } from '../../../builtin-plugins/ledger/store/tables.js';
import { migratedDatabase } from '../../support/db.js';
import { BOB, ME, newTx } from './rows.js';

const CAROL = 'cc'.repeat(32);

/** What summing every relayed leg says: a route counts once both its legs here are completed. */
function summed(db: Database): Record<string, Minor> {
  const rows = db
    .prepare(
      `SELECT MIN(currency) AS currency, SUM(CASE WHEN type = 'received' THEN amount_whole ELSE -amount_whole END) AS w,
         SUM(CASE WHEN type = 'received' THEN amount_frac ELSE -amount_frac END) AS f
         FROM ledger_tx_all WHERE relay = 1 AND memo IN (
           SELECT memo FROM ledger_tx_all WHERE memo <> 'standard' AND relay = 1
           GROUP BY memo HAVING COUNT(*) = 2 AND SUM(status = 'completed') = 2)
         GROUP BY currency_key`,
    )
    .safeIntegers(true)
    .all() as { currency: string; w: bigint; f: bigint }[];
  return Object.fromEntries(rows.map((r) => [r.currency, fromParts(r.w, r.f)]));
}

/** A small deterministic generator (mulberry32): the same seed replays the same history. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function ledger(db: Database) {
  const store = new LedgerStore(db);
  let n = db.prepare('SELECT COUNT(*) FROM ledger_tx_all').pluck().get() as number;
  /** One of this node's legs of route `memo`: in from Bob (received) or out to Carol (sent). */
  const leg = (memo: string, type: 'sent' | 'received', amount: Minor, currency: string) =>
    store.transactions.insert(
      newTx(`t${++n}`, n, {
        type,
        status: type === 'sent' ? 'sent' : 'accepted',
        contactHash: type === 'sent' ? CAROL : BOB,
        fromHash: type === 'sent' ? ME : BOB,
        toHash: type === 'sent' ? CAROL : ME,
        amount,
        currency,
        memo,
        relay: true,
        condition: 'c'.repeat(43),
      }),
    );
  return { store, leg };
}

describe('the fees earned relaying, kept as routes complete', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`equal the sum over every relayed leg after each step of random history ${seed}`, () => {
      const db = migratedDatabase(migrations);
      const { store, leg } = ledger(db);
      const pick = random(seed);
      /** A live row matching `where`, picked at random, as the store reads it. */
      const live = (where: string) => {
        const txids = db.prepare(`SELECT txid FROM ledger_tx WHERE ${where} ORDER BY seq`).pluck().all() as string[];
        return txids.length ? store.transactions.get(txids[pick(txids.length)]!) : null;
      };
      let routes = 0;
      let qualified = 0;
      for (let step = 0; step < 400; step++) {
        const op = pick(10);
        if (op < 3 || routes === 0) {
          const memo = `route${++routes}`;
          const currency = pick(3) === 0 ? 'USD' : 'VWL';
          const amount = BigInt(1 + pick(5000)) * 1_000_000n + BigInt(pick(100_000_000));
          leg(memo, 'received', amount + BigInt(pick(20_000_000)), currency);
          leg(memo, 'sent', amount, currency);
        } else if (op < 7) {
          // A leg settles (as the send queue or the payee completes it) or is released.
          const row = live("status <> 'completed'");
          if (row && pick(6) === 0) store.transactions.patch(row, { status: 'cancelled' }, step);
          else if (row && pick(2) === 0) store.chains.complete(row, step);
          else if (row) store.transactions.patch(row, { status: 'completed' }, step);
        } else if (op < 9) {
          const row = live("status = 'completed'");
          if (row) store.archive.move([row.seq]);
        } else {
          // Rare in a node's life, kept exact all the same: a third leg on a route, or a completion taken back.
          const row = live("status = 'completed'");
          if (pick(2) === 0) leg(`route${1 + pick(routes)}`, 'sent', 1n, 'VWL');
          else if (row) store.transactions.patch(row, { status: 'failed' }, step);
        }
        const expected = summed(db);
        expect(store.fees.read(), `step ${step}`).toEqual(expected);
        if (Object.keys(expected).length > 0) qualified++;
      }
      // The histories did reach routes that count, most of the time.
      expect(qualified).toBeGreaterThan(200);
    });
  }

  it('start from the routes a ledger held before the migration that keeps them', () => {
    const db = migratedDatabase(migrations);
    const { store, leg } = ledger(db);
    const settled = (memo: string, fee: bigint) => {
      for (const row of [leg(memo, 'received', 100_000_000n + fee, 'VWL'), leg(memo, 'sent', 100_000_000n, 'VWL')]) {
        store.transactions.patch(row, { status: 'completed' }, 1);
      }
    };
    settled('r1', 1_250_000n);
    settled('r2', 500_000n);
    leg('r3', 'received', 7n, 'VWL');
    const archived = db.prepare("SELECT seq FROM ledger_tx WHERE memo = 'r1' LIMIT 1").pluck().get() as number;
    store.archive.move([archived]);

    // The ledger as it was before version 7, then the migration.
    db.exec('DROP TABLE ledger_fee_totals');
    const seven = migrations.find((m) => m.version === 7)!;
    if (typeof seven.up === 'string') db.exec(seven.up);
    const migrated = ledger(db);
    expect(migrated.store.fees.read()).toEqual({ VWL: 1_750_000n });
    for (const row of [migrated.leg('r4', 'received', 100_000_010n, 'VWL'), migrated.leg('r4', 'sent', 100_000_000n, 'VWL')]) {
      migrated.store.transactions.patch(row, { status: 'completed' }, 2);
    }
    expect(migrated.store.fees.read()).toEqual({ VWL: 1_750_010n });
    expect(migrated.store.fees.read()).toEqual(summed(db));
  });
});
