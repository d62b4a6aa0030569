/**
 * The backup directory and what happens in it: writing a backup (one at a time), listing, verifying, deleting,
 * retention. Routes, the daily job, the shutdown hook and the `backups` service all come through here.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ApiError, type Clock, type Logger, type SnapshotMechanism } from '../../sdk/index.js';
import { BackupFormatError, FORMAT_VERSION, openBackup, peekCreatedAt, readHeader, sealBackup } from './format.js';
import { automaticFileName, groupOf, humanSize, isBackupFileName, namedFileName, namedFileProblem, type BackupGroup, type BackupKind, type RetentionScope } from './names.js';

/** The directory, mode 700: NODE_BACKUP_DIR (absolute, or relative to the working directory) or `<data dir>/backups`. */
export function backupDirectory(dataDir: string, configured: string | undefined): string {
  const dir = configured?.trim();
  return dir ? resolve(dir) : join(dataDir, 'backups');
}

/** The label of the plugin's storage key: the one the backup files are encrypted under. */
export const KEY_LABEL = 'backups';

const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;
const PARTIAL = /^\.[A-Za-z0-9_.-]+\.partial$/;

export interface BackupFile {
  filename: string;
  size: number;
  size_human: string;
  created_at: string;
}

export interface BackupCreated {
  message: string;
  filename: string;
  size: number;
  path: string;
}

export interface VerifyResult {
  filename: string;
  valid: boolean;
  version: number | string | null;
  created_at: string | null;
  /** Why it is not valid. */
  reason?: string;
}

export interface BackupsDeps {
  dir: string;
  /** pubkey_hash of this node (recorded in every header). */
  node: string;
  key: Buffer;
  snapshots: SnapshotMechanism;
  clock: Clock;
  log: Logger;
}

/**
 * Decrypts a backup into `scratchDir`, then checks what came out: the database with SQLite's integrity check, the
 * state files as JSON. Throws BackupFormatError with the reason when anything is wrong.
 */
export async function unpackBackup(
  path: string,
  key: Buffer,
  expectedNode: string,
  snapshots: Pick<SnapshotMechanism, 'fileNames' | 'databaseFile' | 'jsonFiles' | 'check'>,
  scratchDir: string,
): Promise<{ files: { name: string; path: string; size: number }[]; version: number; createdAt: string }> {
  const fh = await open(path, 'r');
  try {
    const parsed = await readHeader(fh);
    const { header } = parsed;
    if (header.node !== expectedNode) {
      throw new BackupFormatError(`it is a backup of another node (${header.node}), not of ${expectedNode}`, header.format);
    }
    const files = await openBackup(fh, parsed, key, scratchDir, snapshots.fileNames);
    const database = files.find((f) => f.name === snapshots.databaseFile);
    if (!database) throw new BackupFormatError('the snapshot holds no database', header.format);
    const check = await snapshots.check(database.path);
    if (!check.ok) throw new BackupFormatError(`the database fails SQLite's integrity check: ${check.problems.slice(0, 3).join('; ')}`, header.format);
    for (const f of files) {
      if (!snapshots.jsonFiles.includes(f.name)) continue;
      try {
        JSON.parse(await readFile(f.path, 'utf8'));
      } catch {
        throw new BackupFormatError(`${f.name} in the snapshot is not valid JSON`, header.format);
      }
    }
    return { files, version: header.format, createdAt: header.created_at };
  } finally {
    await fh.close();
  }
}

export class Backups {
  #running: Promise<BackupCreated> | null = null;

  constructor(private readonly deps: BackupsDeps) {}

  get directory(): string {
    return this.deps.dir;
  }

  /**
   * Creates the directory owner-only, tightens a looser one, and removes partial files a crash left. A directory
   * that cannot be made now (a volume not mounted yet) is reported when a backup is attempted.
   */
  prepare(): void {
    try {
      this.#ensureDirectory();
      for (const name of readdirSync(this.deps.dir)) if (PARTIAL.test(name)) rmSync(join(this.deps.dir, name), { force: true });
    } catch (err) {
      this.deps.log.warn('backup directory not usable yet', { directory: this.deps.dir, error: err instanceof Error ? err.message : String(err) });
    }
  }

  #ensureDirectory(): void {
    mkdirSync(this.deps.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (process.platform !== 'win32' && (statSync(this.deps.dir).mode & 0o077) !== 0) chmodSync(this.deps.dir, PRIVATE_DIR_MODE);
  }

