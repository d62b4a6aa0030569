/**
 * node-cli commands of the payback-methods plugin:
 *
 *   payback list [--currency C] [--all]
 *   payback types
 *   payback add <type> <label> <currency> [--field name=value ...] [--row key=value ...] [--fields-json JSON|@file|-]
 *                                         [--share auto|never] [--priority N]
 *   payback view <id>
 *   payback reveal <id>
 *   payback update <id> [--label L] [--priority N] [--share auto|never] [--enable|--disable]
 *                       [--field name=value ... | --row key=value ... | --fields-json JSON|@file|-]   (fields: the complete set)
 *   payback share-policy <id> auto|never
 *   payback delete <id> [--yes]
 *   payback payload <id> [--amount A]
 *   payback fetch <contact> [--currency C]
 *   payback contact <contact> [--currency C]
 *
 * `add` without any field option on a terminal asks for the rail's fields one by one (from the rail catalog).
 * Validation failures list every failing field; with --json they arrive as `error.errors`.
 */
import { readFileSync } from 'node:fs';
import { CliError, cliDisplay, defineCliCommands, parseIntOption, type CliContext, type CliDisplay, type CliQuery } from '../../sdk/cli.js';
import { allPages } from '../../sdk/cli-paging.js';
import type { ResponseData } from '../../sdk/index.js';

/** A method as view answers it, or as reveal answers it: with its plaintext fields. */
type MethodView = ResponseData['GET /api/v1/payback-methods/{id}']['method'] | ResponseData['GET /api/v1/payback-methods/{id}/reveal']['method'];
type ListedMethod = ResponseData['GET /api/v1/payback-methods']['methods'][number];
/** `payback fetch` answers the same shape as `payback contact`. */
type ContactMethods = ResponseData['GET /api/v1/payback-methods/contact/{contact}'] | ResponseData['POST /api/v1/payback-methods/fetch/{contact}'];
type CatalogView = ResponseData['GET /api/v1/payback-methods/types']['types'][number];
type CatalogField = CatalogView['fields'][number];

interface FieldError {
  field: string;
  code: string;
  message: string;
}

const BASE = '/api/v1/payback-methods';
const enc = encodeURIComponent;
const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * A REST call that understands the payback validation envelope (`error` is a string, the failing fields are in
 * `data.errors`): it fails with every field in the message and `errors` in the details.
 */
async function call<T>(ctx: CliContext, method: string, path: string, body?: unknown, query?: CliQuery): Promise<T> {
  const res = await ctx.api.raw(method, path, { ...(body !== undefined ? { body } : {}), ...(query ? { query } : {}) });
  const env = (res.body && typeof res.body === 'object' ? res.body : {}) as {
    success?: boolean;
    data?: { errors?: FieldError[] } | null;
    error?: string | ({ code?: string; message?: string } & Record<string, unknown>);
    message?: string;
  };
  if (res.status < 400 && env.success === true) return env.data as T;
  if (typeof env.error === 'string') {
    const errors = Array.isArray(env.data?.errors) ? env.data.errors : [];
    const lines = errors.map((e) => `  ${e.field}: ${e.message} (${e.code})`);
    const message = errors.length ? `${env.message ?? 'Validation failed'}\n${lines.join('\n')}` : (env.message ?? `HTTP ${res.status}`);
    throw new CliError(env.error, message, { status: res.status, errors });
  }
  const error = env.error && typeof env.error === 'object' ? env.error : {};
  const { code, message, ...rest } = error;
  throw new CliError(typeof code === 'string' ? code : `http_${res.status}`, typeof message === 'string' ? message : `HTTP ${res.status}`, { status: res.status, ...rest });
}

