/**
 * node-cli commands of the chain plugin (Document 2):
 *
 *   verify-chain [--contact <pubkey_hash>] [--currency <code>]
 *   chaindrop propose <contact_address> [--currency <code>] | accept <proposal_id> | reject <proposal_id> | list [contact_address]
 *
 * verify-chain, per chain: settled count, `chain OK` or `FAIL` with what failed, the archive checkpoint; exit 1 on
 * any finding. chaindrop drives the tx drops of /api/v1/chaindrop (rate: 10 per minute, the host's table).
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext, type CliProgram } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

type ChainRow = ResponseData['GET /api/v1/chain/verify']['chains'][number];

const short = (txid: string | null): string => (txid ? `${txid.slice(0, 12)}…` : 'start');

/** What failed in one chain, a line each. */
function problems(c: ChainRow): string[] {
  return [
    ...c.gaps.map((g) => `gap: ${short(g.missing_txid)} missing (after ${short(g.before_txid)}, named by ${short(g.broken_txid)})`),
    ...c.forks.map((f) => `fork: ${f.map(short).join(' and ')} share a previous transaction`),
    ...c.rows.map((r) => `${r.problem.replace('_', ' ')}: ${short(r.txid)} ${r.detail}`),
    ...(c.balance ? [`balance: stored received ${c.balance.stored.received} / sent ${c.balance.stored.sent}, the chain adds up to ${c.balance.computed.received} / ${c.balance.computed.sent}`] : []),
  ];
}

function registerChainDrop(program: CliProgram, ctx: CliContext): void {
  const drop = program
    .command('chaindrop')
    .summary('drop a gap of a transaction chain that neither side holds, by agreement with the contact')
    .description(
      'When a chain with a contact has a gap that sync cannot fill (neither side holds the missing transactions), ' +
        'one side proposes to drop it and the other accepts: the chain is re-linked and re-signed on both sides and ' +
        'the balances are recomputed from what remains. A rejection blocks transactions with that contact until a later ' +
        'drop is accepted. Proposal ids look like cdp-...',
    );
  drop
    .command('propose')
    .summary('propose to drop the first gap of the chains with a contact')
    .argument('<contact_address>', 'the contact: a name or an address')
    .option('--currency <code>', 'the chain in this currency (default: the first chain with a gap)')
    .action(async (contact: string, opts: { currency?: string }) => {
      const data = await ctx.api.post<ResponseData['POST /api/v1/chaindrop/propose']>('/api/v1/chaindrop/propose', {
        contact,
        ...(opts.currency ? { currency: opts.currency } : {}),
      });
      ctx.out.success(data, () => {
        ctx.out.line(`Proposed ${data.proposal_id}`);
        ctx.out.kv([
          ['missing', data.missing_txid],
          ['broken', data.broken_txid],
        ]);
        ctx.out.line('The contact accepts it (node-cli chaindrop accept) or rejects it.');
      });
    });
  for (const [action, summary] of [
    ['accept', 'accept a proposal of a contact: re-link and re-sign the chain on both sides (admin)'],
    ['reject', 'reject a proposal (or withdraw your own): the gap stays and the contact is blocked until a drop is accepted'],
  ] as const) {
    drop
      .command(action)
      .summary(summary)
      .argument('<proposal_id>', 'cdp-...')
      .action(async (id: string) => {
        const data = await ctx.api.post<ResponseData[`POST /api/v1/chaindrop/${typeof action}`]>(`/api/v1/chaindrop/${action}`, { proposal_id: id });
        ctx.out.success(data, data.message);
      });
  }
  drop
    .command('list')
    .summary('incoming proposals waiting for you; with a contact, every proposal with it')
    .argument('[contact_address]', 'a name or an address')
    .action(async (contact: string | undefined) => {
      const data = await ctx.api.get<ResponseData['GET /api/v1/chaindrop']>('/api/v1/chaindrop', contact ? { contact } : {});
      const show = await cliDisplay(ctx);
      ctx.out.success(data, () =>
        ctx.out.table(
          data.proposals,
          [
            { key: 'proposal_id', header: 'PROPOSAL' },
            { key: 'direction', header: 'WAY' },
            { key: 'currency', header: 'CURRENCY' },
            { key: 'status', header: 'STATUS', format: (_v, r) => (r.blocking ? `${r.status} (blocking)` : r.status) },
            { key: 'missing_txid', header: 'MISSING', format: (_v, r) => short(r.missing_txid) },
            { key: 'expires_at', header: 'EXPIRES', format: show.date },
          ],
          { title: `Tx drop proposals: ${data.count}`, empty: contact ? 'No proposal with this contact.' : 'No proposal waits for you.' },
        ),
      );
    });
}

export default defineCliCommands({
  plugin: 'chain',
  register(program, ctx) {
    registerChainDrop(program, ctx);
    program
      .command('verify-chain')
      .summary('audit every transaction chain with your contacts (exit 1 on any finding)')
      .description(
        'Checks each settled chain end to end: every link, the signed content of every transaction, both signatures, ' +
          'and the stored balances against the transactions. Read only.',
      )
      .option('--contact <pubkey_hash>', 'only the chains with this contact')
      .option('--currency <code>', 'only this currency')
      .action(async (opts: { contact?: string; currency?: string }) => {
        const query: Record<string, string> = {};
        if (opts.contact) query.contact_pubkey_hash = opts.contact;
        if (opts.currency) query.currency = opts.currency;
        const report = await ctx.api.get<ResponseData['GET /api/v1/chain/verify']>('/api/v1/chain/verify', query);
        const human = (): void => {
          if (report.count === 0) ctx.out.line('No settled chain yet: nothing to verify.');
          for (const c of report.chains) {
            const who = c.contact_name ?? c.contact_pubkey_hash.slice(0, 16);
            ctx.out.line(`${who} ${c.currency}: ${c.settled_count} settled, ${c.status === 'ok' ? 'chain OK' : 'FAIL'}, checkpoint ${c.checkpoint}`);
            for (const p of problems(c)) ctx.out.line(`  ${p}`);
          }
        };
        if (report.ok) {
          ctx.out.success(report, () => {
            human();
            if (report.count > 0) ctx.out.line(`All ${report.count} chain(s) verify.`);
          });
          return;
        }
        human();
        throw new CliError('CHAIN_FINDINGS', `${report.findings} finding(s) in ${report.chains.filter((c) => c.status === 'fail').length} chain(s)`, { ...report });
      });
  },
});
