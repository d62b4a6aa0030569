/**
 * One key order over a table and its archive (the same columns; archival moves old rows from one to the other, and
 * reads that must see both go through a view of the two). SQLite gives a new row the key after the newest row of its
 * own table: once the newest row has moved to the archive, that key is an archived row's, and the key stops naming
 * one row. Archival then fails on the archive's unique key every night, and a keyset over the view skips rows.
 */
import type { Database } from 'better-sqlite3';

/** The SQL expression of a new live row's key: after every row, live or archived (both maxima are index seeks). */
export const keyAfterArchive = (live: string, archive: string, key: string): string =>
  `MAX(IFNULL((SELECT MAX(${key}) FROM ${live}), 0), IFNULL((SELECT MAX(${key}) FROM ${archive}), 0)) + 1`;

/**
 * Repairs a table written before its inserts took `keyAfterArchive` (a migration's `up`): the live rows from the first
 * whose key an archived row also holds were inserted after that key was taken again, so they move, in their order,
 * after the archive's last key. Returns how many moved.
 */
export function moveLiveAfterArchive(db: Database, live: string, archive: string, key: string): number {
  const first = db.prepare(`SELECT MIN(l.${key}) FROM ${live} l JOIN ${archive} a ON a.${key} = l.${key}`).pluck().get() as number | null;
  if (first === null) return 0;
  const last = db.prepare(`SELECT MAX(${key}) FROM ${archive}`).pluck().get() as number;
  // Through negative keys, so that no row takes a key another still holds on the way.
  const moved = db.prepare(`UPDATE ${live} SET ${key} = -${key} WHERE ${key} >= ?`).run(first).changes;
  db.prepare(`UPDATE ${live} SET ${key} = ? - ${key} WHERE ${key} < 0`).run(last - first + 1);
  return moved;
}
