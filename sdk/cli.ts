/**
 * How plugins contribute commands to `node-cli`, the command-line client of the node.
 *
 * node-cli is a REST client of the same node: every command ends in signed calls to `/api/v1/...`. A plugin adds
 * its commands by exporting a `CliContribution` from its `cli.ts` (builtin plugins list theirs in
 * `builtin-plugins/cli-commands.ts`). `register` receives the commander program and a `CliContext` that carries
 * the signed client, the output helpers, the JSON mode and the rate limiter. The host owns the global options
 * (`--json`/`-j`, `--no-metadata`, `--data-dir`), the JSON envelope, error handling, exit codes, the `help`
 * command and the per-wallet rate limits; a command only calls the API and reports its result:
 *
 * ```ts
 * export default defineCliCommands({
 *   plugin: 'hello',
 *   register(program, ctx) {
 *     program
 *       .command('hello')
 *       .summary('say hello')
 *       .argument('<name>')
 *       .action(async (name: string) => {
 *         const data = await ctx.api.post<{ greeting: string }>('/api/v1/plugins/hello/greet', { name });
 *         ctx.out.success(data, () => ctx.out.line(data.greeting));
 *       });
 *   },
 * });
 * ```
 *
 * Errors: throw `CliError` (or call `ctx.fail`); errors of the REST API arrive as `CliError` with the node's code
 * (`validation_error`, `key_not_found`...). Anything else thrown is reported as `INTERNAL_ERROR`.
 */
import type { Command } from 'commander';

// ---------------------------------------------------------------------------------------------------------
// Errors

/**
 * A failed command. `code` goes to `error.code` of the JSON envelope: the node's own code for REST failures
 * (lower-case, as in Document 1), an upper-case code for failures the command line detects itself
 * (`INVALID_PARAMS`, `COMMAND_NOT_FOUND`, `RATE_LIMITED`...). `details` are merged into `error` (for example
 * `status`, the HTTP status of a REST failure, or `errors`, the per-field list of a validation failure).
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Rate limits

/** At most `max` runs per `windowSeconds`; going over blocks the bucket for `blockSeconds` (0: until a slot frees). */
export interface CliRateRule {
  max: number;
  windowSeconds: number;
  blockSeconds: number;
}

// ---------------------------------------------------------------------------------------------------------
// Output

export interface CliColumn<R = Record<string, unknown>> {
  /** Property of the row shown in this column. */
  key: string;
  header: string;
  align?: 'left' | 'right';
  /** Text of a cell; default: the value as text, `-` for null or undefined. */
  format?: (value: unknown, row: R) => string;
  /** Longer cells are cut with an ellipsis. */
  maxWidth?: number;
}

export interface CliTableOptions {
  title?: string;
  /** Printed instead of the table when there are no rows. */
  empty?: string;
  /** Spaces before every line (default 0, or 2 under a title). */
  indent?: number;
}

export interface CliOutput {
  /** Whether `--json` is on: human helpers print nothing, `success` prints the envelope. */
  readonly json: boolean;
  /**
   * The result of the command, once. JSON mode prints `{success:true, data, metadata}`; human mode prints
   * `human` (a message) or runs it (a function that prints with `line`, `table`, `kv`). Without `human`, data
   * that is a string is printed, other data as indented key-value lines.
   */
  success(data: unknown, human?: string | (() => void)): void;
  /**
   * A line on stdout in human mode (nothing in JSON mode). Every human helper escapes control, bidirectional and
   * zero-width characters (sdk/text.ts), so peer-supplied text can be printed as it is; a line break inside `text`
   * shows as `\x0a` (print several lines with several calls).
   */
  line(text?: string): void;
  /** A notice on stderr in both modes (JSON stays clean on stdout). */
  warn(text: string): void;
  /** Aligned columns, a rule under the header (human mode only). */
  table<R extends object>(rows: readonly R[], columns: readonly CliColumn<R>[], options?: CliTableOptions): void;
  /** Aligned `label  value` lines (human mode only); null and undefined values print as `-`. */
  kv(pairs: ReadonlyArray<readonly [string, unknown]>, options?: { title?: string; indent?: number }): void;
}

/**
 * How human output shows amounts and dates, after the node's display settings. Each takes the value as the API
 * gives it (a decimal string, a timestamp) and returns the text to print; null, undefined and '' print as `-`,
 * and a value it cannot read is returned as it is. JSON output never goes through it: it keeps the API's values.
 */
