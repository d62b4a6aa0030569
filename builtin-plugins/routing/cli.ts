/**
 * node-cli commands of the routing plugin (Document 2, "p2p"); each is one call of the P2P approval routes:
 *
 *   p2p                          every routed payment still deciding (searching or awaiting approval), all pages
 *   p2p candidates <hash>        the routes found for one, cheapest first, numbered from 1
 *   p2p approve <hash> [index]   pays along the route of that number (none needed when there is one)
 *   p2p reject <hash>            cancels it; the routes offered are released
 *   max-sendable <address> [--currency C]   the most that can reach an address now, and why not when 0
 *
 * Amounts of these routes are integer minor units (Document 1); human output shows them as decimals.
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import { allPages } from '../../sdk/cli-paging.js';
import type { ResponseData } from '../../sdk/index.js';

type Candidates = ResponseData['GET /api/v1/p2p/candidates/{hash}'];
type MaxSendable = ResponseData['GET /api/v1/wallet/max-sendable'];

/** Integer minor units as a trimmed decimal ("10300000000" → "103"). */
function decimal(minor: unknown): string {
  if (minor === null || minor === undefined) return '';
  const v = BigInt(String(minor));
  const whole = v / 100_000_000n;
  const frac = (v % 100_000_000n).toString().padStart(8, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

function hashOf(raw: string): string {
  const hash = raw.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new CliError('INVALID_PARAMS', `the hash is 64 hex characters, got "${raw}"`);
  return hash;
}

async function list(ctx: CliContext): Promise<void> {
  const { rows } = await allPages<ResponseData['GET /api/v1/p2p']['transactions'][number]>(ctx.api, '/api/v1/p2p', 'transactions');
  const data = { transactions: rows, count: rows.length };
  const show = await cliDisplay(ctx);
  ctx.out.success(data, () => {
    ctx.out.table(
      data.transactions,
      [
        { key: 'hash', header: 'HASH', format: (_v, row) => `${row.hash.slice(0, 16)}…` },
        { key: 'status', header: 'STATUS' },
        { key: 'amount', header: 'AMOUNT', align: 'right', format: (v) => show.amount(decimal(v)) },
        { key: 'currency', header: 'CCY' },
        { key: 'rp2p_amount', header: 'BEST TOTAL', align: 'right', format: (v) => (v === null ? '-' : show.amount(decimal(v))) },
        { key: 'candidate_count', header: 'ROUTES', align: 'right' },
        { key: 'fast', header: 'MODE', format: (v) => (v ? 'fast' : 'best-fee') },
        { key: 'destination_address', header: 'DESTINATION', maxWidth: 40 },
        { key: 'created_at', header: 'CREATED', format: show.date },
      ],
      { title: `Routed payments deciding: ${data.count}`, empty: 'No routed payment is waiting.' },
    );
  });
}

async function candidates(ctx: CliContext, hash: string): Promise<Candidates> {
  return ctx.api.get<Candidates>(`/api/v1/p2p/candidates/${hash}`);
}

export default defineCliCommands({
  plugin: 'routing',
  register(program, ctx) {
    const p2p = program
      .command('p2p')
      .summary('routed payments waiting for approval: list, candidates, approve, reject')
      .description(
        'With autoAcceptTransaction off a routed payment waits here once its routes are found (fast mode: the first ' +
          'one; best-fee: all of them). approve pays along one route (its number in `p2p candidates`, needed when ' +
          'there are several); reject cancels the payment. With no subcommand: list. Rate: 30 per 60 s.',
      );

    p2p
      .command('list', { isDefault: true })
      .summary('routed payments searching or awaiting approval')
      .action(() => list(ctx));

    p2p
      .command('candidates')
      .summary('the routes found for a payment, cheapest first')
      .argument('<hash>')
      .action(async (raw: string) => {
        const data = await candidates(ctx, hashOf(raw));
        const show = await cliDisplay(ctx);
        const rows = data.candidates.map((c, i) => ({ ...c, index: i + 1 }));
        ctx.out.success(data, () => {
          ctx.out.line(`${show.amount(decimal(data.amount))} ${data.currency}, ${data.fast ? 'fast' : 'best-fee'} mode`);
          ctx.out.table(
            rows,
            [
              { key: 'index', header: '#', align: 'right' },
              { key: 'amount', header: 'TOTAL', align: 'right', format: (v) => show.amount(decimal(v)) },
              { key: 'fee_amount', header: 'FEE', align: 'right', format: (v) => show.amount(decimal(v)) },
              { key: 'hops', header: 'HOPS', align: 'right' },
              { key: 'sender_address', header: 'VIA', maxWidth: 48 },
              { key: 'id', header: 'ID', align: 'right' },
            ],
            { empty: 'No route was found (yet).' },
          );
        });
      });

    p2p
      .command('approve')
      .summary('pay along a route (its number in `p2p candidates`)')
      .argument('<hash>')
      .argument('[index]', 'the route number, from 1 (needed when there are several)')
      .action(async (raw: string, index: string | undefined) => {
        const hash = hashOf(raw);
        let candidateId: number | undefined;
        if (index !== undefined) {
          if (!/^\d+$/.test(index.trim()) || Number(index) < 1) throw new CliError('INVALID_PARAMS', `the route number is a positive integer, got "${index}"`);
          const list = (await candidates(ctx, hash)).candidates;
          const chosen = list[Number(index) - 1];
          if (!chosen) throw new CliError('INVALID_PARAMS', `there is no route ${index}: ${list.length} route(s) were found`);
          candidateId = chosen.id;
        }
        const data = await ctx.api.post<ResponseData['POST /api/v1/p2p/approve']>('/api/v1/p2p/approve', {
          hash,
          ...(candidateId !== undefined ? { candidate_id: candidateId } : {}),
        });
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          ctx.out.kv([
            ['hash', data.hash],
            ['route', data.candidate_id],
            ['txid', data.txid],
          ], { indent: 2 });
        });
      });

    p2p
      .command('reject')
      .summary('cancel a routed payment waiting for approval')
      .argument('<hash>')
      .action(async (raw: string) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/p2p/reject']>('/api/v1/p2p/reject', { hash: hashOf(raw) });
        ctx.out.success(data, data.message);
      });

    const clearing = program
      .command('clearing')
      .summary('debt-cycle clearing: run one now, or list the clearings')
      .description('A clearing pays around a debt cycle back to this node: every line on it loses the same debt, no net moves. Needs auto_cycle_clearing on every node of the cycle. With no subcommand: list.');
    clearing
      .command('list', { isDefault: true })
      .summary('the clearings of this node, newest first, with what each moved on its lines')
      .action(async () => {
        const data = await ctx.api.get<ResponseData['GET /api/v1/clearing']>('/api/v1/clearing');
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () =>
          ctx.out.table(
            data.clearings,
            [
              { key: 'created_at', header: 'AT', format: show.date },
              { key: 'amount', header: 'CLEARED', align: 'right', format: show.amount },
              { key: 'currency', header: 'CCY' },
              { key: 'status', header: 'STATUS' },
              { key: 'lines', header: 'LINES', format: (_v, row) => row.lines.map((l) => `${l.direction} ${l.contact_hash.slice(0, 8)}`).join(', ') },
              { key: 'hash', header: 'HASH', maxWidth: 16 },
            ],
            { title: `Clearings: ${data.count}`, empty: 'No clearings.' },
          ),
        );
      });
    clearing
      .command('run')
      .summary('clear the widest debt cycle through this node now')
      .option('--currency <currency>', 'currency code (default: the default currency)')
      .action(async (opts: { currency?: string }) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/clearing/run']>('/api/v1/clearing/run', opts.currency ? { currency: opts.currency } : {});
        ctx.out.success(data, data.hash ? `Clearing ${data.amount} ${data.currency} around a cycle: ${data.status} (${data.hash})` : `No debt cycle through this node can be cleared now in ${data.currency}`);
      });

    program
      .command('max-sendable')
      .summary('the most you can send to an address now: direct, one route, split; why not when 0')
      .argument('<address>', 'an address, or a contact by name or key hash')
      .option('--currency <currency>', 'currency code (default: the default currency)')
      .action(async (address: string, opts: { currency?: string }) => {
        const data = await ctx.api.get<MaxSendable>('/api/v1/wallet/max-sendable', { address, ...(opts.currency ? { currency: opts.currency } : {}) });
        const show = await cliDisplay(ctx);
        ctx.out.success(data, () => maxSendableHuman(ctx, data, show.amount));
      });
  },
});

