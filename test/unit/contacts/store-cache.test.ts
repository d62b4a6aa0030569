/**
 * The contact store keeps the rows its hot lookups read between writes (read-cache.ts): over real SQLite, a lookup
 * after a write sees the write at once, a write inside a transaction that rolls back is never seen, and a lookup inside
 * such a transaction sees the transaction's own write.
 */
import { describe, expect, it } from 'vitest';
import { ContactStore, migrations } from '../../../builtin-plugins/contacts/store.js';
import { TxRunner } from '../../../kernel/db/tx.js';
import { migratedDatabase } from '../../support/db.js';

const HASH = 'ab'.repeat(32);

function setup() {
  const db = migratedDatabase(migrations);
  const store = new ContactStore(db, () => 0);
  const c = store.insert({ pubkey_hash: HASH, status: 'accepted', name: 'Bob' });
  store.insertCurrency(c.id, { currency: 'USD', status: 'accepted', direction: 'outgoing', fee_percent: '1', credit_limit: 1000n });
  return { db, store, c };
}

describe('contact store: rows kept between writes', () => {
  it('answers repeated lookups from what it read, and returns a new object each time', () => {
    const { db, store } = setup();
    expect(store.byHash(HASH)!.name).toBe('Bob');
    // Kept: a change made behind the store's back is not seen (which is why every write goes through the store)...
    db.prepare('UPDATE contacts SET name = ? WHERE pubkey_hash = ?').run('Behind', HASH);
    expect(store.byHash(HASH)!.name).toBe('Bob');
    // ...until the store's next write, whatever it writes.
    store.insert({ pubkey_hash: 'ef'.repeat(32), status: 'pending' });
    expect(store.byHash(HASH)!.name).toBe('Behind');
    const first = store.byHash(HASH)!;
    first.status = 'blocked';
    expect(store.byHash(HASH)!.status).toBe('accepted');
    expect(store.byHash(HASH.toUpperCase())!.name).toBe('Behind');
    expect(store.currency(store.byHash(HASH)!.id, 'usd')!.fee_percent).toBe('1');
  });

  it('sees a write at once: a contact blocked, a fee changed, a line added, a contact deleted', () => {
    const { store, c } = setup();
    expect(store.byHash(HASH)!.status).toBe('accepted');
    expect(store.acceptedOn('USD').map((r) => r.pubkey_hash)).toEqual([HASH]);
    store.update(c.id, { status: 'blocked' });
    expect(store.byHash(HASH)!.status).toBe('blocked');
    expect(store.acceptedOn('USD')).toEqual([]);
    expect(store.currency(c.id, 'USD')!.fee_percent).toBe('1');
    store.updateCurrency(c.id, 'USD', { fee_percent: '2.5' });
    expect(store.currency(c.id, 'USD')!.fee_percent).toBe('2.5');
    expect(store.currencies(c.id).map((r) => r.currency)).toEqual(['USD']);
    store.insertCurrency(c.id, { currency: 'EUR', status: 'pending', direction: 'outgoing' });
    expect(store.currencies(c.id).map((r) => r.currency)).toEqual(['USD', 'EUR']);
    expect(store.byHash('cd'.repeat(32))).toBeNull();
    store.insert({ pubkey_hash: 'cd'.repeat(32), status: 'pending' });
    expect(store.byHash('cd'.repeat(32))!.status).toBe('pending');
    store.delete(c.id);
    expect(store.byHash(HASH)).toBeNull();
  });

  it("a write to a line's own fields forgets that contact's lines only; a new status also the accepted lists", () => {
    const { db, store, c } = setup();
    const other = store.insert({ pubkey_hash: 'cd'.repeat(32), status: 'accepted', name: 'Carol' });
    store.insertCurrency(other.id, { currency: 'USD', status: 'accepted', direction: 'outgoing', fee_percent: '1' });
    const lookups = () => ({
      name: store.byHash(HASH)!.name,
      accepted: store.acceptedOn('USD').map((r) => r.name),
      otherFee: store.currency(other.id, 'USD')!.fee_percent,
      available: store.currency(c.id, 'USD')!.my_available_credit,
      lines: store.currencies(c.id).map((r) => r.my_available_credit),
    });
    expect(lookups()).toEqual({ name: 'Bob', accepted: ['Bob', 'Carol'], otherFee: '1', available: null, lines: [null] });
    // Changes behind the store's back show which kept rows a write forgets: the ones it can change, no others.
    db.prepare('UPDATE contacts SET name = ? WHERE id = ?').run('Behind', c.id);
    db.prepare("UPDATE contact_currencies SET fee_percent = '3' WHERE contact_id = ?").run(other.id);
    db.prepare("UPDATE contact_currencies SET status = 'declined' WHERE contact_id = ?").run(other.id);
    store.updateCurrency(c.id, 'USD', { my_available_credit: 40n });
    expect(lookups()).toEqual({ name: 'Bob', accepted: ['Bob', 'Carol'], otherFee: '1', available: 40n, lines: [40n] });
    store.updateCurrency(c.id, 'USD', { status: 'accepted' });
    expect(lookups()).toEqual({ name: 'Bob', accepted: ['Behind'], otherFee: '1', available: 40n, lines: [40n] });
  });

  it('never keeps what a transaction wrote before it commits: a rollback leaves the committed rows', () => {
    const { db, store, c } = setup();
    expect(store.byHash(HASH)!.status).toBe('accepted');
    expect(() =>
      db.transaction(() => {
        store.update(c.id, { status: 'blocked' });
        // The transaction sees its own write...
        expect(store.byHash(HASH)!.status).toBe('blocked');
        expect(store.byHash(HASH)!.status).toBe('blocked');
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    // ...and nobody sees it once it rolled back.
    expect(store.byHash(HASH)!.status).toBe('accepted');
    db.transaction(() => {
      expect(store.byHash(HASH)!.status).toBe('accepted');
      store.updateCurrency(c.id, 'USD', { status: 'declined' });
      expect(store.currency(c.id, 'USD')!.status).toBe('declined');
    })();
    expect(store.currency(c.id, 'USD')!.status).toBe('declined');
    expect(store.acceptedOn('USD')).toEqual([]);
  });

  it('keeps rows again once a transaction that wrote has ended, for lookups made only inside transactions', async () => {
    // The payment path reads contacts and lines only inside transactions, and records its contact's credit in one.
    const { db, store, c } = setup();
    const inTx = <T>(fn: () => T): T => db.transaction(fn)();
    expect(inTx(() => store.byHash(HASH)!.name)).toBe('Bob');
    inTx(() => store.updateCurrency(c.id, 'USD', { my_available_credit: 40n }));
    db.prepare('UPDATE contacts SET name = ? WHERE id = ?').run('Behind', c.id);
    // Within the same turn, a transaction may still be the one that wrote: its reads go to the database.
    expect(inTx(() => store.byHash(HASH)!.name)).toBe('Behind');
    await Promise.resolve();
    // Ended by now: the row kept before the write (which did not touch it) answers again, and a line read is kept.
    expect(inTx(() => store.byHash(HASH)!.name)).toBe('Bob');
    expect(inTx(() => store.currency(c.id, 'USD')!.my_available_credit)).toBe(40n);
    db.prepare('UPDATE contact_currencies SET available_frac = 50 WHERE contact_id = ?').run(c.id);
    expect(inTx(() => store.currency(c.id, 'USD')!.my_available_credit)).toBe(40n);
    // A transaction that wrote and rolled back leaves only committed rows kept, and they answer once it has ended.
    expect(() =>
      inTx(() => {
        store.updateCurrency(c.id, 'USD', { my_available_credit: 7n });
        expect(store.currency(c.id, 'USD')!.my_available_credit).toBe(7n);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    await Promise.resolve();
    expect(inTx(() => store.currency(c.id, 'USD')!.my_available_credit)).toBe(50n);
  });

  describe("a write that knows its change keeps the line's rows current once it commits", () => {
    /** The store as the contacts plugin builds it: its writes' after-commit work runs through the node's transaction helper. */
    function committing() {
      const { db, c } = setup();
      const runner = new TxRunner(db);
      const store = new ContactStore(db, () => 0, (fn) => runner.afterCommit(fn));
      const fresh = () => new ContactStore(db, () => 0);
      return { db, c, runner, store, fresh };
    }
    const behindTheBack = (db: ReturnType<typeof setup>['db'], frac: number) =>
      db.prepare('UPDATE contact_currencies SET available_whole = 0, available_frac = ? WHERE contact_id = ?').run(frac, 1);

    it('a credit recorded in a committed transaction: the next lookups read no row and equal what SQLite reads back', async () => {
      const { db, c, runner, store, fresh } = committing();
      expect(store.currency(c.id, 'USD')!.my_available_credit).toBeNull();
      expect(store.currencies(c.id)).toHaveLength(1);
      const returned = runner.run(() => store.updateCurrency(c.id, 'USD', { my_available_credit: 40n, available_at: '2026-11-30T10:00:00.000Z' }));
      await Promise.resolve();
      // A change behind the store's back, before any lookup: kept rows do not show it.
      db.prepare("UPDATE contact_currencies SET warning = 'behind' WHERE contact_id = ?").run(c.id);
      // Field for field (bigint amounts, text times) what a store with nothing kept reads, but for that change.
      const read = { ...fresh().currency(c.id, 'USD')!, warning: null };
      expect(read.my_available_credit).toBe(40n);
      expect(store.currency(c.id, 'USD')).toEqual(read);
      expect(store.currencies(c.id)).toEqual([read]);
      expect(returned).toEqual(read);
    });

    it('a rollback keeps nothing: the lines are read again and show the committed rows', async () => {
      const { db, c, runner, store } = committing();
      expect(store.currency(c.id, 'USD')!.my_available_credit).toBeNull();
      expect(store.currencies(c.id)).toHaveLength(1);
      expect(() =>
        runner.run(() => {
          store.updateCurrency(c.id, 'USD', { my_available_credit: 40n });
          throw new Error('roll back');
        }),
      ).toThrow('roll back');
      await Promise.resolve();
      behindTheBack(db, 7);
      expect(store.currency(c.id, 'USD')!.my_available_credit).toBe(7n);
      expect(store.currencies(c.id)[0]!.my_available_credit).toBe(7n);
    });

    it('a value SQLite would read back otherwise (a boolean), or a second write in the transaction: read again', async () => {
      const { db, c, runner, store } = committing();
      store.currency(c.id, 'USD');
      runner.run(() => store.updateCurrency(c.id, 'USD', { requested_enforced: true }));
      await Promise.resolve();
      behindTheBack(db, 7);
      expect(store.currency(c.id, 'USD')!.my_available_credit).toBe(7n);
      expect(store.currency(c.id, 'USD')!.requested_enforced).toBe(true);
      runner.run(() => {
        store.updateCurrency(c.id, 'USD', { my_available_credit: 40n });
        store.update(c.id, { name: 'Robert' });
      });
      await Promise.resolve();
      behindTheBack(db, 9);
      expect(store.currency(c.id, 'USD')!.my_available_credit).toBe(9n);
    });
  });
});