export interface CliDisplay {
  /** A decimal amount, cut (never rounded) to the decimals the operator chose. */
  amount(value: unknown): string;
  /** A timestamp (ISO 8601, or `YYYY-MM-DD HH:MM:SS` meaning UTC) in the operator's date format. */
  date(value: unknown): string;
}

// ---------------------------------------------------------------------------------------------------------
// REST

export type CliQuery = Record<string, string | number | boolean | undefined>;

/**
 * The node's REST API, signed with the credentials of this machine (`cli.json` or NODE_API_*). Each call returns
 * `data` of the success envelope, or throws `CliError` with the node's error code and `status`.
 */
export interface CliApi {
  get<T = unknown>(path: string, query?: CliQuery): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, query?: CliQuery): Promise<T>;
  put<T = unknown>(path: string, body?: unknown, query?: CliQuery): Promise<T>;
  delete<T = unknown>(path: string, query?: CliQuery): Promise<T>;
  /** The raw response (status, headers, parsed body) for routes that do not answer with an envelope. */
  raw(
    method: string,
    path: string,
    options?: { query?: CliQuery; body?: unknown; timeoutMs?: number },
  ): Promise<{ status: number; headers: Headers; body: unknown }>;
  /**
   * A GET whose body is read as it arrives (an export of millions of rows): resolves once the node answered 200, with
   * its headers and its body in chunks; any other answer is read whole and thrown as `CliError`, as `get` does. Read
   * the body to its end, or stop early with `return()`. The answer must begin within 60 s, and the body must not
   * stall longer than that between two chunks (`NODE_TIMEOUT`); a transfer cut off fails with `NODE_UNREACHABLE`.
   */
  stream(path: string, query?: CliQuery): Promise<{ headers: Headers; body: AsyncIterable<Uint8Array> }>;
  /** The base URL the client talks to. */
  baseUrl(): string;
}

// ---------------------------------------------------------------------------------------------------------
// This machine

export interface CliLocalIdentity {
  pubkeyHash: string;
  authCode: string;
}

export interface CliLocal {
  /** The node's data directory on this machine (`--data-dir`, NODE_DATA_DIR or ./data). */
  readonly dataDir: string;
  /**
   * Opens the node identity from the local data directory (never creates one). Throws `CliError`
   * `IDENTITY_UNAVAILABLE` when there is none or it cannot be read.
   */
  openIdentity(): CliLocalIdentity;
  /**
   * Writes a secret to a fresh memory-backed file (/dev/shm when present, else the temp dir), mode 600, and
   * arranges its deletion after `ttlSeconds` by a detached process. Returns the path.
   */
  writeSecretFile(label: string, content: string, ttlSeconds: number): string;
}

// ---------------------------------------------------------------------------------------------------------
// Context

export interface CliContext {
  readonly json: boolean;
  readonly out: CliOutput;
  readonly api: CliApi;
  readonly local: CliLocal;
  /** stdin and stderr are terminals: prompts are possible. */
  readonly interactive: boolean;
  /** stdout is a terminal (secrets may be shown directly). */
  readonly stdoutIsTty: boolean;
  /** Throws `CliError(code, message, details)`. */
  fail(code: string, message: string, details?: Record<string, unknown>): never;
  /** The node's public key hash (learned once per run; null when the node cannot tell). */
  nodeId(): Promise<string | null>;
  /** Records the node id a command learned anyway (saves a request). */
  rememberNodeId(nodeId: string): void;
  /**
   * Counts one use of a rate-limit bucket of this wallet (persisted across runs); throws `RATE_LIMITED` when over.
   * The host already charges the bucket of the top-level command before every action (unless the run waives it:
   * `offerRateLimitOff`); call this only to charge an extra bucket.
   */
  rateLimit(bucket: string, rule?: CliRateRule): Promise<void>;
  /**
   * Asks for confirmation of a dangerous action: passes at once when `yes` (the command's `--yes`), prompts on a
   * terminal, fails with `CONFIRMATION_REQUIRED` otherwise or when the answer is not yes.
   */
  confirm(question: string, yes: boolean): Promise<void>;
  /** Reads one line from the terminal (the question goes to stderr); fails with INVALID_PARAMS when not interactive. */
  prompt(question: string): Promise<string>;
  /**
   * Runs long work with a spinner on stderr (terminal only). `work` may call `update` to change the label as it goes
   * (how many rows are written so far, say).
   */
  progress<T>(label: string, work: (update: (label: string) => void) => Promise<T>): Promise<T>;
}