function maxSendableHuman(ctx: CliContext, m: MaxSendable, amount: (v: unknown) => string): void {
  ctx.out.kv(
    [
      ['max sendable', `${amount(m.max_sendable)} ${m.currency}`],
      ['direct line', m.direct ? `${amount(m.direct.amount)} ${m.currency}` : 'none (not a contact with a line)'],
      ['single route', m.single_route ? `${amount(m.single_route.amount)} ${m.currency}, fee ${amount(m.single_route.fee)}, ${m.single_route.hops} leg(s)` : 'none'],
      ['split', `${amount(m.split.amount)} ${m.currency} over ${m.split.parts.length} route(s), fee ${amount(m.split.fee)}`],
      ['routes found', m.routes_found],
    ],
    { title: `To ${m.address}` },
  );
  if (m.no_route) ctx.out.line(`Nothing can be sent: ${m.no_route.reason} (${m.no_route.message})`);
  if (m.split.parts.length) {
    ctx.out.line();
    ctx.out.table(m.split.parts, [
      { key: 'via', header: 'VIA', maxWidth: 16 },
      { key: 'hops', header: 'LEGS', align: 'right' },
      { key: 'amount', header: 'CARRIES', align: 'right', format: amount },
      { key: 'fee', header: 'FEE', align: 'right', format: amount },
      { key: 'limited_at_hop', header: 'LIMITED AT HOP', align: 'right' },
    ]);
  }
}
