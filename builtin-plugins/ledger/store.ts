/**
 * The ledger plugin's tables and queries. Nothing else reads them: other plugins go through the `ledger` service.
 *
 * The tables and their migrations are in store/tables.ts; the queries are grouped by what they serve, one part each:
 * a transaction's own row, chain entries, balances, the fees earned relaying, the send queue, listings, exports and the
 * archive.
 */
import type { Database } from 'better-sqlite3';
import { PreparedStatements } from '../../sdk/index.js';
import { Archive } from './store/archive.js';
import { Balances } from './store/balances.js';
import { Chains } from './store/chains.js';
import { Exports } from './store/exports.js';
import { FeeTotals } from './store/fees.js';
import { Listings } from './store/listings.js';
import { QueueRows } from './store/queue.js';
import { Transactions } from './store/transactions.js';

export class LedgerStore {
  readonly transactions: Transactions;
  readonly fees: FeeTotals;
  readonly chains: Chains;
  readonly balances: Balances;
  readonly queue: QueueRows;
  readonly listings: Listings;
  readonly exports: Exports;
  readonly archive: Archive;

  constructor(db: Database) {
    // One cache for the statements the parts prepare on first use (some build their SQL at run time).
    const statements = new PreparedStatements(db);
    this.fees = new FeeTotals(db);
    this.transactions = new Transactions(db, this.fees);
    this.balances = new Balances(db, statements);
    this.chains = new Chains(db, statements, this.balances, this.fees);
    this.queue = new QueueRows(db, statements);
    this.listings = new Listings(statements);
    this.exports = new Exports(statements);
    this.archive = new Archive(statements);
  }
}
