/**
 * What node-cli does on the node's own machine without the REST API: open the identity (to show the auth code)
 * and hand a secret over through a short-lived file in memory.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, fchmodSync, openSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, type CliLocal, type CliLocalIdentity } from '../../sdk/cli.js';
import { IDENTITY_FILE, MASTER_KEY_FILE } from '../data-files.js';
import { IdentityError, loadOrCreateIdentity } from '../identity.js';

/** A memory-backed directory: /dev/shm when usable (never on disk), else the temp directory. */
export function memoryDir(): string {
  try {
    if (statSync('/dev/shm').isDirectory()) {
      accessSync('/dev/shm', constants.W_OK);
      return '/dev/shm';
    }
  } catch {
    // no /dev/shm (macOS, Windows, some containers)
  }
  return tmpdir();
}

export class LocalMachine implements CliLocal {
  constructor(
    readonly dataDir: string,
    private readonly spawnDeleter: (file: string, ttlSeconds: number) => void = detachedDelete,
  ) {}

  openIdentity(): CliLocalIdentity {
    // loadOrCreateIdentity would create a new identity in an empty directory: only open one that exists.
    if (!existsSync(join(this.dataDir, IDENTITY_FILE))) {
      throw new CliError(
        'IDENTITY_UNAVAILABLE',
        `no node identity in ${this.dataDir} (${IDENTITY_FILE} is missing): run node-cli on the node's machine, or pass --data-dir`,
      );
    }
    try {
      const identity = loadOrCreateIdentity(this.dataDir);
      return { pubkeyHash: identity.pubkeyHash, authCode: identity.authCode };
    } catch (err) {
      if (err instanceof IdentityError) throw new CliError('IDENTITY_UNAVAILABLE', err.message);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') {
        throw new CliError(
          'IDENTITY_UNAVAILABLE',
          `cannot read ${IDENTITY_FILE} or ${MASTER_KEY_FILE} in ${this.dataDir}: permission denied (run as the node's user)`,
        );
      }
      throw err;
    }
  }

  writeSecretFile(label: string, content: string, ttlSeconds: number): string {
    const safeLabel = label.replace(/[^a-z0-9-]/gi, '-').slice(0, 40) || 'secret';
    const file = join(memoryDir(), `node-cli-${safeLabel}-${randomBytes(8).toString('hex')}.txt`);
    const fd = openSync(file, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, content.endsWith('\n') ? content : `${content}\n`);
    } finally {
      closeSync(fd);
    }
    this.spawnDeleter(file, ttlSeconds);
    return file;
  }
}

/**
 * Deletes the file after `ttlSeconds` from a detached shell that outlives this process. The path is passed as an
 * argument ($1), never spliced into the script.
 */
export function detachedDelete(file: string, ttlSeconds: number): void {
  const seconds = Math.max(1, Math.floor(ttlSeconds));
  const child = spawn('sh', ['-c', `sleep ${seconds}; rm -f -- "$1"`, 'node-cli-cleanup', file], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
}
