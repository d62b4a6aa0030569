/**
 * One run of node-cli: global options, the program with every contributed command, the rate limiter, the
 * output envelope and the exit code. `main.ts` calls it with the process's streams; tests call it directly.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { CliError, asksRateLimitOff, isLocalCommand, type CliApi, type CliContext, type CliContribution, type CliRateRule } from '../../sdk/cli.js';
import { CliApiClient } from './api.js';
import { ArgvError, extractGlobalOptions } from './argv.js';
import { resolveCredentials, resolveDataDir } from './credentials.js';
import { LocalMachine } from './local.js';
import { Output, type Metadata, type Writer } from './output.js';
import { ROOT_HELP_FOOTER, closestCommand, commandPathName, createRootProgram, eachCommand, walkCommandPath } from './program.js';
import { DEFAULT_RATE_RULE, RateStore, rateLimitedMessage } from './rate-limit.js';
import { Prompter, withSpinner, type TerminalStreams } from './terminal.js';

export const RATE_FILE = 'cli-rate.json';

export interface CliIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: Writer & { isTTY?: boolean };
  stderr: TerminalStreams['stderr'];
  stdin: TerminalStreams['stdin'];
  /** Milliseconds since the epoch (rate limits); default Date.now. */
  now?: () => number;
}

export interface CliSetup {
  version: string;
  contributions: readonly CliContribution[];
  /** Rules of top-level commands not declared by their contribution (the table of Document 2). */
  rateLimits?: Record<string, CliRateRule>;
  /** Asks the node for its public key hash (metadata.node_id, rate-limit key); null when it cannot tell. */
  identifyNode?: (api: CliApi, timeoutMs: number) => Promise<string | null>;
  /** Whether the key `keyId` the CLI signs with holds the admin scope (`--rate-limit off`); absent: never. */
  isAdminKey?: (api: CliApi, keyId: string) => Promise<boolean>;
}

/** How long the node-id lookup for metadata may take before it is given up (the command already ran). */
const NODE_ID_TIMEOUT_MS = 5_000;

const HELP_EXIT_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** A line that names no command is a usage error, told apart from a command that ran and failed (1). */
const EXIT_UNKNOWN_COMMAND = 2;