const waivable = new WeakSet<Command>();

/**
 * Lets scripts waive node-cli's own per-wallet rate limit for one run of `cmd` with `--rate-limit off` (scripted
 * top-ups). The host honours it only with `--json` and an admin key, and charges nothing then; the node's per-key
 * REST limit still applies. Returns `cmd`.
 */
export function offerRateLimitOff(cmd: Command): Command {
  waivable.add(cmd);
  return cmd.option('--rate-limit <mode>', "off: skip node-cli's own rate limit for this run (scripts: needs --json and an admin key)");
}

/** Whether this run of `cmd` asks to waive the rate limit (`--rate-limit off` on a command that offers it). */
export function asksRateLimitOff(cmd: Command): boolean {
  return waivable.has(cmd) && cmd.getOptionValue('rateLimit') !== undefined;
}

export interface CliContribution {
  /** The plugin contributing the commands. */
  plugin: string;
  /**
   * Rate rules of the top-level commands it adds (name → rule). Commands without a rule here or in the builtin
   * table use the default of Document 2: 100 per 60 s, blocked 5 minutes.
   */
  rateLimits?: Record<string, CliRateRule>;
  /**
   * Error codes of the plugin's REST routes that the command line reports under another name (Document 2 lists
   * observed codes such as CONTACT_NOT_FOUND), node code → command-line code. They apply to every command, whoever
   * called the route; the node's code stays in the failure's `node_code`.
   */
  codes?: Readonly<Record<string, string>>;
  /** Adds the commands to the program. Called once per run, before parsing. */
  register(program: CliProgram, ctx: CliContext): void;
}

/** The command-line program a contribution adds its commands to (commander's Command). */
export type CliProgram = Command;

export function defineCliCommands(contribution: CliContribution): CliContribution {
  return contribution;
}

const LOCAL_COMMANDS = new WeakSet<Command>();

/**
 * Marks a command that works on this machine alone (writing files, say): the host then asks for no credentials,
 * charges no rate limit and names no node in its envelope, so it runs where no node is. Marking a parent marks its
 * subcommands.
 */
export function localCommand(command: Command): Command {
  LOCAL_COMMANDS.add(command);
  return command;
}

export const isLocalCommand = (command: Command): boolean => LOCAL_COMMANDS.has(command);

// ---------------------------------------------------------------------------------------------------------
// Display of amounts and dates

const asGiven = (value: unknown): string => (value === null || value === undefined || value === '' ? '-' : String(value));

/** What JSON output and nodes without display preferences show: the API's values unchanged. */
export const RAW_DISPLAY: CliDisplay = { amount: asGiven, date: asGiven };

interface DisplaySource {
  load: (api: CliApi) => Promise<CliDisplay>;
  loaded?: Promise<CliDisplay>;
}

const displaySources = new WeakMap<CliContext, DisplaySource>();

/**
 * Installs, for this run, how human output reads the node's display preferences. The plugin that owns those
 * settings calls it from `register`; every command of every plugin then gets them through `cliDisplay`.
 */
export function provideCliDisplay(ctx: CliContext, load: (api: CliApi) => Promise<CliDisplay>): void {
  if (!displaySources.has(ctx)) displaySources.set(ctx, { load });
}

/**
 * How this run shows amounts and dates to people: read from the node at the first call and kept for the rest of
 * the run. In JSON mode (or when no plugin provides preferences) it asks nothing and changes nothing. Await it
 * before printing amounts or dates: `const show = await cliDisplay(ctx)`, then `format: show.amount`.
 */
export function cliDisplay(ctx: CliContext): Promise<CliDisplay> {
  const source = displaySources.get(ctx);
  if (ctx.json || !source) return Promise.resolve(RAW_DISPLAY);
  source.loaded ??= source.load(ctx.api);
  return source.loaded;
}

/** Parses a `--flag N` integer option value (for `.option(..., parseIntOption('--limit'))`). */
export function parseIntOption(flag: string, min = 0): (value: string) => number {
  return (value: string) => {
    if (!/^-?\d+$/.test(value.trim()) || Number(value) < min) {
      throw new CliError('INVALID_PARAMS', `${flag} expects an integer of at least ${min}, got "${value}"`);
    }
    return Number(value);
  };
}
