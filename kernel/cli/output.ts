/**
 * Output of node-cli. Human mode: messages and aligned tables on stdout, `Error: <message>` on stderr. JSON mode
 * (`--json`): exactly one envelope on stdout, `{success, data, metadata {timestamp, node_id, command}}` or
 * `{success:false, error {code, message, ...}, metadata}`; `--no-metadata` drops `metadata`.
 */
import type { CliColumn, CliOutput, CliTableOptions } from '../../sdk/cli.js';

export interface Writer {
  write(text: string): void;
}

export interface Metadata {
  timestamp: string;
  node_id: string | null;
  command: string;
}

const cellText = (value: unknown): string => {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length ? value.map(cellText).join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

const clip = (text: string, max: number | undefined): string =>
  max !== undefined && text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;

/** The lines of an aligned table: header, a dashed rule, rows. Exported for tests. */
export function formatTable<R extends object>(rows: readonly R[], columns: readonly CliColumn<R>[]): string[] {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const value = (row as Record<string, unknown>)[c.key];
      return clip((c.format ? c.format(value, row) : cellText(value)).replace(/\s*\n\s*/g, ' '), c.maxWidth);
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const render = (parts: string[]): string =>
    parts
      .map((p, i) => (columns[i]!.align === 'right' ? p.padStart(widths[i]!) : p.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [render(columns.map((c) => c.header)), render(widths.map((w) => '-'.repeat(w))), ...cells.map(render)];
}

/** Aligned `label  value` lines. Exported for tests. */
export function formatKv(pairs: ReadonlyArray<readonly [string, unknown]>, indent = 0): string[] {
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  const pad = ' '.repeat(indent);
  return pairs.map(([k, v]) => `${pad}${k.padEnd(width)}  ${cellText(v)}`.trimEnd());
}

/** How data without a renderer prints in human mode: scalars as text, objects as key-value lines. */
function defaultHuman(data: unknown): string[] {
  if (data === null || data === undefined) return ['OK'];
  if (typeof data !== 'object') return [String(data)];
  if (Array.isArray(data)) return data.map((d) => cellText(d));
  const entries = Object.entries(data as Record<string, unknown>);
  const message = entries.find(([k, v]) => k === 'message' && typeof v === 'string')?.[1] as string | undefined;
  const rest = entries.filter(([k]) => k !== 'message');
  return [...(message ? [message] : []), ...formatKv(rest, message ? 2 : 0)];
}

export class Output implements CliOutput {
  #result: { data: unknown } | null = null;

  constructor(
    readonly json: boolean,
    private readonly stdout: Writer,
    private readonly stderr: Writer,
  ) {}

  get hasResult(): boolean {
    return this.#result !== null;
  }

  get result(): unknown {
    return this.#result?.data;
  }

  success(data: unknown, human?: string | (() => void)): void {
    if (this.#result) throw new Error('a command reported its result twice');
    this.#result = { data: data === undefined ? null : data };
    if (this.json) return;
    if (typeof human === 'function') human();
    else for (const l of human !== undefined ? [human] : defaultHuman(data)) this.line(l);
  }

  line(text = ''): void {
    if (!this.json) this.stdout.write(`${text}\n`);
  }

  warn(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  table<R extends object>(rows: readonly R[], columns: readonly CliColumn<R>[], options: CliTableOptions = {}): void {
    if (this.json) return;
    if (options.title) this.line(options.title);
    const pad = ' '.repeat(options.indent ?? (options.title ? 2 : 0));
    if (rows.length === 0) {
      this.line(`${pad}${options.empty ?? '(none)'}`);
      return;
    }
    for (const l of formatTable(rows, columns)) this.line(`${pad}${l}`);
  }

  kv(pairs: ReadonlyArray<readonly [string, unknown]>, options: { title?: string; indent?: number } = {}): void {
    if (this.json) return;
    if (options.title) this.line(options.title);
    for (const l of formatKv(pairs, options.indent ?? (options.title ? 2 : 0))) this.line(l);
  }

  /** Prints the success envelope (JSON mode; human output was printed as it came). */
  finishSuccess(metadata: Metadata | null): void {
    if (!this.json) return;
    this.stdout.write(`${JSON.stringify({ success: true, data: this.#result?.data ?? null, ...(metadata ? { metadata } : {}) }, null, 2)}\n`);
  }

  finishError(code: string, message: string, details: Record<string, unknown> | undefined, metadata: Metadata | null): void {
    if (this.json) {
      const { code: _code, message: _message, ...rest } = details ?? {};
      const error = { code, message, ...rest };
      this.stdout.write(`${JSON.stringify({ success: false, error, ...(metadata ? { metadata } : {}) }, null, 2)}\n`);
      return;
    }
    this.stderr.write(`Error: ${message}\n`);
  }
}
