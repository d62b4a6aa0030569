/**
 * mcp-passthrough's store keeps customer keys between writes (sdk/read-cache.ts): every call authenticates a key by
 * its token's hash and settles on it. Over real SQLite: a write is seen at once, a write rolled back is never seen,
 * a token looked up before its key existed is found once it does, and a deleted key is gone.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { McpStore, migrations, type NewKey } from '../../../builtin-plugins/mcp-passthrough/store.js';
import { TxRunner } from '../../../kernel/db/tx.js';
import { committed } from '../../support/db.js';

const HASH = 'a1'.repeat(32);

function setup() {
  const db = new Database(':memory:');
  for (const m of migrations) db.exec(m.up as string);
  const store = new McpStore(db);
  const key = (tokenHash: string, createdAt = 1): NewKey => ({
    label: 'k',
    tokenHash,
    tokenHint: 'abcd',
    kind: 'bootstrap',
    contactHash: null,
    funding: 'prepaid',
    registeredPubkey: null,
    currency: 'VWL',
    createdAt,
    expiresAt: null,
  });
  return { db, store, key };
}

describe('mcp store: keys kept between writes', () => {
  it('answers repeated lookups from what it read, each a new object', () => {
    const { db, store, key } = setup();
    const k = store.insertKey(key(HASH));
    expect(store.keyByHash(HASH)!.balance).toBe(0n);
    // Kept: a change behind the store's back is not seen (every write goes through the store)...
    db.prepare('UPDATE mcp_keys SET label = ? WHERE id = ?').run('behind', k.id);
    expect(store.keyByHash(HASH)!.label).toBe('k');
    const first = store.key(k.id)!;
    first.label = 'changed by a caller';
    expect(store.key(k.id)!.label).toBe('k');
    // ...until the store writes that key.
    store.touchKey(k.id, 5);
    expect(store.keyByHash(HASH)).toMatchObject({ label: 'behind', lastUsedAt: 5 });
  });

  it('sees each write at once: settlement, money, revocation, origins, limits', () => {
    const { store, key } = setup();
    const k = store.insertKey(key(HASH));
    expect(store.keyByHash(HASH)!.balance).toBe(0n);
    store.setMoney(k.id, 500n, 0n);
    expect(store.keyByHash(HASH)!.balance).toBe(500n);
    store.settleKey(k.id, 400n, 7n, 9);
    expect(store.key(k.id)).toMatchObject({ balance: 400n, debt: 7n, lastUsedAt: 9 });
    store.setOrigins(k.id, ['https://app.example']);
    expect(store.keyByHash(HASH)!.allowedOrigins).toEqual(['https://app.example']);
    store.setLimits(k.id, { requestsPerMinute: 5, tokensPerMinute: null, parallelCalls: null, sessions: null, budget: null, allowedModels: ['m1'] });
    expect(store.keyByHash(HASH)!.limits).toMatchObject({ requestsPerMinute: 5, allowedModels: ['m1'] });
    expect(store.revokeKey(k.id, 11)).toBe(true);
    expect(store.keyByHash(HASH)!.revokedAt).toBe(11);
  });

  it('never keeps a write that rolls back, and sees its own write inside the transaction', () => {
    const { db, store, key } = setup();
    const k = store.insertKey(key(HASH));
    store.setMoney(k.id, 500n, 0n);
    expect(store.key(k.id)!.balance).toBe(500n);
    expect(() =>
      db.transaction(() => {
        store.settleKey(k.id, 100n, 0n, 3);
        expect(store.keyByHash(HASH)!.balance).toBe(100n);
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(store.keyByHash(HASH)!.balance).toBe(500n);
    expect(store.key(k.id)!.lastUsedAt).toBeNull();
  });

  /** A store whose settled keys stay kept once their transaction commits, as the plugin builds it (ctx.db.afterCommit). */
  function committing() {
    const { db, key } = setup();
    const runner = new TxRunner(db);
    const store = new McpStore(db, runner);
    return { db, key, runner, store };
  }

  it('keeps a settled key as written once its transaction committed, exactly as a read would give it', async () => {
    const { db, key, runner, store } = committing();
    const k = store.insertKey(key(HASH));
    store.setMoney(k.id, 500n, 0n);
    store.keyByHash(HASH);
    runner.run(() => store.settleKey(k.id, 400n, 25n, 9));
    await committed();
    // Kept, not read: a change behind the store's back before the key's next lookup is not seen...
    db.prepare('UPDATE mcp_keys SET label = ? WHERE id = ?').run('behind', k.id);
    const kept = store.key(k.id)!;
    expect(kept.label).toBe('k');
    // ...and what it keeps is what the database holds after the write.
    store.touchKey(k.id, 9);
    expect(store.key(k.id)).toEqual({ ...kept, label: 'behind' });
    expect(kept).toMatchObject({ balance: 400n, debt: 25n, lastUsedAt: 9 });
  });

  it('keeps no settled row once a key was written after it, after a rollback or a failed savepoint, or without the commit hook', async () => {
    const { db, key, runner, store } = committing();
    const k = store.insertKey(key(HASH));
    store.setMoney(k.id, 500n, 0n);
    store.key(k.id);
    // Another write between the commit and its hook: the row is read again.
    runner.run(() => store.settleKey(k.id, 400n, 0n, 3));
    store.setMoney(k.id, 450n, 0n);
    await committed();
    expect(store.key(k.id)!.balance).toBe(450n);
    // Another write later in the same transaction: the row is read again.
    store.key(k.id);
    runner.run(() => {
      store.settleKey(k.id, 300n, 0n, 4);
      store.setMoney(k.id, 3n, 0n);
    });
    await committed();
    expect(store.key(k.id)!.balance).toBe(3n);
    store.setMoney(k.id, 450n, 0n);
    store.key(k.id);
    // A rollback: nothing kept, the database's row read again.
    expect(() =>
      runner.run(() => {
        store.settleKey(k.id, 2n, 0n, 4);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    await committed();
    db.prepare('UPDATE mcp_keys SET label = ? WHERE id = ?').run('behind', k.id);
    expect(store.key(k.id)).toMatchObject({ balance: 450n, label: 'behind' });
    // A savepoint that fails inside a transaction that commits (a listener's work, as top-ups run): nothing kept.
    store.key(k.id);
    runner.run(() => {
      expect(() =>
        store.savepoint(() => {
          store.settleKey(k.id, 9n, 0n, 6);
          throw new Error('the savepoint fails');
        }),
      ).toThrow('the savepoint fails');
    });
    await committed();
    db.prepare('UPDATE mcp_keys SET label = ? WHERE id = ?').run('read again', k.id);
    expect(store.key(k.id)).toMatchObject({ balance: 450n, label: 'read again' });
    // Without the hook (a store built without ctx.db.afterCommit), a settled key is read again.
    const plain = new McpStore(db);
    plain.key(k.id);
    runner.run(() => plain.settleKey(k.id, 7n, 0n, 5));
    await committed();
    db.prepare('UPDATE mcp_keys SET label = ? WHERE id = ?').run('after', k.id);
    expect(plain.key(k.id)).toMatchObject({ balance: 7n, label: 'after' });
  });

  it('finds a token looked up before its key existed, and forgets a deleted key', () => {
    const { store, key } = setup();
    expect(store.keyByHash(HASH)).toBeNull();
    const k = store.insertKey(key(HASH, 1));
    expect(store.keyByHash(HASH)!.id).toBe(k.id);
    expect(store.reapBootstrapKeys(2)).toEqual([k.id]);
    expect(store.keyByHash(HASH)).toBeNull();
    expect(store.key(k.id)).toBeNull();
  });
});
