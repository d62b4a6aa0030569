/**
 * `wallet-node`: starts the node, or (`wallet-node seed`) shows the operator the node's seed phrase.
 *
 * Only light modules are imported up front: the data directory is locked, and RESTORE erased, before the plugins
 * load, so a second start on a held directory fails at once.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, eraseEnvironmentVariable, loadConfig, type NodeConfig } from '../kernel/config.js';
import { CLI_CREDENTIALS_FILE, DATABASE_FILE } from '../kernel/data-files.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from '../kernel/db/open.js';

/** How long the memory-only file of `wallet-node seed` lives when stdout is not a terminal (Document 2's 300 s). */
export const SECRET_FILE_TTL_SECONDS = 300;
const TTL_VARIABLE = 'NODE_SECRET_FILE_TTL_SECONDS';
const MAX_TTL_SECONDS = 3600;

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_DATA_DIR_IN_USE = 3;

const USAGE = `Usage:
  wallet-node [--data-dir <dir>]         start the node (data directory: --data-dir, else NODE_DATA_DIR, else ./data)
  wallet-node seed [--data-dir <dir>]    show this node's 24-word seed phrase (on a terminal), or write it to a
                                         memory-only file (mode 600) deleted after ${SECRET_FILE_TTL_SECONDS} s
  wallet-node --version                  print the release
  wallet-node help                       this text
`;

class UsageError extends Error {}

interface Invocation {
  command: 'start' | 'seed' | 'help' | 'version';
  dataDir: string | null;
}

function parseArgs(args: readonly string[]): Invocation {
  let command: Invocation['command'] | null = null;
  let dataDir: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--data-dir' || arg.startsWith('--data-dir=')) {
      const value = arg === '--data-dir' ? args[++i] : arg.slice('--data-dir='.length);
      if (!value) throw new UsageError('--data-dir needs a directory');
      dataDir = value;
    } else if (arg === '-h' || arg === '--help' || arg === 'help') {
      command = 'help';
    } else if (arg === '-V' || arg === '--version') {
      command = 'version';
    } else if ((arg === 'seed' || arg === 'start') && command === null) {
      command = arg;
    } else {
      throw new UsageError(`unknown argument "${arg}"`);
    }
  }
  return { command: command ?? 'start', dataDir };
}

function fail(code: number, message: string): never {
  process.stderr.write(`wallet-node: ${message}\n`);
  process.exit(code);
}

function secretFileTtl(): number {
  const raw = process.env[TTL_VARIABLE]?.trim();
  if (!raw) return SECRET_FILE_TTL_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TTL_SECONDS) {
    fail(EXIT_USAGE, `configuration error: ${TTL_VARIABLE}: expected whole seconds from 1 to ${MAX_TTL_SECONDS}, got "${raw}"`);
  }
  return seconds;
}

/**
 * Reads the seed phrase from the data directory, through no API and without the directory's lock (a running node
 * may hold it; identity.enc and master.key are never rewritten). A terminal shows it; anything else (a pipe, a log
 * collector) only learns the path of a short-lived file in memory.
 */
