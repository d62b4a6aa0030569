/**
 * The export sources over real SQLite: keyset pages of every size give every row once, in order, whatever the
 * filters (pages of 1 to 4 rows over a handful of rows exercise every page boundary); rows are decoded one by one,
 * so a damaged row stops the iteration exactly there.
 */
import { describe, expect, it } from 'vitest';
import { LedgerStore } from '../../../builtin-plugins/ledger/store.js';
import { migrations as ledgerMigrations } from '../../../builtin-plugins/ledger/store/tables.js';
import { ContactStore, migrations as contactMigrations } from '../../../builtin-plugins/contacts/store.js';
import { RequestStore, migrations as requestMigrations } from '../../../builtin-plugins/payment-requests/store.js';
import { migratedDatabase } from '../../support/db.js';


const hash = (c: string): string => c.repeat(64);

describe('ledger: exports.rows', () => {
  const db = migratedDatabase(ledgerMigrations);
  const store = new LedgerStore(db);
  const rows = Array.from({ length: 9 }, (_, i) =>
    store.transactions.insert({
      txid: i.toString(16).padStart(64, '0'),
      type: i % 3 === 0 ? 'received' : 'sent',
      status: i % 2 === 0 ? 'completed' : 'failed',
      contactHash: i < 5 ? hash('b') : hash('c'),
      counterpartyPublicKey: null,
      fromHash: hash('a'),
      toHash: hash('b'),
      amount: BigInt(i) * 100_000_000n + 5n,
      currency: 'VWL',
      timeMicros: 1,
      salt: 's',
      prevTxid: null,
      description: i === 4 ? null : `payment ${i}`,
      expiresAt: null,
      content: `{"n":${i}}`,
      senderSignature: 'sig',
      recipientSignature: null,
      senderAddress: 'http://a',
      receiverAddress: 'http://b',
      refundOf: null,
      now: 1_000 * i,
    }),
  );
  const ids = (it: Iterable<{ txid: string }>): string[] => [...it].map((r) => r.txid);

  it('every page size gives every row once, oldest first, with its fields; detail only when asked', () => {
    for (const size of [1, 2, 3, 4, 1000]) expect(ids(store.exports.rows({}, size))).toEqual(rows.map((r) => r.txid));
    const [first] = store.exports.rows({ detail: true }, 2);
    expect(first).toEqual({
      seq: rows[0]!.seq,
      source: 'live',
      txid: rows[0]!.txid,
      type: 'received',
      status: 'completed',
      contactHash: hash('b'),
      amount: 5n,
      currency: 'VWL',
      description: 'payment 0',
      createdAt: 0,
      detail: { txType: 'standard', memo: 'standard', senderAddress: 'http://a', receiverAddress: 'http://b', senderSignature: 'sig', recipientSignature: null, content: '{"n":0}', prevTxid: null, recoveryCount: 0, expiresAt: null },
    });
    expect([...store.exports.rows({}, 4)].every((r) => r.detail === null)).toBe(true);
  });

  it('filters apply at the source, across page boundaries', () => {
    const match = (f: (r: (typeof rows)[number]) => boolean): string[] => rows.filter(f).map((r) => r.txid);
    for (const size of [1, 2, 3]) {
      expect(ids(store.exports.rows({ contactHash: hash('c') }, size))).toEqual(match((r) => r.contactHash === hash('c')));
      expect(ids(store.exports.rows({ type: 'sent', status: 'completed' }, size))).toEqual(match((r) => r.type === 'sent' && r.status === 'completed'));
      expect(ids(store.exports.rows({ from: 2_000, to: 6_000 }, size))).toEqual(match((r) => r.createdAt >= 2_000 && r.createdAt < 6_000));
    }
  });

  it('a damaged amount stops the iteration at that row, after the rows before it', () => {
    db.prepare(`UPDATE ledger_tx SET amount_frac = 100000000 WHERE seq = ?`).run(rows[3]!.seq);
    const seen: string[] = [];
    expect(() => {
      for (const r of store.exports.rows({}, 2)) seen.push(r.txid);
    }).toThrow(/ledger_tx row \d+ \(live\): the amount is not a whole and fraction pair/);
    expect(seen).toEqual(rows.slice(0, 3).map((r) => r.txid));
  });

  it('a suspended iteration holds no read open: the node can write between two pages', () => {
    const it = store.exports.rows({}, 2)[Symbol.iterator]();
    it.next();
    expect(() => db.prepare(`UPDATE ledger_tx SET memo = 'x' WHERE seq = ?`).run(rows[8]!.seq)).not.toThrow();
    it.return?.(undefined);
  });
});

