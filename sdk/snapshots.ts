/** Copies of the node's state (`ctx.kernel.snapshots`), and the boot recovery that installs one into an empty data directory. */
import type { Logger } from './runtime.js';

/** A file of a state snapshot: `node.db`, `settings.json` or `plugins-state.json`. */
export interface StateFile {
  name: string;
  path: string;
  size: number;
}

/** A consistent copy of the node's state in a private scratch directory of the data directory. */
export interface StateSnapshot {
  /**
   * `node.db` first (one self-contained file: rollback-journal mode, no WAL beside it), then the state files
   * present. Not in it: the identity (it comes back from the seed phrase), cli.json and the TLS certificate
   * (made again at start).
   */
  readonly files: readonly StateFile[];
  /** Deletes the copy. */
  dispose(): Promise<void>;
}

export interface DatabaseCheck {
  /** SQLite's `PRAGMA integrity_check` answered ok. */
  ok: boolean;
  /** What it found otherwise (at most 100 lines), or why the file could not be opened as a database. */
  problems: string[];
}

/** A private directory inside the data directory (mode 700), for plaintext that must not leave its volume. */
export interface ScratchDir {
  readonly dir: string;
  dispose(): Promise<void>;
}

export interface SnapshotMechanism {
  /** The names a snapshot's files may have (`node.db` and the state files). */
  readonly fileNames: readonly string[];
  /** Which of them is the database (the file `check` examines). */
  readonly databaseFile: string;
  /** Which of them hold JSON. */
  readonly jsonFiles: readonly string[];
  /**
   * Copies the database with SQLite's online backup, a few pages per turn of the event loop, so the node keeps
   * serving (writes made meanwhile through the node's connection reach the copy); then the state files.
   */
  take(options?: { onProgress?: (copiedPages: number, totalPages: number) => void }): Promise<StateSnapshot>;
  /** Scratch space beside the database; leftovers of a crash are removed at the next start. */
  scratch(): Promise<ScratchDir>;
  /** Opens a database file read-only and runs SQLite's integrity check in a worker thread. */
  check(path: string): Promise<DatabaseCheck>;
}

/** What a plugin's `recover` gets: the data directory before the node opens anything in it. */
export interface BootRecoveryContext {
  readonly dataDir: string;
  /** Names of the entries in the data directory besides its lock file: none on a new volume. */
  readonly entries: readonly string[];
  /** A `NODE_*` variable of the node's environment. */
  env(name: string): string | undefined;
  /**
   * The node the seed phrase given with RESTORE or RESTORE_FILE restores: its key hash, and the plugin's storage
   * keys exactly as `ctx.identity.storageKey` will derive them once it runs. Null when no seed phrase was given.
   */
  readonly restoring: { pubkeyHash: string; storageKey(label: string): Buffer } | null;
  readonly snapshots: Pick<SnapshotMechanism, 'fileNames' | 'databaseFile' | 'jsonFiles' | 'scratch' | 'check'>;
  /**
   * Moves the files of a recovered state into the data directory (`node.db` required; names from
   * `snapshots.fileNames`). Refused unless the directory holds no node state yet; allowed once per start.
   */
  install(files: readonly { name: string; path: string }[]): void;
  readonly log: Logger;
}