  /** The path of an existing backup; the name is checked before it touches the file system. */
  #existing(filename: string): string {
    if (!isBackupFileName(filename)) {
      throw new ApiError('invalid_filename', 400, 'A backup file name has the form <letters, digits, _ or ->.node.enc, without any path');
    }
    const path = join(this.deps.dir, filename);
    let regular = false;
    try {
      regular = lstatSync(path).isFile();
    } catch {
      regular = false;
    }
    if (!regular) throw new ApiError('backup_not_found', 404, `No backup named ${filename}`);
    return path;
  }

  /** Whether a backup is being written now. */
  busy(): boolean {
    return this.#running !== null;
  }

  /** Waits until no backup is being written. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running.catch(() => undefined);
  }

  /**
   * Writes a backup. `whenBusy`: `refuse` answers 409 while another one is being written (a client asked),
   * `wait` queues behind it (the schedule, the shutdown, archival).
   */
  async create(request: { kind: BackupKind; name?: string }, whenBusy: 'refuse' | 'wait'): Promise<BackupCreated> {
    while (this.#running) {
      if (whenBusy === 'refuse') throw new ApiError('backup_in_progress', 409, 'A backup is being written; try again when it is done');
      await this.#running.catch(() => undefined);
    }
    // Nothing is awaited between the check above and this claim: two callers never both write.
    const run = this.#write(request, whenBusy === 'wait');
    this.#running = run;
    try {
      return await run;
    } finally {
      if (this.#running === run) this.#running = null;
    }
  }

  async #write(request: { kind: BackupKind; name?: string }, patient: boolean): Promise<BackupCreated> {
    if (request.name !== undefined) {
      const problem = namedFileProblem(request.name);
      if (problem) throw new ApiError('invalid_name', 400, `Invalid backup name: ${problem}`);
    }
    try {
      this.#ensureDirectory();
    } catch (err) {
      throw new ApiError('backup_failed', 500, `The backup directory ${this.deps.dir} is not usable: ${err instanceof Error ? err.message : String(err)}`);
    }
    let now = this.deps.clock.now();
    let filename = request.name !== undefined ? namedFileName(request.name) : automaticFileName(request.kind, now);
    // Automatic names have a resolution of one second: a second one in the same second waits for the next.
    if (existsSync(join(this.deps.dir, filename)) && request.name === undefined && patient) {
      await new Promise((r) => setTimeout(r, 1000 - (now % 1000)));
      now = this.deps.clock.now();
      filename = automaticFileName(request.kind, now);
    }
    const path = join(this.deps.dir, filename);
    if (existsSync(path)) {
      throw new ApiError(
        'backup_exists',
        409,
        request.name !== undefined ? `A backup named ${filename} exists already` : `A backup was written this second (${filename}); try again`,
      );
    }

    const started = Date.now();
    const partial = join(this.deps.dir, `.${filename}.${randomBytes(4).toString('hex')}.partial`);
    let size: number;
    try {
      const snapshot = await this.deps.snapshots.take();
      try {
        const out = await open(partial, 'wx', PRIVATE_FILE_MODE);
        try {
          await out.chmod(PRIVATE_FILE_MODE);
          size = await sealBackup(out, snapshot.files, this.deps.key, { createdAt: new Date(now).toISOString(), node: this.deps.node });
          await out.sync();
        } finally {
          await out.close();
        }
      } finally {
        await snapshot.dispose();
      }
      // A link, not a rename: it never replaces a file that appeared under the name meanwhile.
      linkSync(partial, path);
      syncDirectory(this.deps.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ApiError('backup_exists', 409, `A backup named ${filename} exists already`);
      throw new ApiError('backup_failed', 500, `The backup failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      await rm(partial, { force: true });
    }
    this.deps.log.info('backup written', { filename, size, ms: Date.now() - started });
    return { message: `Backup ${filename} created`, filename, size, path };
  }

  /** Backups in the directory, newest first. */
  list(): BackupFile[] {
    let names: string[];
    try {
      names = readdirSync(this.deps.dir);
    } catch {
      return [];
    }
    const files: BackupFile[] = [];
    for (const filename of names) {
      if (!isBackupFileName(filename)) continue;
      const path = join(this.deps.dir, filename);
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      files.push({ filename, size: stat.size, size_human: humanSize(stat.size), created_at: peekCreatedAt(path) ?? stat.mtime.toISOString() });
    }
    return files.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.filename.localeCompare(a.filename));
  }

  async verify(filename: string): Promise<VerifyResult> {
    const path = this.#existing(filename);
    const scratch = await this.deps.snapshots.scratch();
    try {
      const { version, createdAt } = await unpackBackup(path, this.deps.key, this.deps.node, this.deps.snapshots, scratch.dir);
      return { filename, valid: true, version, created_at: createdAt };
    } catch (err) {
      if (!(err instanceof BackupFormatError)) throw err;
      return { filename, valid: false, version: err.version, created_at: err.version === FORMAT_VERSION ? peekCreatedAt(path) : null, reason: err.message };
    } finally {
      await scratch.dispose();
    }
  }

  remove(filename: string): { message: string; filename: string } {
    unlinkSync(this.#existing(filename));
    this.deps.log.info('backup deleted', { filename });
    return { message: `Backup ${filename} deleted`, filename };
  }

  /**
   * Keeps the newest `keep` backups and deletes the rest: of all backups together (`all`, Document 1's "keeps most
   * recent 3"), or of each group apart (`kind`: daily and manual, archive, named).
   */
  cleanup(keep: number, scope: RetentionScope): { message: string; deleted_count: number; deleted_files: string[] } {
    const groups = new Map<BackupGroup | 'all', BackupFile[]>();
    for (const file of this.list()) {
      const group = scope === 'kind' ? groupOf(file.filename) : 'all';
      groups.set(group, [...(groups.get(group) ?? []), file]);
    }
    const deleted: string[] = [];
    for (const files of groups.values()) {
      for (const file of files.slice(keep)) {
        try {
          unlinkSync(join(this.deps.dir, file.filename));
          deleted.push(file.filename);
        } catch (err) {
          this.deps.log.warn('old backup not deleted', { filename: file.filename, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    if (deleted.length) this.deps.log.info('old backups deleted', { count: deleted.length, keep, scope });
    const kept = scope === 'kind' ? ' of each kind' : '';
    return {
      message: deleted.length ? `Deleted ${deleted.length} old backup(s); the newest ${keep}${kept} are kept` : `Nothing to delete: at most ${keep}${kept}`,
      deleted_count: deleted.length,
      deleted_files: deleted,
    };
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
