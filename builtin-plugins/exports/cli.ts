/**
 * node-cli `export` (Document 2):
 *
 *   export <transactions|payment_requests|contacts|balances> [--format csv|json] [--view slim|full] [-o FILE]
 *          [--contact NAME] [--status S] [--type T] [--direction D] [--currency C] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
 *
 * The body goes to the file as it arrives (the node streams it; nothing is held whole). A body that ends with the
 * sentinel of Document 1 (`#ERROR ` row, or an NDJSON line with `_partial`) is an incomplete export: the file keeps
 * what came, sentinel included, and the command exits 1.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, resolve } from 'node:path';
import { CliError, defineCliCommands, type CliContext, type CliQuery } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

const ENTITIES = ['transactions', 'payment_requests', 'contacts', 'balances'] as const;
type Entity = (typeof ENTITIES)[number];

interface Options {
  format?: string;
  view?: string;
  output?: string;
  contact?: string;
  status?: string;
  type?: string;
  direction?: string;
  currency?: string;
  from?: string;
  to?: string;
}

/** Which filter flags each entity takes (the others are refused, not ignored: a filter that does nothing misleads). */
const FLAGS: Record<Entity, readonly (keyof Options)[]> = {
  transactions: ['contact', 'status', 'type', 'from', 'to'],
  payment_requests: ['contact', 'status', 'direction', 'from', 'to'],
  contacts: ['status'],
  balances: ['contact', 'currency'],
};
const QUERY_NAME: Partial<Record<keyof Options, string>> = { status: 'status', type: 'type', direction: 'direction', currency: 'currency', from: 'from', to: 'to' };

/** What a line count must leave out, and how the body's last line reads when it broke off. */
export interface TailCheck {
  /** Records in the body, the header excluded. */
  rows: number;
  /** The sentinel's message when the body ends with one. */
  failure: string | null;
}

/**
 * Counts records and keeps the body's last line while the chunks pass. CSV records end at a line feed outside
 * quotes (a quoted cell may hold line breaks); NDJSON records at every line feed.
 */
export class RecordCounter {
  #records = 0;
  #inQuotes = false;
  #tail: Buffer = Buffer.alloc(0);

  constructor(private readonly csv: boolean) {}

  add(chunk: Uint8Array): void {
    if (this.csv) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 0x22) this.#inQuotes = !this.#inQuotes;
        else if (b === 0x0a && !this.#inQuotes) this.#records++;
      }
    } else {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) this.#records++;
    }
    // The sentinel is one short line: the last few KiB of the body always hold it whole.
    const joined = Buffer.concat([this.#tail, chunk]);
    this.#tail = joined.length > 8192 ? joined.subarray(joined.length - 8192) : joined;
  }

  get records(): number {
    return this.#records;
  }

  finish(): TailCheck {
    const lines = this.#tail.toString('utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l !== '');
    const last = lines.at(-1) ?? '';
    let failure: string | null = null;
    if (this.csv && last.startsWith('#ERROR ')) failure = last.slice('#ERROR '.length);
    if (!this.csv && last.includes('"_partial"')) {
      try {
        const parsed = JSON.parse(last) as { _error?: unknown; _partial?: unknown };
        if (parsed._partial === true) failure = typeof parsed._error === 'string' ? parsed._error : 'the export broke off';
      } catch {
        // an ordinary record that mentions _partial in its text
      }
    }
    const header = this.csv && this.#records > 0 ? 1 : 0;
    return { rows: this.#records - header - (failure !== null ? 1 : 0), failure };
  }
}

/** The name the node suggests (Content-Disposition), reduced to a plain file name in the current directory. */
function suggestedName(disposition: string | null, entity: Entity, format: string): string {
  const m = disposition ? /filename="([^"]+)"/.exec(disposition) : null;
  const name = m ? basename(m[1]!).replace(/[^A-Za-z0-9._-]/g, '') : '';
  return name && !name.startsWith('.') ? name : `node-${entity.replace('_', '-')}.${format === 'json' ? 'ndjson' : 'csv'}`;
}

const size = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

async function resolveContact(ctx: CliContext, reference: string): Promise<string> {
  const ref = reference.trim();
  if (/^[0-9a-fA-F]{64}$/.test(ref)) return ref.toLowerCase();
  const data = await ctx.api.get<ResponseData['GET /api/v1/contacts/{address}']>(`/api/v1/contacts/${encodeURIComponent(ref)}`);
  if (!data.contact.pubkey_hash) throw new CliError('INVALID_PARAMS', `${ref} has no known key yet: nothing of it can be exported`);
  return data.contact.pubkey_hash;
}

async function write(stream: WriteStream, chunk: Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  if (stream.closed) return;
  await new Promise<void>((done, fail) => stream.end((err?: Error | null) => (err ? fail(err) : done())));
}

