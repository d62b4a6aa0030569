/**
 * A chain's line (store/chains.ts `line`), over real SQLite: whether the settled rows form one unbroken line in chain
 * order, read from where the last check ended. The ping of every contact and the check after payments ask it, so its
 * cost must be the rows settled since, not the chain.
 */
import { describe, expect, it } from 'vitest';
import { LedgerStore } from '../../../builtin-plugins/ledger/store.js';
import { migrations } from '../../../builtin-plugins/ledger/store/tables.js';
import type { TxRow } from '../../../builtin-plugins/ledger/store/rows.js';
import { migratedDatabase } from '../../support/db.js';
import { BOB, newTx } from './rows.js';

function setup() {
  const db = migratedDatabase(migrations);
  const store = new LedgerStore(db);
  let n = 0;
  /** A payment to Bob settled at the end of the chain, linked onto `prev`. */
  const settle = (txid: string, prev: string | null, currency = 'VWL', chained = true): TxRow => {
    const row = store.transactions.insert(newTx(txid, ++n, { status: 'accepted', currency, prevTxid: prev }));
    if (chained) store.chains.complete(row, n);
    else store.chains.settle(row, n);
    return row;
  };
  const line = () => store.chains.line(BOB, 'vwl');
  return { db, store, settle, line };
}

describe('a chain read as one line', () => {
  it('is unbroken when empty and when each row links to the one before; its last row is the head', () => {
    const { settle, line } = setup();
    expect(line()).toEqual({ linear: true, head: null });
    settle('a', null);
    expect(line()).toEqual({ linear: true, head: { txid: 'a', prev: null } });
    settle('b', 'a');
    settle('c', 'b');
    expect(line()).toEqual({ linear: true, head: { txid: 'c', prev: 'b' } });
  });

  it('reads on from where the last check ended, and whole again after a restart', () => {
    const { db, settle, line } = setup();
    settle('a', null);
    settle('b', 'a');
    expect(line().linear).toBe(true);
    // Behind the store's back: a row of the prefix already checked is re-linked. A check reads only what settled since,
    // so it does not see it...
    db.prepare("UPDATE ledger_tx SET prev_txid = 'x' WHERE txid = 'b'").run();
    settle('c', 'b');
    expect(line()).toEqual({ linear: true, head: { txid: 'c', prev: 'b' } });
    // ...and a restarted node (a new store over the same database) reads the chain whole and does.
    expect(new LedgerStore(db).chains.line(BOB, 'VWL')).toEqual({ linear: false });
  });

  it('finds a row that does not extend the head, at every check until the chain is repaired', () => {
    const { store, settle, line } = setup();
    settle('a', null);
    settle('b', 'a');
    expect(line().linear).toBe(true);
    settle('c', 'a'); // a fork: b and c on a
    expect(line()).toEqual({ linear: false });
    expect(line()).toEqual({ linear: false });
    settle('d', 'c');
    expect(line()).toEqual({ linear: false });
    // Positions out of link order (rows that came back out of order) are put back by relinkChain, which forgets the line.
    const { store: other, settle: settleOther } = setup();
    settleOther('p', null);
    settleOther('r', 'q');
    settleOther('q', 'p');
    expect(other.chains.line(BOB, 'VWL')).toEqual({ linear: false });
    other.chains.relinkChain(BOB, 'VWL');
    expect(other.chains.line(BOB, 'VWL')).toEqual({ linear: true, head: { txid: 'r', prev: 'q' } });
    expect(store.chains.line(BOB, 'VWL').linear).toBe(false);
  });

  it('reads the chain whole again after a row of it is re-linked (a tx drop)', () => {
    const { store, settle, line } = setup();
    settle('a', null);
    settle('b', 'a');
    const c = settle('c', 'b');
    expect(line().linear).toBe(true);
    store.chains.relink(c.seq, 'a', '{}', 's', 'r', 9);
    expect(line()).toEqual({ linear: false });
  });

  it('reads a chain longer than one chunk to its end, wherever the break is', () => {
    const { db, settle, line } = setup();
    db.transaction(() => {
      let prev: string | null = null;
      for (let i = 0; i < 9000; i++) prev = settle(`t${i}`, prev).txid;
    })();
    expect(line()).toEqual({ linear: true, head: { txid: 't8999', prev: 't8998' } });
    const { db: broken, settle: settleBroken, line: lineBroken } = setup();
    broken.transaction(() => {
      let prev: string | null = null;
      // Row 8200 links past its predecessor: the break is in the third chunk of 4096.
      for (let i = 0; i < 9000; i++) prev = settleBroken(`t${i}`, i === 8200 ? 't8198' : prev).txid;
    })();
    expect(lineBroken()).toEqual({ linear: false });
  });

  it('keeps its line when the prefix moves to the archive, and reads it from there after a restart', () => {
    const { db, store, settle, line } = setup();
    const rows = [settle('a', null), settle('b', 'a'), settle('c', 'b')];
    expect(line().linear).toBe(true);
    store.archive.move(rows.slice(0, 2).map((r) => r.seq));
    settle('d', 'c');
    expect(line()).toEqual({ linear: true, head: { txid: 'd', prev: 'c' } });
    expect(new LedgerStore(db).chains.line(BOB, 'VWL')).toEqual({ linear: true, head: { txid: 'd', prev: 'c' } });
  });

  it('lists the currencies a contact has chains in, from its lines, wherever the first rows are', () => {
    const { store, settle } = setup();
    expect(store.chains.chainCurrencies(BOB)).toEqual([]);
    const rows = [settle('a', null), settle('b', 'a')];
    // A leg settled here whose chain entry has not come yet counts in the line's totals but makes no chain.
    settle('u', null, 'USD', false);
    expect(store.chains.chainCurrencies(BOB)).toEqual(['VWL']);
    expect(store.chains.chainsOnLines()).toEqual([{ contactHash: BOB, currency: 'VWL' }]);
    store.archive.move([rows[0]!.seq]);
    expect(store.chains.chainCurrencies(BOB)).toEqual(['VWL']);
    expect(store.chains.chainCurrencies('cc'.repeat(32))).toEqual([]);
  });

  it('reads the lines ahead of the checks, a chunk per turn, and the checks go on from there', async () => {
    const long = () => {
      const made = setup();
      made.db.transaction(() => {
        let prev: string | null = null;
        for (let i = 0; i < 9000; i++) prev = made.settle(`t${i}`, prev).txid;
      })();
      return made;
    };
    const spoil = (db: ReturnType<typeof setup>['db']) => db.prepare("UPDATE ledger_tx SET prev_txid = 'x' WHERE txid = 't100'").run();
    // Read ahead whole: a row spoilt behind the store's back afterwards is not read again.
    const ahead = long();
    await ahead.store.chains.readLinesAhead(() => false);
    spoil(ahead.db);
    expect(ahead.line()).toEqual({ linear: true, head: { txid: 't8999', prev: 't8998' } });
    // Stopped before it read anything: the check reads the chain whole and finds the row.
    const stopped = long();
    await stopped.store.chains.readLinesAhead(() => true);
    spoil(stopped.db);
    expect(stopped.line()).toEqual({ linear: false });
  });
});
