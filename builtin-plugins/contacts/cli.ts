/**
 * node-cli commands of the contacts plugin (Document 2, "contact ..."); flags go anywhere after the verb:
 *
 *   contact add <address> <name> [--fee F] [--credit C] [--currency CCY] [--requested-credit RC [--enforce-requested-credit]] [--message M] [--pubkey-hash H]
 *   contact accept <contact> --currency CCY --fee F --credit C [--currency ... --fee ... --credit ...] [--name N]
 *   contact apply <contact> [--accept CCY:fee:credit ...] [--decline CCY ...] [--defer CCY ...] [--from <file|->] [--name N]
 *   contact decline <contact>
 *   contact list [--status accepted|pending|blocked|all]
 *   contact pending
 *   contact view <contact>
 *   contact update <contact> [--name N] [--fee F] [--credit C] [--currency CCY]
 *   contact delete|block|unblock|ping <contact>
 *   contact search <query>
 *   contact currency add|accept <contact> <currency> --fee F --credit C   (both flags required)
 *   contact currency decline|remove <contact> <currency>
 *   contact currency list <contact>
 *
 * <contact> is a name, an address (http, https, onion) or a public key hash; an ambiguous name fails with the
 * candidates. Every subcommand counts against the `contact` rate-limit bucket (20 per 60 s).
 */
import { readFileSync } from 'node:fs';
import { CliError, cliDisplay, defineCliCommands, type CliContext, type CliDisplay } from '../../sdk/cli.js';
import { allPages } from '../../sdk/cli-paging.js';
import type { ResponseData } from '../../sdk/index.js';

type ContactView = ResponseData['GET /api/v1/contacts/{address}']['contact'];
type ListedContact = ResponseData['GET /api/v1/contacts']['contacts'][number];
/** A row of list or search: search answers no currency lines. */
type ContactSummary = ResponseData['GET /api/v1/contacts/search']['contacts'][number] & Partial<Pick<ListedContact, 'currencies'>>;
type PendingLists = ResponseData['GET /api/v1/contacts/pending']['pending'];
type PendingEntry = PendingLists['incoming'][number] | PendingLists['outgoing'][number];

interface Decision {
  currency: string;
  action: 'accept' | 'decline' | 'defer';
  fee?: number | string;
  credit?: number | string;
}

const NAME_RULE = /^[A-Za-z0-9 _-]{2,50}$/;
const enc = encodeURIComponent;
const collect = (value: string, previous: string[]): string[] => [...previous, value];

const addressOf = (c: { addresses: ContactView['addresses'] }): string | null => c.addresses.tor ?? c.addresses.https ?? c.addresses.http;

/** A number-like flag value: kept as typed (the node validates and answers with its own error). */
function numeric(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*\+?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) throw new CliError('INVALID_PARAMS', `${flag} expects a non-negative number, got "${value}"`);
  return value.trim();
}


/** A decline the node recorded but could not send (`notice: not_delivered`): the operator hears why. */
type DeliveryNotice = Pick<ResponseData['POST /api/v1/contacts/{hash}/decline'], 'notice' | 'notice_reason'>;

function warnNotDelivered(ctx: CliContext, data: DeliveryNotice): void {
  if (data.notice === 'not_delivered') ctx.out.warn(`Not delivered: ${data.notice_reason ?? 'the contact cannot be reached'}`);
}
async function viewContact(ctx: CliContext, reference: string): Promise<ContactView> {
  return (await ctx.api.get<ResponseData['GET /api/v1/contacts/{address}']>(`/api/v1/contacts/${enc(reference)}`)).contact;
}

/** The key hash a :hash route needs, from any reference. */
async function hashOf(ctx: CliContext, reference: string): Promise<{ hash: string; contact: ContactView }> {
  const contact = await viewContact(ctx, reference);
  if (!contact.pubkey_hash) {
    ctx.fail('CONTACT_NOT_FOUND', `The key of ${reference} is not known yet (its node has not answered); try again once it is reachable`);
  }
  return { hash: contact.pubkey_hash, contact };
}