export async function runCli(io: CliIo, setup: CliSetup): Promise<number> {
  let globals;
  let argv: string[];
  try {
    ({ globals, rest: argv } = extractGlobalOptions(io.argv));
  } catch (err) {
    const out = new Output(io.argv.includes('--json') || io.argv.includes('-j'), io.stdout, io.stderr);
    out.finishError('INVALID_PARAMS', (err as ArgvError).message, undefined, null);
    return 1;
  }
  const out = new Output(globals.json, io.stdout, io.stderr);
  const dataDir = resolveDataDir(globals.dataDir, io.env, io.cwd);
  const api = new CliApiClient(() => resolveCredentials(dataDir, io.env));
  const local = new LocalMachine(dataDir);
  const now = io.now ?? Date.now;

  const rules = (bucket: string): CliRateRule => {
    for (const c of setup.contributions) if (c.rateLimits?.[bucket]) return c.rateLimits[bucket]!;
    return setup.rateLimits?.[bucket] ?? DEFAULT_RATE_RULE;
  };

  let store: RateStore | null = null;
  const rateStore = (): RateStore => {
    if (store) return store;
    const creds = api.creds();
    const file =
      io.env.NODE_CLI_RATE_FILE?.trim() ||
      (creds.source !== 'environment'
        ? join(dirname(creds.source), RATE_FILE)
        : existsSync(dataDir)
          ? join(dataDir, RATE_FILE)
          : join(homedir(), '.node-cli', RATE_FILE));
    store = new RateStore(file, now);
    return store;
  };
  let rateWarned = false;
  const rateTrouble = (err: unknown): void => {
    if (rateWarned) return;
    rateWarned = true;
    out.warn(`warning: CLI rate limits not persisted (${(err as Error).message})`);
  };

  let nodeIdMemo: Promise<string | null> | null = null;
  const nodeId = (): Promise<string | null> => {
    nodeIdMemo ??= (async () => {
      const keyId = api.creds().keyId;
      try {
        const known = rateStore().knownNode(keyId);
        if (known) return known;
      } catch {
        // unreadable rate file: ask the node
      }
      try {
        const hash = (await setup.identifyNode?.(api, NODE_ID_TIMEOUT_MS)) ?? null;
        if (hash) {
          await rateStore().rememberNode(keyId, hash).catch(rateTrouble);
          return hash;
        }
      } catch {
        // node unreachable: the command itself reports it
      }
      return null;
    })();
    return nodeIdMemo;
  };

  const prompter = new Prompter(io);
  const ctx: CliContext = {
    json: globals.json,
    out,
    api,
    local,
    interactive: Boolean(io.stdin.isTTY && io.stderr.isTTY),
    stdoutIsTty: Boolean(io.stdout.isTTY),
    fail(code, message, details) {
      throw new CliError(code, message, details);
    },
    nodeId,
    rememberNodeId(id) {
      if (nodeIdMemo) return;
      nodeIdMemo = Promise.resolve(id);
      void rateStore().rememberNode(api.creds().keyId, id).catch(rateTrouble);
    },
    async rateLimit(bucket, rule) {
      const id = (await nodeId()) ?? `key:${api.creds().keyId}`;
      let decision;
      try {
        decision = await rateStore().consume(id, bucket, rule ?? rules(bucket), rules);
      } catch (err) {
        rateTrouble(err);
        return;
      }
      if (!decision.allowed) {
        throw new CliError('RATE_LIMITED', rateLimitedMessage(decision.retryAfterSeconds), {
          bucket,
          retry_after: decision.retryAfterSeconds,
        });
      }
    },
    async confirm(question, yes) {
      if (yes) return;
      if (!ctx.interactive) {
        throw new CliError('CONFIRMATION_REQUIRED', 'this action needs confirmation: run it in a terminal or add --yes');
      }
      const answer = (await prompter.ask(`${question} [y/N] `)).toLowerCase();
      if (answer !== 'y' && answer !== 'yes') throw new CliError('CANCELLED', 'cancelled: nothing was changed');
    },
    async prompt(question) {
      if (!ctx.interactive) throw new CliError('INVALID_PARAMS', 'this command needs a terminal to ask for input; pass the values as arguments');
      return prompter.ask(question);
    },
    progress: (label, work) => withSpinner(io.stderr, label, work),
  };

  // ---- the program
  let helpText = '';
  const program = createRootProgram(setup.version);
  let commandName = '';
  let localRun = false;
  program.hook('preAction', async (_root: Command, action: Command) => {
    const path: Command[] = [];
    for (let c: Command | null = action; c && c !== program; c = c.parent) path.unshift(c);
    commandName = commandPathName(path);
    const top = path[0]?.name();
    localRun = path.some(isLocalCommand);
    if (!top || top === 'help' || localRun) return;
    const creds = api.creds(); // NO_CREDENTIALS before anything else
    if (asksRateLimitOff(action)) return waiveRateLimit(action, creds.keyId);
    await ctx.rateLimit(top);
  });
  /** `--rate-limit off`: a script's run, on an admin key, that node-cli does not count. */
  const waiveRateLimit = async (action: Command, keyId: string): Promise<void> => {
    if (action.getOptionValue('rateLimit') !== 'off') throw new CliError('INVALID_PARAMS', '--rate-limit accepts only "off"');
    if (!globals.json) throw new CliError('INVALID_PARAMS', '--rate-limit off is for scripts: add --json');
    if (!(await setup.isAdminKey?.(api, keyId))) {
      throw new CliError('PERMISSION_DENIED', '--rate-limit off needs an admin key; the key node-cli signs with is not one');
    }
  };
  program
    .command('help')
    .summary('show help for node-cli or one of its commands')
    .description('Shows the commands of node-cli, or the usage and options of one command (for example: help apikey create).')
    .argument('[command...]', 'command words')
    .action((words: string[]) => {
      const walked = walkCommandPath(program, words);
      if (walked.unknown) throw commandNotFound(walked.unknown.word, walked.unknown.parent);
      const target = walked.path.at(-1) ?? program;
      const text = helpOf(target);
      out.success({ command: commandPathName(walked.path) || null, help: text }, () => io.stdout.write(text));
    });

  for (const contribution of setup.contributions) contribution.register(program, ctx);

  eachCommand(program, (c) => {
    c.exitOverride();
    c.configureOutput({
      writeOut: (s) => (globals.json ? (helpText += s) : io.stdout.write(s)),
      writeErr: (s) => (globals.json ? (helpText += s) : io.stderr.write(s)),
      outputError: () => undefined, // reported once, by finish()
    });
  });

  // ---- run
  const walked = walkCommandPath(program, argv);
  commandName = [commandPathName(walked.path), walked.unknown?.word ?? ''].filter(Boolean).join(' ');
  const metadata = async (): Promise<Metadata | null> => {
    if (!globals.metadata || !globals.json) return null;
    let id: string | null = null;
    try {
      id = localRun ? null : await nodeId();
    } catch {
      id = null; // no credentials: no node to name
    }
    return { timestamp: new Date(now()).toISOString(), node_id: id, command: commandName || 'help' };
  };

  try {
    if (walked.unknown) throw commandNotFound(walked.unknown.word, walked.unknown.parent);
    if (walked.path.length === 0 && (argv[0] === '-V' || argv[0] === '--version')) {
      out.success({ version: setup.version }, setup.version);
    } else if (argv.length === 0 || walked.needsHelp) {
      const target = walked.needsHelp ?? program;
      const text = helpOf(target);
      out.success({ command: commandName || null, help: text }, () => io.stdout.write(text));
    } else {
      await program.parseAsync(walked.argv, { from: 'user' });
      if (!out.hasResult) out.success(null);
    }
    prompter.close();
    out.finishSuccess(await metadata());
    return 0;
  } catch (err) {
    prompter.close();
    if (err instanceof CommanderError && HELP_EXIT_CODES.has(err.code) && err.exitCode === 0) {
      if (globals.json) {
        if (!out.hasResult) out.success({ command: commandName || null, help: helpText });
        out.finishSuccess(await metadata());
      }
      return 0;
    }
    const failure = renamed(describe(err), setup.contributions);
    out.finishError(failure.code, failure.message, failure.details, await metadata());
    return failure.code === 'COMMAND_NOT_FOUND' ? EXIT_UNKNOWN_COMMAND : 1;
  }
}

