/** Storage: SQL for builtin plugins, a key-value store for sandboxed ones. */

/** A builtin plugin's database access: its own migrations, statements and the one transaction helper. */
export interface PluginDb {
  /** Applies the plugin's migrations in order, once each, recorded under the plugin's name. */
  migrate(migrations: readonly Migration[]): void;
  /** The better-sqlite3 handle. A plugin only reads and writes the tables its own migrations created. */
  readonly handle: import('better-sqlite3').Database;
  /** Runs `fn` in one IMMEDIATE transaction; work queued with `afterCommit` runs only if it commits. */
  tx<T>(fn: () => T): T;
  /**
   * Runs `fn` in a savepoint of the transaction open now (as `tx` when none is): a throw undoes only `fn`'s writes and
   * the work it queued with `afterCommit`, and the caller's transaction goes on. For work that must not fail what
   * surrounds it, such as a listener inside the transaction that completes a payment.
   */
  savepoint<T>(fn: () => T): T;
  afterCommit(fn: () => void): void;
}

export interface Migration {
  version: number;
  up: string | ((db: import('better-sqlite3').Database) => void);
}

/** The key-value store a sandboxed plugin gets instead of SQL (sdk/sandbox.ts). */
export type { SandboxStore as KeyValueStore } from './sandbox.js';