const rowColumns = (show: CliDisplay) => [
  { key: 'currency', header: 'CURRENCY' },
  { key: 'status', header: 'STATUS' },
  { key: 'direction', header: 'DIRECTION' },
  { key: 'fee_percent', header: 'FEE %', align: 'right' as const },
  { key: 'credit_limit', header: 'CREDIT', align: 'right' as const, format: show.amount },
  { key: 'my_available_credit', header: 'AVAILABLE TO ME', align: 'right' as const, format: show.amount },
];

function printContact(ctx: CliContext, show: CliDisplay, c: ContactView): void {
  const b = c.balance;
  ctx.out.kv(
    [
      ['Name', c.name ?? `(unnamed${c.suggested_name ? `; suggested: ${c.suggested_name}` : ''})`],
      ['Status', c.status],
      ['Public key hash', c.pubkey_hash ?? '(not known yet)'],
      ['http', c.addresses.http],
      ['https', c.addresses.https],
      ['tor', c.addresses.tor],
      ['Online', c.online_status ?? 'unknown'],
      ['Last ping', c.last_ping_at ? show.date(c.last_ping_at) : 'never'],
      ['Chain valid', c.chain_valid ?? 'unknown'],
      ...(b ? ([['Balance', `${show.amount(b.net)} ${b.currency ?? ''} (received ${show.amount(b.received)}, sent ${show.amount(b.sent)})`]] as [string, unknown][]) : []),
      ['Created', show.date(c.created_at)],
    ],
    { title: `Contact ${c.name ?? c.pubkey_hash ?? ''}` },
  );
  ctx.out.line();
  ctx.out.table(c.currencies, rowColumns(show), { title: 'Currencies', empty: 'none' });
}

function printContacts(ctx: CliContext, show: CliDisplay, contacts: readonly ContactSummary[], title: string): void {
  ctx.out.table(
    contacts,
    [
      { key: 'name', header: 'NAME', maxWidth: 30 },
      { key: 'status', header: 'STATUS' },
      { key: 'currencies', header: 'CURRENCIES', format: (_v, row) => (row.currencies ?? []).map((r) => `${r.currency}(${r.status})`).join(' ') || '-' },
      { key: 'my_available_credit', header: 'AVAILABLE TO ME', align: 'right', format: show.amount },
      { key: 'addresses', header: 'ADDRESS', maxWidth: 48, format: (_v, row) => addressOf(row) ?? '-' },
      { key: 'pubkey_hash', header: 'KEY HASH', format: (v) => (typeof v === 'string' ? `${v.slice(0, 12)}…` : '-') },
    ],
    { title, empty: 'No contacts.' },
  );
}

/** Triplets `--currency X --fee F --credit C`, paired by position. */
function triplets(opts: { currency?: string[]; fee?: string[]; credit?: string[] }): Decision[] {
  const currencies = opts.currency ?? [];
  const fees = opts.fee ?? [];
  const credits = opts.credit ?? [];
  if (currencies.length === 0) throw new CliError('INVALID_PARAMS', 'give at least one --currency CCY --fee F --credit C triplet');
  if (fees.length !== currencies.length || credits.length !== currencies.length) {
    throw new CliError('INVALID_PARAMS', `each --currency needs its --fee and --credit (got ${currencies.length} currencies, ${fees.length} fees, ${credits.length} credits)`);
  }
  return currencies.map((currency, i) => ({ currency, action: 'accept', fee: numeric('--fee', fees[i]), credit: numeric('--credit', credits[i]) }) as Decision);
}

function parseAccept(spec: string): Decision {
  const parts = spec.split(':');
  if (parts.length !== 3 || !parts[0]) throw new CliError('INVALID_PARAMS', `--accept expects CCY:fee:credit, got "${spec}"`);
  return { currency: parts[0], action: 'accept', fee: numeric('--accept fee', parts[1]), credit: numeric('--accept credit', parts[2]) } as Decision;
}