/** The help text of a command; the root's ends with the notes on global options, credentials and exit codes. */
function helpOf(cmd: Command): string {
  return cmd.parent ? cmd.helpInformation() : `${cmd.helpInformation()}\n${ROOT_HELP_FOOTER.trim()}\n`;
}

/** One line, not the help of the level: the closest command when one is close, else where the list is. */
function commandNotFound(word: string, parent: Command): CliError {
  const path = commandPathName(pathOf(parent));
  const where = parent.parent ? ` of '${path}'` : '';
  const guess = closestCommand(parent, word);
  const next = guess ? `did you mean "${guess}"?` : `run "node-cli help${path ? ` ${path}` : ''}" for the commands`;
  return new CliError('COMMAND_NOT_FOUND', `Command '${word}' not found${where}; ${next}`, guess ? { suggestion: [path, guess].filter(Boolean).join(' ') } : undefined);
}

function pathOf(cmd: Command): Command[] {
  const path: Command[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c);
  return path;
}

/** A node code that a contribution reports under its command-line name (CliContribution.codes). */
function renamed(failure: Failure, contributions: readonly CliContribution[]): Failure {
  for (const c of contributions) {
    const code = c.codes?.[failure.code];
    if (code) return { ...failure, code, details: { ...failure.details, node_code: failure.code } };
  }
  return failure;
}

interface Failure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

function describe(err: unknown): Failure {
  if (err instanceof CliError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  if (err instanceof CommanderError) {
    const message = err.message.replace(/^error:\s*/i, '');
    if (err.code === 'commander.unknownCommand') return { code: 'COMMAND_NOT_FOUND', message };
    return { code: 'INVALID_PARAMS', message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL_ERROR', message: `unexpected failure: ${message}` };
}
