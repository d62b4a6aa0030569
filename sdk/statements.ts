import type { Database, Statement } from 'better-sqlite3';

/**
 * Statements prepared once each, by their SQL, for queries whose text is built at run time (an UPDATE of the columns
 * a patch names): preparing costs more than running the small statements of a payment. The SQL a caller builds comes
 * from a fixed set of column names, so the cache stays small.
 */
export class PreparedStatements {
  readonly #byKey = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  /** `safeIntegers`: INTEGER columns read as bigint (money columns). */
  get(sql: string, safeIntegers = false): Statement {
    const key = `${safeIntegers ? 1 : 0}${sql}`;
    let stmt = this.#byKey.get(key);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (safeIntegers) stmt.safeIntegers(true);
      this.#byKey.set(key, stmt);
    }
    return stmt;
  }
}

/** Text matched literally inside a `LIKE ... ESCAPE '\'` pattern: its own `%`, `_` and `\` lose their meaning. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
