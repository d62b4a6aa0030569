/**
 * A ledger row's place (seq) when the newest row has moved to the archive (a row that settled before an older one is
 * no chain head, so archival may take it): after every row, live or archived, so that seq names one row and the row
 * moves to the archive in its turn. Over real SQLite.
 */
import { describe, expect, it } from 'vitest';
import { LedgerStore } from '../../../builtin-plugins/ledger/store.js';
import { migrations } from '../../../builtin-plugins/ledger/store/tables.js';
import { migratedDatabase } from '../../support/db.js';
import { BOB, newTx } from './rows.js';

const insert = (store: LedgerStore, txid: string, n: number) => store.transactions.insert(newTx(txid, n));

describe('a row inserted after the newest row moved to the archive', () => {
  it('takes a place after every row, live or archived, and moves to the archive in its turn', () => {
    const db = migratedDatabase(migrations);
    const store = new LedgerStore(db);
    // Our payment is signed first; the contact's, inserted after it, settles first: the newest row is not the head.
    const ours = insert(store, 'ours', 1);
    const theirs = insert(store, 'theirs', 2);
    store.chains.complete(theirs, 3);
    store.chains.complete(ours, 4);
    const archivable = store.archive.archivable(BOB, 'vwl', Number.MAX_SAFE_INTEGER, 10);
    expect(archivable.map((r) => r.txid)).toEqual(['theirs']);
    store.archive.move([theirs.seq]);

    const next = insert(store, 'next', 5);
    expect(next.seq).toBeGreaterThan(theirs.seq);
    store.chains.complete(next, 6);
    store.archive.move(store.archive.archivable(BOB, 'vwl', Number.MAX_SAFE_INTEGER, 10).map((r) => r.seq));
    const seqs = db.prepare('SELECT seq FROM ledger_tx_all ORDER BY seq').pluck().all();
    expect(seqs).toEqual([ours.seq, theirs.seq, next.seq].sort((a, b) => a - b));
    expect(store.listings.list({ limit: 2, offset: 0 }).rows.map((r) => r.txid)).toEqual(['next', 'theirs']);
  });
});
