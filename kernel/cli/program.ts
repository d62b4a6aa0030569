/** The commander program of node-cli: root options, the `help` command and the command-path checks. */
import { Command } from 'commander';

interface CommandInternals {
  _actionHandler?: unknown;
  _defaultCommandName?: string | null;
}

const internals = (cmd: Command): CommandInternals => cmd as unknown as CommandInternals;

export const hasAction = (cmd: Command): boolean => Boolean(internals(cmd)._actionHandler);

export function defaultSubcommand(cmd: Command): Command | undefined {
  const name = internals(cmd)._defaultCommandName;
  return name ? cmd.commands.find((c) => c.name() === name) : undefined;
}

export function findSubcommand(cmd: Command, token: string): Command | undefined {
  const t = token.toLowerCase();
  return cmd.commands.find((c) => c.name() === t || c.aliases().includes(t));
}

export interface PathResult {
  /** The commands named on the line, outermost first (the root excluded). */
  path: Command[];
  /** argv with command words normalised to their canonical lower-case names. */
  argv: string[];
  /** A word in command position that names no command. */
  unknown: { word: string; parent: Command } | null;
  /** The line ends at a command group that cannot run by itself: show its help. */
  needsHelp: Command | null;
  /** -h or --help is on the line (commander prints the help). */
  helpFlag: boolean;
}

/**
 * Whether the option word at `argv[i]` consumes the next word as its value: an option of `cmd` or of the
 * subcommand it runs by default (`dlq --status all` is `dlq list --status all`), written without `=value`.
 */
function takesNextWord(cmd: Command, argv: readonly string[], i: number): boolean {
  const word = argv[i]!;
  if (word.includes('=') || i + 1 >= argv.length) return false;
  const owners = [cmd, defaultSubcommand(cmd)].filter((c): c is Command => c !== undefined);
  const option = owners.flatMap((c) => c.options).find((o) => o.long === word || o.short === word);
  if (!option) return false;
  if (option.required) return true;
  return option.optional && !argv[i + 1]!.startsWith('-');
}

/**
 * Follows the command words of a line through the tree, before commander parses it, so an unknown word is
 * reported as COMMAND_NOT_FOUND (with help) and a bare group (`node-cli apikey`) shows its help. Group commands
 * take no options of their own, but their default subcommand's options may come right after the group: the value
 * of such an option is not a command word.
 */
export function walkCommandPath(program: Command, argv: readonly string[]): PathResult {
  const out = [...argv];
  const path: Command[] = [];
  let cmd = program;
  let unknown: PathResult['unknown'] = null;
  const helpFlag = argv.some((a, i) => (a === '-h' || a === '--help') && !argv.slice(0, i).includes('--'));
  for (let i = 0; i < out.length; i++) {
    const token = out[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (takesNextWord(cmd, out, i)) i++;
      continue;
    }
    if (cmd.commands.length === 0) break;
    const sub = findSubcommand(cmd, token);
    if (sub) {
      out[i] = sub.name();
      path.push(sub);
      cmd = sub;
      continue;
    }
    const fallback = defaultSubcommand(cmd);
    const takesArgs = fallback ? fallback.registeredArguments.length > 0 : hasAction(cmd) && cmd.registeredArguments.length > 0;
    if (!takesArgs) unknown = { word: token, parent: cmd };
    break;
  }
  const needsHelp = !unknown && !helpFlag && cmd.commands.length > 0 && !hasAction(cmd) && !defaultSubcommand(cmd) ? cmd : null;
  return { path, argv: out, unknown, needsHelp, helpFlag };
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The subcommand of `parent` a mistyped word most likely meant, or null when none is close: a third of the word's
 * letters may be wrong (at least one), so `snd` finds `send` and `frobnicate` finds nothing.
 */
export function closestCommand(parent: Command, word: string): string | null {
  const typed = word.toLowerCase();
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let best: { name: string; distance: number } | null = null;
  for (const c of parent.commands) {
    const distance = Math.min(...[c.name(), ...c.aliases()].map((n) => editDistance(typed, n)));
    if (distance <= limit && (!best || distance < best.distance)) best = { name: c.name(), distance };
  }
  return best?.name ?? null;
}

export const commandPathName = (path: readonly Command[]): string => path.map((c) => c.name()).join(' ');

/** Applies `fn` to a command and every command below it. */
export function eachCommand(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const sub of cmd.commands) eachCommand(sub, fn);
}

export const ROOT_HELP_FOOTER = `
Global options may appear anywhere on the line.

Credentials: NODE_API_URL, NODE_API_KEY and NODE_API_SECRET when set, else cli.json in the data directory
(--data-dir, NODE_DATA_DIR or ./data), which wallet-node writes when it starts.

Exit codes: 0 success, 1 error, 2 unknown command. With --json: {success, data, metadata {timestamp, node_id, command}} or
{success: false, error {code, message}, metadata}.

Run "node-cli help <command>" for the options of a command.`;

export function createRootProgram(version: string): Command {
  const program = new Command('node-cli');
  program
    .description('Command-line client of a wallet node: drives the node through its signed REST API.')
    .version(version, '-V, --version', 'print the node-cli version')
    .option('-j, --json', 'print one JSON envelope on stdout (scripting)')
    .option('--no-metadata', 'with --json: leave out metadata')
    .option('--data-dir <dir>', 'node data directory holding cli.json (default: NODE_DATA_DIR or ./data)')
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .addHelpText('after', ROOT_HELP_FOOTER);
  return program;
}