async function runExport(ctx: CliContext, rawEntity: string, opts: Options): Promise<void> {
  const entity = rawEntity.trim().toLowerCase().replace(/-/g, '_') as Entity;
  if (!ENTITIES.includes(entity)) throw new CliError('INVALID_PARAMS', `unknown export "${rawEntity}": choose ${ENTITIES.join(', ')}`);
  for (const flag of ['contact', 'status', 'type', 'direction', 'currency', 'from', 'to'] as const) {
    if (opts[flag] !== undefined && !FLAGS[entity].includes(flag)) {
      throw new CliError('INVALID_PARAMS', `--${flag} does not apply to ${entity} (it takes ${FLAGS[entity].map((f) => `--${f}`).join(', ')})`);
    }
  }
  const format = (opts.format ?? 'csv').toLowerCase();
  const query: CliQuery = { format, view: (opts.view ?? 'slim').toLowerCase() };
  for (const [flag, name] of Object.entries(QUERY_NAME)) {
    const value = opts[flag as keyof Options];
    if (value !== undefined) query[name] = value;
  }
  if (opts.contact !== undefined) query.contact_pubkey_hash = await resolveContact(ctx, opts.contact);

  const { headers, body } = await ctx.api.stream(`/api/v1/export/${entity}`, query);
  const csv = (headers.get('content-type') ?? '').startsWith('text/csv');
  const file = resolve(opts.output ?? suggestedName(headers.get('content-disposition'), entity, format));
  // An export holds the wallet's history: readable by its owner only, as the node's own files are.
  const out = createWriteStream(file, { flags: 'w', mode: 0o600 });
  try {
    await once(out, 'open');
  } catch (err) {
    await body[Symbol.asyncIterator]().return?.();
    throw new CliError('INVALID_PARAMS', `cannot write ${file}: ${(err as Error).message}`);
  }
  const counter = new RecordCounter(csv);
  let bytes = 0;
  try {
    await ctx.progress(`Exporting ${entity}`, async (update) => {
      for await (const chunk of body) {
        counter.add(chunk);
        bytes += chunk.length;
        await write(out, chunk);
        update(`Exporting ${entity}: ${counter.records.toLocaleString('en-US')} lines, ${size(bytes)}`);
      }
    });
  } catch (err) {
    await close(out).catch(() => undefined);
    if (err instanceof CliError) throw new CliError(err.code, `${err.message}; ${file} is incomplete`, { ...err.details, file, bytes });
    throw err;
  }
  await close(out);
  const { rows, failure } = counter.finish();
  const view = String(query.view);
  if (failure !== null) {
    throw new CliError('EXPORT_INCOMPLETE', `the export broke off after ${rows} rows: ${failure} (the partial file, ending with the sentinel, is ${file})`, {
      file,
      rows,
      bytes,
      sentinel: failure,
    });
  }
  ctx.out.success({ entity, format, view, file, rows, bytes, complete: true }, `Exported ${rows} ${entity} rows (${format}, ${view} view, ${size(bytes)}) to ${file}`);
}

export default defineCliCommands({
  plugin: 'exports',
  register(program, ctx) {
    program
      .command('export')
      .summary('export transactions, payment requests, contacts or balances as CSV or NDJSON')
      .description(
        'Streams an export from the node to a file: CSV (UTF-8 with BOM, for spreadsheets; text that could run as a ' +
          'formula is quote-prefixed) or NDJSON (one JSON object per line). Transactions and payment requests come ' +
          'oldest first, contacts by name, balances by currency then contact. If the node fails part-way, the file ends ' +
          'with the #ERROR row (CSV) or an _error/_partial line (NDJSON) and the command exits 1.',
      )
      .argument('<entity>', 'transactions, payment_requests, contacts or balances')
      .option('--format <format>', 'csv (default) or json (NDJSON)')
      .option('--view <view>', 'slim (default) or full (every column)')
      .option('-o, --output <file>', 'file to write (default: the name the node suggests, in the current directory)')
      .option('--contact <name>', 'only this contact (name, address or key hash): transactions, payment_requests, balances')
      .option('--status <status>', 'only this status (transactions, payment_requests, contacts)')
      .option('--type <type>', 'sent, received or relay (transactions)')
      .option('--direction <direction>', 'incoming or outgoing (payment_requests)')
      .option('--currency <code>', 'only this currency (balances)')
      .option('--from <date>', 'from this UTC day, YYYY-MM-DD, inclusive (transactions, payment_requests)')
      .option('--to <date>', 'to this UTC day, YYYY-MM-DD, inclusive (transactions, payment_requests)')
      .action((entity: string, opts: Options) => runExport(ctx, entity, opts));
  },
});
