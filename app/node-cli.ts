/**
 * `node-cli` entry (bin/node-cli.js). The kernel names no feature: every command comes from the registry of
 * builtin plugin contributions, which lists each plugin's `cli.ts`.
 */
import { builtinCliContributions, builtinCliRateLimits, identifyNode, isAdminKey } from '../builtin-plugins/cli-commands.js';
import { nodeVersion } from '../kernel/version.js';
import { runCli } from '../kernel/cli/run.js';

// A reader that stops early (`node-cli history | head -n 1`) closes the pipe: its choice, not a failure of the command,
// so node-cli ends quietly instead of dying on the write error with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
// A stderr that fails leaves nowhere to report to: it must not change the outcome of the command.
process.stderr.on('error', () => undefined);

/** Waits until everything written to a stream has been handed to the OS (pipes may be asynchronous). */
const drain = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));

const code = await runCli(
  {
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  },
  { version: nodeVersion(), contributions: builtinCliContributions, rateLimits: builtinCliRateLimits, identifyNode, isAdminKey },
).catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
});
await Promise.all([drain(process.stdout), drain(process.stderr)]);
// Keep-alive sockets of fetch and a paused stdin must not hold the process open.
process.exit(code);
