/**
 * node-cli commands of the dlq plugin (Document 2, "dlq"):
 *
 *   dlq [list] [--status pending|retrying|resolved|abandoned|all]   (default: pending and retrying)
 *   dlq retry <id>
 *   dlq abandon <id>
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

function idOf(raw: string): string {
  if (!/^\d+$/.test(raw.trim())) throw new CliError('INVALID_PARAMS', `the dead letter id is a positive integer, got "${raw}"`);
  return raw.trim();
}

async function list(ctx: CliContext, status: string | undefined): Promise<void> {
  const data = await ctx.api.get<ResponseData['GET /api/v1/system/dlq']>('/api/v1/system/dlq', status ? { status } : {});
  const show = await cliDisplay(ctx);
  ctx.out.success(data, () => {
    ctx.out.table(
      data.items,
      [
        { key: 'id', header: 'ID', align: 'right' },
        { key: 'message_type', header: 'TYPE' },
        { key: 'status', header: 'STATUS' },
        { key: 'retry_count', header: 'RETRIES', align: 'right' },
        { key: 'recipient_address', header: 'RECIPIENT', maxWidth: 48 },
        { key: 'failure_reason', header: 'REASON', maxWidth: 60 },
        { key: 'added_at', header: 'ADDED', format: show.date },
        { key: 'retryable', header: 'RETRYABLE', format: (_v, row) => (row.retryable ? 'yes' : 'no (abandon)') },
      ],
      { title: `Dead letters (${status ?? 'pending, retrying'}): ${data.count}`, empty: 'The dead letter queue is empty.' },
    );
    if (data.pending_count > 0) ctx.out.line(`${data.pending_count} message(s) wait for a retry or abandon.`);
  });
}

export default defineCliCommands({
  plugin: 'dlq',
  register(program, ctx) {
    const dlq = program
      .command('dlq')
      .summary('list, retry or abandon messages whose delivery failed')
      .description(
        'Messages to other nodes are retried 5 times with backoff (about 2, 4, 8, 16, 32 s); then they wait here. ' +
          'retry sends one again now (transaction and contact items); p2p and rp2p items are time-sensitive: abandon ' +
          'them. With no subcommand: list.',
      );

    dlq
      .command('list', { isDefault: true })
      .summary('list dead letters (default: pending and retrying)')
      .option('--status <status>', 'pending, retrying, resolved, abandoned or all (comma-separated for several)')
      .action((opts: { status?: string }) => list(ctx, opts.status));

    dlq
      .command('retry')
      .summary('send a dead letter again now')
      .argument('<id>')
      .action(async (raw: string) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/dlq/{id}/retry']>(`/api/v1/system/dlq/${idOf(raw)}/retry`);
        ctx.out.success(data, data.message);
      });

    dlq
      .command('abandon')
      .summary('give up a dead letter (irreversible)')
      .argument('<id>')
      .action(async (raw: string) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/system/dlq/{id}/abandon']>(`/api/v1/system/dlq/${idOf(raw)}/abandon`);
        ctx.out.success(data, data.message);
      });
  },
});