describe('contacts: exportRows', () => {
  const db = migratedDatabase(contactMigrations);
  const store = new ContactStore(db, () => 0);
  const names = ['carol', null, 'Bob', 'alice', null, 'Dave', 'bob', 'eve'];
  const statuses = ['accepted', 'pending', 'blocked', 'accepted', 'pending', 'accepted', 'pending', 'accepted'] as const;
  const made = names.map((name, i) => store.insert({ status: statuses[i]!, ...(name ? { name } : {}), pubkey_hash: hash(String(i)) }));

  it('sorted by name without case, unnamed last, ties by id; every page size gives every contact once', () => {
    const expected = ['alice', 'Bob', 'bob', 'carol', 'Dave', 'eve', null, null];
    for (const size of [1, 2, 3, 500]) expect([...store.exportRows(null, size)].map((c) => c.name)).toEqual(expected);
    const unnamed = [...store.exportRows(null, 1)].slice(6).map((c) => c.id);
    expect(unnamed).toEqual([made[1]!.id, made[4]!.id]);
  });

  it('the status filter, across page boundaries', () => {
    for (const size of [1, 2]) {
      expect([...store.exportRows('pending', size)].map((c) => c.name)).toEqual(['bob', null, null]);
      expect([...store.exportRows('accepted', size)].map((c) => c.name)).toEqual(['alice', 'carol', 'Dave', 'eve']);
    }
    const [bob] = store.exportRows('blocked');
    expect(bob).toEqual({
      id: made[2]!.id,
      name: 'Bob',
      pubkeyHash: hash('2'),
      pubkey: null,
      status: 'blocked',
      onlineStatus: 'unknown',
      addresses: { http: null, https: null, tor: null },
      chainValid: null,
      createdAt: new Date(0).toISOString(),
      lastPingAt: null,
    });
  });
});

describe('payment requests: exportRows', () => {
  const db = migratedDatabase(requestMigrations);
  const store = new RequestStore(db);
  const made = Array.from({ length: 7 }, (_, i) =>
    store.insert({
      requestId: `request-${i}`,
      direction: i % 2 ? 'incoming' : 'outgoing',
      contactHash: i < 4 ? hash('b') : hash('c'),
      requesterHash: hash('a'),
      recipientHash: hash('b'),
      storedContactName: 'Bob',
      requesterAddress: null,
      addressType: null,
      amount: 150_000_000n,
      currency: 'VWL',
      description: null,
      delivery: 'none',
      createdAt: 1_000 * i,
      expiresAt: 1_000 * i + 10,
    }),
  );

  it('oldest first in pages of any size; direction, contact and date filters', () => {
    const ids = (f: Parameters<RequestStore['exportRows']>[0], size: number) => [...store.exportRows(f, size)].map((r) => r.requestId);
    for (const size of [1, 2, 3, 1000]) {
      expect(ids({}, size)).toEqual(made.map((r) => r.requestId));
      expect(ids({ direction: 'incoming' }, size)).toEqual(['request-1', 'request-3', 'request-5']);
      expect(ids({ contactHash: hash('c'), from: 5_000 }, size)).toEqual(['request-5', 'request-6']);
      expect(ids({ status: 'pending', to: 2_000 }, size)).toEqual(['request-0', 'request-1']);
    }
    const [first] = store.exportRows({});
    expect(first).toMatchObject({ id: made[0]!.id, source: 'live', amount: 150_000_000n, expiresAt: 10, respondedAt: null, resultingTxid: null });
  });
});
