/**
 * node-cli commands of the chain plugin (Document 2):
 *
 *   verify-chain [--contact <pubkey_hash>] [--currency <code>]
 *
 * Per chain: settled count, `chain OK` or `FAIL` with what failed, the archive checkpoint; exit 1 on any finding.
 */
import { CliError, defineCliCommands } from '../../sdk/cli.js';

interface ChainRow {
  contact_name: string | null;
  contact_pubkey_hash: string;
  currency: string;
  settled_count: number;
  status: 'ok' | 'fail';
  findings: number;
  gaps: { missing_txid: string; broken_txid: string; before_txid: string | null }[];
  forks: string[][];
  rows: { txid: string; problem: string; detail: string }[];
  balance: { stored: { received: string; sent: string }; computed: { received: string; sent: string } } | null;
  checkpoint: string;
}

interface Report {
  ok: boolean;
  findings: number;
  count: number;
  chains: ChainRow[];
}

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

export default defineCliCommands({
  plugin: 'chain',
  register(program, ctx) {
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
        const report = await ctx.api.get<Report>('/api/v1/chain/verify', query);
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