async function showSeed(dataDir: string): Promise<void> {
  const ttl = secretFileTtl();
  const [{ IdentityError, openExistingIdentity }, { LocalMachine }] = await Promise.all([import('../kernel/identity.js'), import('../kernel/cli/local.js')]);
  let identity;
  try {
    identity = openExistingIdentity(dataDir);
  } catch (err) {
    if (err instanceof IdentityError) fail(EXIT_FAILED, `${err.message}; pass the node's data directory with --data-dir or NODE_DATA_DIR`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') fail(EXIT_FAILED, `cannot read the identity in ${dataDir}: permission denied (run as the node's user)`);
    throw err;
  }
  const words = identity.revealMnemonic().split(' ');
  if (process.stdout.isTTY) {
    const rows: string[] = [];
    for (let row = 0; row < 6; row++) {
      rows.push([0, 6, 12, 18].map((col) => `${String(row + col + 1).padStart(4)}. ${words[row + col]!.padEnd(10)}`).join('').trimEnd());
    }
    process.stdout.write(
      [
        `Seed phrase of node ${identity.pubkeyHash}:`,
        '',
        ...rows,
        '',
        'Write these 24 words down and keep them offline. They restore this node (RESTORE_FILE, see docs/operations.md);',
        'anyone who has them owns it.',
        '',
      ].join('\n'),
    );
    return;
  }
  const file = new LocalMachine(dataDir).writeSecretFile('seed-phrase', words.join(' '), ttl);
  process.stdout.write(
    `Seed phrase of node ${identity.pubkeyHash} written to ${file} (mode 600, in memory; deleted in ${ttl} s).\n` +
      `Read it with: cat ${file}\n`,
  );
}

const DEFAULT_CLI = 'npx node-cli';

/** A path as one shell word, so a hint can be pasted as it is. */
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/**
 * How the operator reaches this node with node-cli. A node on another data directory than the default (a second
 * node on the machine) is named in every hint, the plugins' banner lines included (they cannot know the
 * directory): a bare `npx node-cli` would drive the node of ./data.
 */
function cliCommand(dataDir: string): string {
  return dataDir === resolve('./data') ? DEFAULT_CLI : `${DEFAULT_CLI} --data-dir ${shellWord(dataDir)}`;
}

async function startDaemon(dataDirFlag: string | null): Promise<void> {
  let config: NodeConfig;
  try {
    config = loadConfig(dataDirFlag ? { ...process.env, NODE_DATA_DIR: dataDirFlag } : process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(EXIT_USAGE, `configuration error: ${err.message}`);
    throw err;
  }
  if (process.env.RESTORE !== undefined && !eraseEnvironmentVariable('RESTORE')) {
    process.stderr.write(
      'wallet-node: warning: RESTORE stays readable in this process\'s initial environment on this system; ' +
        'restore with RESTORE_FILE to keep the seed phrase out of it\n',
    );
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let lock: DataDirLock;
  try {
    lock = lockDataDir(config.dataDir);
  } catch (err) {
    if (err instanceof DataDirInUseError) fail(EXIT_DATA_DIR_IN_USE, err.message);
    throw err;
  }
  const firstStart = !existsSync(join(config.dataDir, DATABASE_FILE));
  const [{ startNode }, { builtinPlugins }] = await Promise.all([import('../kernel/node.js'), import('../builtin-plugins/index.js')]);
  const node = await startNode(config, { builtins: builtinPlugins, echoLogs: true, lock });
  node.guardProcess();
  const a = node.addresses();
  const cli = cliCommand(config.dataDir);
  const seedCommand = `npx wallet-node seed --data-dir ${shellWord(config.dataDir)}`;
  process.stdout.write(
    [
      `wallet-node ${node.identity.pubkeyHash}`,
      `  REST API   ${node.baseUrl}/api/v1  (health: ${node.baseUrl}/healthz)`,
      `  http       ${a.http ?? '-'}`,
      `  https      ${a.https ?? '-'}`,
      `  tor        ${a.tor ?? '-'}`,
      `  data       ${config.dataDir}`,
      `  CLI key    ${join(config.dataDir, CLI_CREDENTIALS_FILE)}  (used by: ${cli} info)`,
      `  seed       ${seedCommand}  (shows the 24 words; they are never logged)`,
      ...(firstStart && !config.restoreMnemonic
        ? ['', `New node: write its 24-word seed phrase down now and keep it offline. Show it with: ${seedCommand}`]
        : []),
      ...node.banner().flatMap((line, i) => {
        const hinted = line.replaceAll(DEFAULT_CLI, cli);
        return i === 0 ? ['', hinted] : [hinted];
      }),
      '',
    ].join('\n'),
  );
  let exiting = false;
  const shutdown = (signal: string): void => {
    if (exiting) return;
    exiting = true;
    process.stderr.write(`wallet-node: ${signal} received, draining\n`);
    const hardStop = setTimeout(() => process.exit(1), 4500);
    hardStop.unref();
    node.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function main(): Promise<void> {
  let invocation: Invocation;
  try {
    invocation = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(USAGE);
    fail(EXIT_USAGE, err.message);
  }
  if (invocation.command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (invocation.command === 'version') {
    const { nodeVersion } = await import('../kernel/version.js');
    process.stdout.write(`${nodeVersion()}\n`);
    return;
  }
  if (invocation.command === 'seed') {
    return showSeed(resolve(invocation.dataDir ?? (process.env.NODE_DATA_DIR?.trim() || './data')));
  }
  return startDaemon(invocation.dataDir);
}

main().catch((err: unknown) => {
  const what = process.argv.includes('seed') ? 'cannot show the seed phrase' : 'failed to start';
  fail(EXIT_FAILED, `${what}: ${err instanceof Error ? err.message : String(err)}`);
});