/** `--fields-json`: inline JSON, `@file` to read a file, or `-` for standard input. */
function readJson(source: string): Record<string, unknown> {
  let text = source;
  if (source === '-' || source.startsWith('@')) {
    const from = source === '-' ? 'standard input' : source.slice(1);
    try {
      text = readFileSync(source === '-' ? 0 : source.slice(1), 'utf8');
    } catch (err) {
      throw new CliError('INVALID_PARAMS', `cannot read ${from}: ${(err as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError('INVALID_PARAMS', '--fields-json expects a JSON object (inline, @file or - for standard input)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError('INVALID_PARAMS', '--fields-json expects a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function splitPair(flag: string, spec: string): [string, string] {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new CliError('INVALID_PARAMS', `${flag} expects name=value, got "${spec}"`);
  return [spec.slice(0, eq).trim(), spec.slice(eq + 1)];
}

interface FieldOptions {
  field: string[];
  row: string[];
  fieldsJson?: string;
}

/** The fields object the options describe, or undefined when none was given. */
function fieldsFrom(opts: FieldOptions): Record<string, unknown> | undefined {
  const given = opts.field.length > 0 || opts.row.length > 0 || opts.fieldsJson !== undefined;
  if (!given) return undefined;
  const fields: Record<string, unknown> = opts.fieldsJson !== undefined ? readJson(opts.fieldsJson) : {};
  for (const spec of opts.field) {
    const [name, value] = splitPair('--field', spec);
    fields[name] = value;
  }
  if (opts.row.length > 0) {
    const rows = Array.isArray(fields.rows) ? [...(fields.rows as unknown[])] : [];
    for (const spec of opts.row) {
      const [key, value] = splitPair('--row', spec);
      rows.push({ key, value });
    }
    fields.rows = rows;
  }
  return fields;
}

async function catalogOf(ctx: CliContext, type: string): Promise<CatalogView> {
  const { types } = await ctx.api.get<ResponseData['GET /api/v1/payback-methods/types']>(`${BASE}/types`);
  const entry = types.find((t) => t.id === type);
  if (!entry) throw new CliError('unknown_type', `unknown payback type "${type}"; see: node-cli payback types`);
  return entry;
}

async function ask(ctx: CliContext, field: CatalogField): Promise<string> {
  const options = field.options?.length ? ` [${field.options.join('/')}]` : '';
  const optional = field.required ? '' : ' (optional, Enter to skip)';
  return (await ctx.prompt(`${field.label}${options}${optional}: `)).trim();
}

/** Asks for a rail's fields on the terminal: the discriminator first, then the fields of the chosen variant. */
async function promptFields(ctx: CliContext, entry: CatalogView): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  const fill = async (list: readonly CatalogField[]): Promise<void> => {
    for (const field of list) {
      if (field.type === 'rows') {
        ctx.out.warn(`${field.label}: one "key=value" per line, an empty line to finish`);
        const rows: { key: string; value: string }[] = [];
        for (;;) {
          const line = (await ctx.prompt(`  row ${rows.length + 1}: `)).trim();
          if (line === '') break;
          const [key, value] = splitPair('row', line);
          rows.push({ key, value });
        }
        fields[field.name] = rows;
        continue;
      }
      const value = await ask(ctx, field);
      if (value !== '') fields[field.name] = value;
    }
  };
  await fill(entry.fields);
  const variants = entry.variants;
  if (variants) {
    const chosen = fields[variants.discriminator];
    const extra = typeof chosen === 'string' ? variants.fields[chosen] : undefined;
    if (extra) await fill(extra);
  }
  return fields;
}

const exponentText = (m: { settlement_min_unit: number; settlement_min_unit_exponent: number }): string =>
  `${m.settlement_min_unit} × 10^${m.settlement_min_unit_exponent}`;

function printMethod(ctx: CliContext, show: CliDisplay, m: MethodView, title: string): void {
  ctx.out.kv(
    [
      ['ID', m.method_id],
      ['Type', m.type],
      ['Label', m.label],
      ['Currency', m.currency],
      ['Masked', m.masked_display],
      ['Priority', m.priority],
      ['Enabled', m.enabled ? 'yes' : 'no'],
      ['Share policy', m.share_policy],
      ['Smallest unit', exponentText(m)],
      ['Created', show.date(m.created_at)],
      ['Updated', show.date(m.updated_at)],
    ],
    { title },
  );
  if ('fields' in m) printFields(ctx, m.fields);
}

function printFields(ctx: CliContext, fields: Record<string, unknown>): void {
  const pairs: [string, unknown][] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'rows' && Array.isArray(value)) {
      for (const row of value as { key?: unknown; value?: unknown }[]) pairs.push([String(row.key), String(row.value)]);
    } else {
      pairs.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
    }
  }
  ctx.out.line();
  ctx.out.kv(pairs, { title: 'Fields (secret)' });
}

function printContactMethods(ctx: CliContext, show: CliDisplay, data: ContactMethods, verb: string): void {
  const who = data.contact.name ?? data.contact.pubkey_hash;
  if (data.methods.length === 0) {
    ctx.out.line(data.fetched_at === null ? `No payback methods of ${who} are known. Fetch them with: node-cli payback fetch <contact>` : `${who} shares no payback methods.`);
    return;
  }
  ctx.out.line(`${verb} ${data.methods.length} payback method(s) of ${who} (fetched ${show.date(data.fetched_at)})`);
  for (const m of data.methods) {
    ctx.out.line();
    ctx.out.kv(
      [
        ['Label', m.label],
        ['Type', m.type],
        ['Currency', m.currency],
        ['Priority', m.priority],
        ['Smallest unit', exponentText(m)],
        ['Their id', m.method_id],
      ],
      { title: `${m.label} (${m.masked_display})` },
    );
    if (m.fields) printFields(ctx, m.fields);
  }
}

function sharePolicy(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const policy = value.trim().toLowerCase();
  if (policy !== 'auto' && policy !== 'never') throw new CliError('INVALID_PARAMS', `the share policy is auto or never, got "${value}"`);
  return policy;
}

export default defineCliCommands({
  plugin: 'payback-methods',
  register(program, ctx) {
    const payback = program
      .command('payback')
      .summary('payback methods: how contacts may settle debts with you (bank, crypto, fintech rails)')
      .description(
        'Payback methods tell contacts how to pay you back: an IBAN, a bitcoin address, a Pix key... Fields are ' +
          'stored encrypted and shown masked, except with reveal. Methods whose share policy is auto are sent to ' +
          'accepted contacts that fetch them; never keeps a method to yourself. See the rails with: payback types.',
      );

    payback
      .command('list', { isDefault: true })
      .summary('list payback methods (enabled ones unless --all)')
      .option('--currency <code>', 'only this currency (case-insensitive)')
      .option('--all', 'include disabled methods')
      .action(async (opts: { currency?: string; all?: boolean }) => {
        const query: CliQuery = { ...(opts.currency ? { currency: opts.currency } : {}), ...(opts.all ? { all: 1 } : {}) };
        // The list pages like every Document 1 listing; the payback envelope's errors need `call`.
        const pages = { get: <T>(path: string, q?: CliQuery) => call<T>(ctx, 'GET', path, undefined, q) };
        const { rows } = await allPages<ListedMethod>(pages, BASE, 'methods', query);
        const data = { methods: rows, count: rows.length };
        ctx.out.success(data, () =>
          ctx.out.table(
            data.methods,
            [
              { key: 'method_id', header: 'ID' },
              { key: 'type', header: 'TYPE' },
              { key: 'label', header: 'LABEL', maxWidth: 32 },
              { key: 'currency', header: 'CURRENCY' },
              { key: 'masked_display', header: 'MASKED', maxWidth: 40 },
              { key: 'priority', header: 'PRIORITY', align: 'right' },
              { key: 'enabled', header: 'ENABLED', format: (v) => (v ? 'yes' : 'no') },
              { key: 'share_policy', header: 'SHARE' },
            ],
            { title: `Payback methods: ${data.count}`, empty: 'No payback methods. Add one with: node-cli payback add <type> <label> <currency>' },
          ),
        );
      });

    payback
      .command('types')
      .summary('list the rails a payback method can use')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/payback-methods/types']>(`${BASE}/types`);
        ctx.out.success(data, () =>
          ctx.out.table(
            data.types,
            [
              { key: 'id', header: 'TYPE' },
              { key: 'label', header: 'NAME', maxWidth: 32 },
              {
                key: 'currencies',
                header: 'CURRENCIES',
                maxWidth: 48,
                format: (_v, row) => (Array.isArray(row.currencies) ? row.currencies.join(' ') : row.currencies.rule),
              },
              {
                key: 'fields',
                header: 'FIELDS',
                maxWidth: 60,
                format: (_v, row) => {
                  const names = row.fields.map((f) => (f.required ? f.name : `(${f.name})`));
                  return row.variants ? `${names.join(' ')} + per ${row.variants.discriminator}` : names.join(' ');
                },
              },
              { key: 'core', header: 'CORE', format: (v) => (v ? 'yes' : 'plugin') },
            ],
            { title: `Payback rails: ${data.count}` },
          ),
        );
      });

    payback
      .command('add')
      .summary('add a payback method')
      .description(
        'Fields come from --field name=value (repeatable), --row key=value (custom rails), or --fields-json with a ' +
          'JSON object (@file reads a file, - standard input). Without any, a terminal asks for each field.',
      )
      .argument('<type>', 'rail id (see: payback types)')
      .argument('<label>', 'your name for the method (at most 128 characters)')
      .argument('<currency>', 'currency or asset code (EUR, BTC, USDC...)')
      .option('--field <name=value>', 'a field of the rail (repeatable)', collect, [])
      .option('--row <key=value>', 'a row of a custom method (repeatable)', collect, [])
      .option('--fields-json <json>', 'the fields as a JSON object, @file to read a file, or - for standard input')
      .option('--share <policy>', 'auto (contacts may fetch it) or never', 'auto')
      .option('--priority <n>', 'lower is preferred (0-9999)', parseIntOption('--priority'), 100)
      .action(async (type: string, label: string, currency: string, opts: FieldOptions & { share: string; priority: number }) => {
        let fields = fieldsFrom(opts);
        if (fields === undefined) {
          if (!ctx.interactive) ctx.fail('INVALID_PARAMS', 'give the fields with --field name=value, --row key=value or --fields-json (see: payback types)');
          fields = await promptFields(ctx, await catalogOf(ctx, type));
        }
        const body = { type, label, currency, fields, share_policy: sharePolicy(opts.share), priority: opts.priority };
        const data = await call<ResponseData['POST /api/v1/payback-methods']>(ctx, 'POST', BASE, body);
        ctx.out.success(data, `Payback method added: ${data.method_id}`);
      });

    payback
      .command('view')
      .summary('show a payback method (fields masked)')
      .argument('<id>')
      .action(async (id: string) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/payback-methods/{id}']>(`${BASE}/${enc(id)}`);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printMethod(ctx, show, data.method, `Payback method ${data.method.label}`));
      });

    payback
      .command('reveal')
      .summary('show a payback method with its fields in clear')
      .argument('<id>')
      .action(async (id: string) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/payback-methods/{id}/reveal']>(`${BASE}/${enc(id)}/reveal`);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printMethod(ctx, show, data.method, `Payback method ${data.method.label} (revealed)`));
      });

    payback
      .command('update')
      .summary('change a payback method (fields: give the complete set)')
      .argument('<id>')
      .option('--label <label>', 'new label')
      .option('--priority <n>', 'lower is preferred (0-9999)', parseIntOption('--priority'))
      .option('--share <policy>', 'auto or never')
      .option('--enable', 'enable the method')
      .option('--disable', 'disable the method (kept, not listed, never shared)')
      .option('--field <name=value>', 'a field (repeatable); the fields given replace all stored fields', collect, [])
      .option('--row <key=value>', 'a row of a custom method (repeatable)', collect, [])
      .option('--fields-json <json>', 'the complete fields as a JSON object, @file or - for standard input')
      .action(async (id: string, opts: FieldOptions & { label?: string; priority?: number; share?: string; enable?: boolean; disable?: boolean }) => {
        if (opts.enable && opts.disable) ctx.fail('INVALID_PARAMS', 'give --enable or --disable, not both');
        const body: Record<string, unknown> = {};
        if (opts.label !== undefined) body.label = opts.label;
        if (opts.priority !== undefined) body.priority = opts.priority;
        if (opts.share !== undefined) body.share_policy = sharePolicy(opts.share);
        if (opts.enable) body.enabled = true;
        if (opts.disable) body.enabled = false;
        const fields = fieldsFrom(opts);
        if (fields !== undefined) body.fields = fields;
        if (Object.keys(body).length === 0) ctx.fail('INVALID_PARAMS', 'nothing to change: give --label, --priority, --share, --enable, --disable or fields');
        const data = await call<ResponseData['PUT /api/v1/payback-methods/{id}']>(ctx, 'PUT', `${BASE}/${enc(id)}`, body);
        ctx.out.success(data, `Payback method updated: ${data.method_id}`);
      });

    payback
      .command('share-policy')
      .summary('set whether contacts may fetch a method: auto or never')
      .argument('<id>')
      .argument('<policy>', 'auto or never')
      .action(async (id: string, policy: string) => {
        const data = await call<ResponseData['PUT /api/v1/payback-methods/{id}/share-policy']>(ctx, 'PUT', `${BASE}/${enc(id)}/share-policy`, { share_policy: sharePolicy(policy) });
        ctx.out.success(data, `Share policy of ${data.method_id}: ${data.share_policy}`);
      });

    payback
      .command('delete')
      .summary('delete a payback method (permanent)')
      .argument('<id>')
      .option('--yes', 'do not ask for confirmation')
      .action(async (id: string, opts: { yes?: boolean }) => {
        await ctx.confirm(`Delete payback method ${id} permanently?`, opts.yes === true);
        const data = await ctx.api.delete<ResponseData['DELETE /api/v1/payback-methods/{id}']>(`${BASE}/${enc(id)}`);
        ctx.out.success(data, `Payback method deleted: ${data.method_id}`);
      });

    payback
      .command('payload')
      .summary('the payment link or QR payload of a method (rails that have one)')
      .argument('<id>')
      .option('--amount <amount>', 'amount to request (plain decimal)')
      .action(async (id: string, opts: { amount?: string }) => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/payback-methods/{id}/payload']>(
          `${BASE}/${enc(id)}/payload`,
          opts.amount !== undefined ? { amount: opts.amount } : undefined,
        );
        ctx.out.success(data, data.payload.kind === 'link' ? data.payload.uri : data.payload.payload);
      });

    payback
      .command('fetch')
      .summary("ask a contact for the payback methods it shares, now")
      .argument('<contact>', 'name, address or public key hash')
      .option('--currency <code>', 'only methods in this currency')
      .action(async (reference: string, opts: { currency?: string }) => {
        const data = await call<ResponseData['POST /api/v1/payback-methods/fetch/{contact}']>(ctx, 'POST', `${BASE}/fetch/${enc(reference)}`, opts.currency ? { currency: opts.currency } : {});
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printContactMethods(ctx, show, data, 'Fetched'));
      });

    payback
      .command('contact')
      .summary('the payback methods a contact shared, as last fetched')
      .argument('<contact>', 'name, address or public key hash')
      .option('--currency <code>', 'only methods in this currency')
      .action(async (reference: string, opts: { currency?: string }) => {
        const data = await call<ResponseData['GET /api/v1/payback-methods/contact/{contact}']>(ctx, 'GET', `${BASE}/contact/${enc(reference)}`, undefined, opts.currency ? { currency: opts.currency } : undefined);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printContactMethods(ctx, show, data, 'Known'));
      });
  },
});
