import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NonceStore } from '../../../kernel/auth/nonces.js';
import { migrate } from '../../../kernel/db/migrations.js';
import { kernelMigrations } from '../../../kernel/migrations.js';

const WINDOW = 300;
const NOW = 1_800_000_000; // s

describe('NonceStore', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db, 'kernel', kernelMigrations);
  });
  afterEach(() => db.close());

  const rows = (): number => db.prepare('SELECT COUNT(*) FROM api_nonces').pluck().get() as number;

  it('refuses a nonce spent in this turn, before and after it is committed; other keys keep their own', () => {
    const store = new NonceStore(db, WINDOW);
    expect(store.use('k1', 'nonce-aaaa', NOW, NOW)).toBe(true);
    expect(store.use('k1', 'nonce-aaaa', NOW, NOW)).toBe(false);
    expect(store.use('k2', 'nonce-aaaa', NOW, NOW)).toBe(true);
    expect(rows()).toBe(0);
    store.flush();
    expect(rows()).toBe(2);
    expect(store.use('k1', 'nonce-aaaa', NOW + 1, NOW + 1)).toBe(false);
  });

  it('writes a turn of any size whole (rows grouped into multi-row inserts)', () => {
    const store = new NonceStore(db, WINDOW);
    for (let i = 0; i < 77; i++) store.use('k1', `nonce-${i}-aaaa`, NOW + (i % 3), NOW);
    store.flush();
    expect(rows()).toBe(77);
    expect(db.prepare("SELECT COUNT(*) FROM api_nonces WHERE nonce = 'nonce-76-aaaa' AND ts = ?").pluck().get(NOW + 1)).toBe(1);
  });

  it('a restart refuses what the last run spent, until it leaves the window', () => {
    const first = new NonceStore(db, WINDOW);
    first.use('k1', 'nonce-aaaa', NOW, NOW);
    first.flush();
    const second = new NonceStore(db, WINDOW);
    expect(second.use('k1', 'nonce-aaaa', NOW, NOW + 10)).toBe(false);
    expect(second.use('k1', 'nonce-bbbb', NOW, NOW + 10)).toBe(true);
    // Past the window the timestamp check refuses any replay; the table is no longer read.
    expect(second.use('k1', 'nonce-aaaa', NOW + WINDOW + 5, NOW + WINDOW + 5)).toBe(true);
  });

  it('past its memory bound, what it let go is read back from the table', () => {
    const store = new NonceStore(db, WINDOW, {}, 10);
    for (let i = 0; i < 10; i++) store.use('k1', `nonce-${i}-aaaa`, NOW, NOW);
    store.flush();
    // The 11th is over the bound: the oldest committed ones leave memory and are found in the table.
    expect(store.use('k1', 'nonce-10-aaaa', NOW, NOW)).toBe(true);
    for (let i = 0; i <= 10; i++) expect(store.use('k1', `nonce-${i}-aaaa`, NOW, NOW)).toBe(false);
  });

  it('keeps nonces it could not commit: refused from memory, written once the disk takes them', () => {
    const store = new NonceStore(db, WINDOW, {}, 10);
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    db.function('refuse_nonce', () => {
      throw full;
    });
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON api_nonces BEGIN SELECT refuse_nonce(); END");
    for (let i = 0; i < 20; i++) expect(store.use('k1', `nonce-${i}-aaaa`, NOW, NOW)).toBe(true);
    store.flush();
    expect(rows()).toBe(0);
    // None was committed, so none left memory, bound or not.
    for (let i = 0; i < 20; i++) expect(store.use('k1', `nonce-${i}-aaaa`, NOW, NOW)).toBe(false);
    db.exec('DROP TRIGGER refuse');
    store.flush();
    expect(rows()).toBe(20);
  });

  it('prune drops what left the window, from memory and the table', () => {
    const store = new NonceStore(db, WINDOW);
    store.use('k1', 'nonce-old-aaaa', NOW - WINDOW - 10, NOW);
    store.use('k1', 'nonce-new-aaaa', NOW, NOW);
    expect(store.prune(NOW)).toBe(1);
    expect(rows()).toBe(1);
  });
});
