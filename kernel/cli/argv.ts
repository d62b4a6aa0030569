/**
 * Global options of node-cli may appear anywhere on the line (`node-cli --json info`, `node-cli info -j`), so
 * they are taken out of argv before commander sees the command. Everything after a bare `--` is left alone.
 */
export interface GlobalOptions {
  json: boolean;
  metadata: boolean;
  dataDir: string | null;
}

export interface SplitArgv {
  globals: GlobalOptions;
  rest: string[];
}

export class ArgvError extends Error {}

export function extractGlobalOptions(argv: readonly string[]): SplitArgv {
  const globals: GlobalOptions = { json: false, metadata: true, dataDir: null };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--json' || arg === '-j') globals.json = true;
    else if (arg === '--no-metadata') globals.metadata = false;
    else if (arg === '--data-dir') {
      const value = argv[i + 1];
      if (value === undefined || value === '') throw new ArgvError('--data-dir expects a directory');
      globals.dataDir = value;
      i++;
    } else if (arg.startsWith('--data-dir=')) {
      const value = arg.slice('--data-dir='.length);
      if (!value) throw new ArgvError('--data-dir expects a directory');
      globals.dataDir = value;
    } else rest.push(arg);
  }
  return { globals, rest };
}