function readDecisionsFile(source: string): Decision[] {
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (err) {
    throw new CliError('INVALID_PARAMS', `cannot read ${source === '-' ? 'standard input' : source}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError('INVALID_PARAMS', '--from expects a JSON array of {currency, action, fee?, credit?}');
  }
  if (!Array.isArray(parsed) || parsed.some((d) => typeof d !== 'object' || d === null)) {
    throw new CliError('INVALID_PARAMS', '--from expects a JSON array of {currency, action, fee?, credit?}');
  }
  return parsed as Decision[];
}

/**
 * Sends decisions; while the contact is pending the node needs a name and the address the acceptance goes to: the
 * one given (`--address`, checked by the node against the contact's key), else the contact's verified address.
 */
async function applyDecisions(ctx: CliContext, reference: string, decisions: Decision[], name: string | undefined, address: string | undefined): Promise<void> {
  const { hash, contact } = await hashOf(ctx, reference);
  const body: Record<string, unknown> = { decisions };
  let chosenName: string | null = null;
  if (contact.status === 'pending') {
    chosenName = name ?? contact.name ?? (contact.suggested_name && NAME_RULE.test(contact.suggested_name) ? contact.suggested_name : `Contact ${hash.slice(0, 8)}`);
    body.is_new_contact = true;
    const confirmed = address ?? addressOf(contact);
    if (!confirmed && decisions.some((d) => d.action === 'accept')) {
      ctx.fail('INVALID_PARAMS', 'the contact has no verified address yet: give the address to answer at with --address');
    }
    body.contact_address = confirmed;
    body.contact_name = chosenName;
  } else if (name !== undefined) {
    ctx.out.warn('--name is used only for a pending contact; rename with: node-cli contact update <contact> --name N');
  }
  const data = await ctx.api.post<ResponseData['POST /api/v1/contacts/{hash}/decisions']>(
    `/api/v1/contacts/${hash}/decisions`,
    body,
  );
  ctx.out.success(data, () => {
    if (data.declined.length) ctx.out.line(`Declined: ${data.declined.join(', ')}`);
    if (data.accepted.length) ctx.out.line(`Accepted: ${data.accepted.join(', ')}${chosenName ? ` (contact saved as "${chosenName}")` : ''}`);
    if (data.deferred?.length) ctx.out.line(`Deferred: ${data.deferred.join(', ')}`);
    for (const e of data.errors) ctx.out.line(`Failed ${e.currency ?? '?'}: ${e.code}: ${e.message}`);
    if (!data.accepted.length && !data.declined.length && !data.errors.length) ctx.out.line('Nothing changed.');
  });
  warnNotDelivered(ctx, data);
  if (data.errors.length) throw new CliError('DECISION_FAILED', `${data.errors.length} decision(s) failed`, { errors: data.errors, accepted: data.accepted, declined: data.declined });
}

export default defineCliCommands({
  plugin: 'contacts',
  // Document 2's observed codes for the two contact failures.
  codes: { contact_not_found: 'CONTACT_NOT_FOUND', contact_exists: 'CONTACT_EXISTS' },
  register(program, ctx) {
    const contact = program
      .command('contact')
      .summary('add, accept, list, update, block and ping contacts; manage their currencies')
      .description(
        'Contacts are the nodes this one trusts, each with a credit line per currency (fee percent and credit limit). ' +
          '<contact> is a name, an address (http, https, .onion) or a public key hash; an ambiguous name fails and ' +
          'lists the candidates. Every subcommand counts against the contact rate limit (20 per minute).',
      );

    contact
      .command('add')
      .summary('send a contact request')
      .description('Sends a contact request in one currency. Defaults: fee 0, credit 0, currency VWL.')
      .argument('<address>', 'http://host:port, https://host:port or a v3 .onion address')
      .argument('<name>', '2-50 characters: letters, digits, spaces, dashes, underscores')
      .option('--fee <percent>', 'routing fee percent you charge the contact (0-100)', '0')
      .option('--credit <amount>', 'credit you extend to the contact', '0')
      .option('--currency <code>', 'currency of the credit line', 'VWL')
      .option('--requested-credit <amount>', 'credit you ask the contact to extend to you')
      .option('--enforce-requested-credit', 'make --requested-credit a minimum the contact must grant')
      .option('--message <text>', 'a message for the contact (at most 255 characters; sent encrypted)')
      .option('--pubkey-hash <hash>', 'the key you expect at that address (64 hex, learned out of band): any other key is refused')
      .action(async (address: string, name: string, opts: { fee: string; credit: string; currency: string; requestedCredit?: string; enforceRequestedCredit?: boolean; message?: string; pubkeyHash?: string }) => {
        if (opts.enforceRequestedCredit && opts.requestedCredit === undefined) {
          ctx.fail('INVALID_PARAMS', '--enforce-requested-credit needs --requested-credit');
        }
        if (opts.message !== undefined && [...opts.message].length > 255) ctx.fail('INVALID_PARAMS', '--message must be at most 255 characters');
        const body: Record<string, unknown> = {
          address,
          name,
          fee_percent: Number(numeric('--fee', opts.fee)),
          credit_limit: numeric('--credit', opts.credit),
          currency: opts.currency,
        };
        if (opts.requestedCredit !== undefined) body.requested_credit_limit = numeric('--requested-credit', opts.requestedCredit);
        if (opts.pubkeyHash !== undefined) body.pubkey_hash = opts.pubkeyHash;
        if (opts.enforceRequestedCredit) body.requested_credit_enforced = true;
        if (opts.message !== undefined) body.description = opts.message;
        const data = await ctx.api.post<ResponseData['POST /api/v1/contacts']>('/api/v1/contacts', body);
        ctx.out.success(data, data.message);
      });

    contact
      .command('accept')
      .summary('accept a contact request (one or more --currency/--fee/--credit triplets)')
      .argument('<contact>')
      .option('--currency <code>', 'a requested currency to accept (repeatable)', collect, [])
      .option('--fee <percent>', 'fee percent for the currency at the same position (repeatable)', collect, [])
      .option('--credit <amount>', 'credit limit for the currency at the same position (repeatable)', collect, [])
      .option('--name <name>', 'name to save a new contact under (default: the name it suggested)')
      .option('--address <address>', "a new contact's address to answer at (default: its verified address)")
      .action(async (reference: string, opts: { currency: string[]; fee: string[]; credit: string[]; name?: string; address?: string }) => {
        await applyDecisions(ctx, reference, triplets(opts), opts.name, opts.address);
      });

    contact
      .command('apply')
      .summary('accept, decline or defer requested currencies in one go (declines first)')
      .argument('<contact>')
      .option('--accept <CCY:fee:credit>', 'accept a currency (repeatable)', collect, [])
      .option('--decline <code>', 'decline a currency (repeatable)', collect, [])
      .option('--defer <code>', 'leave a currency pending (repeatable)', collect, [])
      .option('--from <file>', 'read a JSON array of {currency, action, fee?, credit?} from a file, or - for standard input')
      .option('--name <name>', 'name to save a new contact under')
      .option('--address <address>', "a new contact's address to answer at (default: its verified address)")
      .action(async (reference: string, opts: { accept: string[]; decline: string[]; defer: string[]; from?: string; name?: string; address?: string }) => {
        const decisions: Decision[] = [
          ...opts.decline.map((currency) => ({ currency, action: 'decline' }) as Decision),
          ...opts.accept.map(parseAccept),
          ...opts.defer.map((currency) => ({ currency, action: 'defer' }) as Decision),
          ...(opts.from !== undefined ? readDecisionsFile(opts.from) : []),
        ];
        if (decisions.length === 0) ctx.fail('INVALID_PARAMS', 'give --accept, --decline, --defer or --from');
        await applyDecisions(ctx, reference, decisions, opts.name, opts.address);
      });

    contact
      .command('decline')
      .summary('decline every pending request of a contact (idempotent)')
      .argument('<contact>')
      .action(async (reference: string) => {
        const { hash } = await hashOf(ctx, reference);
        const data = await ctx.api.post<ResponseData['POST /api/v1/contacts/{hash}/decline']>(`/api/v1/contacts/${hash}/decline`);
        ctx.out.success(data, data.message);
        warnNotDelivered(ctx, data);
      });

    contact
      .command('list')
      .summary('list contacts by status (default accepted)')
      .option('--status <status>', 'accepted, pending, blocked or all', 'accepted')
      .action(async (opts: { status: string }) => {
        const { rows } = await allPages<ListedContact>(ctx.api, '/api/v1/contacts', 'contacts', { status: opts.status });
        const data = { contacts: rows, count: rows.length };
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printContacts(ctx, show, data.contacts, `Contacts (${opts.status}): ${data.count}`));
      });

    contact
      .command('pending')
      .summary('pending requests: incoming (waiting for you) and outgoing (waiting for them)')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/contacts/pending']>('/api/v1/contacts/pending');
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => {
          // Who asks is decided on the name it suggests and the address it answers at, so both are shown.
          const rows = (list: readonly PendingEntry[]) =>
            list.flatMap((c) =>
              c.currencies.map((r) => ({
                name: c.name,
                suggested: c.suggested_name,
                address: addressOf(c),
                // Whole: it is what the operator types to accept or decline (a name may be missing or shared).
                key: c.pubkey_hash ?? '-',
                currency: r.currency,
                requested: r.requested_credit_limit ? `${show.amount(r.requested_credit_limit)}${r.requested_credit_enforced ? ' (minimum)' : ''}` : '-',
                // Only an incoming line carries a warning.
                note: ('warning' in r ? r.warning : null) ?? r.description ?? '',
              })),
            );
          const columns = (incoming: boolean) => [
            { key: 'name', header: 'NAME', maxWidth: 30 },
            ...(incoming ? [{ key: 'suggested', header: 'SUGGESTED NAME', maxWidth: 30 }] : []),
            { key: 'address', header: 'ADDRESS', maxWidth: 48 },
            { key: 'key', header: 'KEY HASH' },
            { key: 'currency', header: 'CURRENCY' },
            { key: 'requested', header: 'REQUESTED CREDIT', align: 'right' as const },
            { key: 'note', header: 'NOTE', maxWidth: 50 },
          ];
          ctx.out.table(rows(data.pending.incoming), columns(true), { title: `Incoming (${data.counts.incoming})`, empty: 'none' });
          ctx.out.line();
          ctx.out.table(rows(data.pending.outgoing), columns(false), { title: `Outgoing (${data.counts.outgoing})`, empty: 'none' });
        });
      });

    contact
      .command('view')
      .summary('one contact with its currencies and balance')
      .argument('<contact>')
      .action(async (reference: string) => {
        const c = await viewContact(ctx, reference);
        const show = await cliDisplay(ctx);
        ctx.out.success({ contact: c }, () => printContact(ctx, show, c));
      });

    contact
      .command('update')
      .summary('change a name, fee or credit limit locally (the contact is not notified)')
      .argument('<contact>')
      .option('--name <name>', 'new name')
      .option('--fee <percent>', 'new fee percent (needs --currency)')
      .option('--credit <amount>', 'new credit limit (needs --currency)')
      .option('--currency <code>', 'the currency line to change')
      .action(async (reference: string, opts: { name?: string; fee?: string; credit?: string; currency?: string }) => {
        if ((opts.fee !== undefined || opts.credit !== undefined) && opts.currency === undefined) {
          ctx.fail('INVALID_PARAMS', '--currency is required with --fee or --credit');
        }
        if (opts.name === undefined && opts.fee === undefined && opts.credit === undefined) ctx.fail('INVALID_PARAMS', 'nothing to update: give --name, --fee or --credit');
        const body: Record<string, unknown> = {};
        if (opts.name !== undefined) body.name = opts.name;
        if (opts.fee !== undefined) body.fee_percent = Number(numeric('--fee', opts.fee));
        if (opts.credit !== undefined) body.credit_limit = numeric('--credit', opts.credit);
        if (opts.currency !== undefined) body.currency = opts.currency;
        const data = await ctx.api.put<ResponseData['PUT /api/v1/contacts/{address}']>(`/api/v1/contacts/${enc(reference)}`, body);
        ctx.out.success(data, data.message);
      });

    for (const [verb, summary] of [
      ['delete', 'delete a contact locally'],
      ['block', 'block a contact: its messages are refused'],
      ['unblock', 'unblock a contact (back to its previous status)'],
    ] as const) {
      contact
        .command(verb)
        .summary(summary)
        .argument('<contact>')
        .action(async (reference: string) => {
          const data = await (verb === 'delete'
            ? ctx.api.delete<ResponseData['DELETE /api/v1/contacts/{address}']>(`/api/v1/contacts/${enc(reference)}`)
            : ctx.api.post<ResponseData[`POST /api/v1/contacts/${typeof verb}/{address}`]>(`/api/v1/contacts/${verb}/${enc(reference)}`));
          ctx.out.success(data, data.message);
        });
    }

    contact
      .command('ping')
      .summary('ping a contact: online status, chain validity, available credit')
      .argument('<contact>')
      .action(async (reference: string) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/contacts/ping/{address}']>(`/api/v1/contacts/ping/${enc(reference)}`);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => {
          ctx.out.kv([
            ['Contact', data.contact_name],
            ['Online', data.online_status],
            ['Chain valid', data.chain_valid ?? 'unknown'],
            ...Object.entries(data.my_available_credit ?? {}).map(([cur, v]) => [`Available ${cur}`, v === null ? 'unknown' : show.amount(v)] as [string, unknown]),
          ]);
          ctx.out.line(data.message);
        });
      });

    contact
      .command('search')
      .summary('find contacts by name, address or key hash prefix')
      .argument('<query>')
      .action(async (query: string) => {
        type Search = ResponseData['GET /api/v1/contacts/search'];
        const { rows, data: last } = await allPages<Search['contacts'][number], Search>(ctx.api, '/api/v1/contacts/search', 'contacts', { q: query });
        const data = { search_term: last.search_term, contacts: rows, count: rows.length };
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => printContacts(ctx, show, data.contacts, `Matches for "${data.search_term}": ${data.count}`));
      });

    const currency = contact.command('currency').summary('add, accept, decline, list or remove a currency of a contact');

    currency
      .command('add')
      .summary('request one more currency with a contact')
      .argument('<contact>')
      .argument('<currency>')
      .requiredOption('--fee <percent>', 'fee percent you charge')
      .requiredOption('--credit <amount>', 'credit you extend')
      .action(async (reference: string, code: string, opts: { fee: string; credit: string }) => {
        const { hash } = await hashOf(ctx, reference);
        const data = await ctx.api.post<ResponseData['POST /api/v1/contacts/{hash}/currencies']>(`/api/v1/contacts/${hash}/currencies`, {
          currency: code,
          fee: Number(numeric('--fee', opts.fee)),
          credit: numeric('--credit', opts.credit),
        });
        ctx.out.success(data, data.message);
      });

    currency
      .command('accept')
      .summary('accept a currency the contact requested')
      .argument('<contact>')
      .argument('<currency>')
      .requiredOption('--fee <percent>', 'fee percent you charge')
      .requiredOption('--credit <amount>', 'credit you extend')
      .action(async (reference: string, code: string, opts: { fee: string; credit: string }) => {
        const { hash } = await hashOf(ctx, reference);
        const data = await ctx.api.post<ResponseData['POST /api/v1/contacts/{hash}/currency-accept']>(`/api/v1/contacts/${hash}/currency-accept`, {
          currency: code,
          fee: Number(numeric('--fee', opts.fee)),
          credit: numeric('--credit', opts.credit),
        });
        ctx.out.success(data, `Accepted: ${data.accepted.join(', ')}`);
      });

    for (const [verb, summary, path] of [
      ['decline', 'decline a requested currency (or withdraw your own request)', 'currency-decline'],
      ['remove', 'remove a currency line locally (the contact is not notified)', 'currency-remove'],
    ] as const) {
      currency
        .command(verb)
        .summary(summary)
        .argument('<contact>')
        .argument('<currency>')
        .action(async (reference: string, code: string) => {
          const { hash } = await hashOf(ctx, reference);
          const data = await ctx.api.post<ResponseData[`POST /api/v1/contacts/{hash}/${typeof path}`]>(`/api/v1/contacts/${hash}/${path}`, { currency: code });
          ctx.out.success(data, data.message);
          warnNotDelivered(ctx, data);
        });
    }

    currency
      .command('list')
      .summary('every currency row of a contact, declined ones included')
      .argument('<contact>')
      .action(async (reference: string) => {
        const { hash } = await hashOf(ctx, reference);
        const data = await ctx.api.get<ResponseData['GET /api/v1/contacts/{hash}/currencies']>(`/api/v1/contacts/${hash}/currencies`);
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.table(data.currencies, [...rowColumns(show), { key: 'decline_reason', header: 'NOTE', format: (v, r) => String(v ?? r.warning ?? '') }], {
            title: `Currencies of ${reference}`,
            empty: 'none',
          }),
        );
      });
  },
});
