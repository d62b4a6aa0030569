/**
 * node-cli commands of the webhooks plugin:
 *
 *   webhook [list]
 *   webhook add <url> --events <e1,e2|all> [--secret <secret>]
 *   webhook remove <id>
 *   webhook test <id>
 */
import { CliError, cliDisplay, defineCliCommands, type CliContext } from '../../sdk/cli.js';
import { WEBHOOK_EVENTS } from './api.js';
import type { ResponseData } from '../../sdk/index.js';

function eventsOf(raw: string): string[] {
  const events = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (events.includes('all')) return [...WEBHOOK_EVENTS];
  if (events.length === 0) throw new CliError('INVALID_PARAMS', `--events needs one or more of ${WEBHOOK_EVENTS.join(', ')} (comma-separated), or all`);
  return events;
}

async function list(ctx: CliContext): Promise<void> {
  const data = await ctx.api.get<ResponseData['GET /api/v1/webhooks']>('/api/v1/webhooks');
  const show = await cliDisplay(ctx);
  ctx.out.success(data, () =>
    ctx.out.table(
      data.webhooks,
      [
        { key: 'id', header: 'ID' },
        { key: 'url', header: 'URL', maxWidth: 48 },
        { key: 'events', header: 'EVENTS', maxWidth: 48, format: (_v, row) => row.events.join(',') },
        { key: 'deliveries', header: 'DELIVERED/PENDING/DEAD', format: (_v, { deliveries: d }) => `${d.delivered}/${d.pending}/${d.dead}` },
        { key: 'deliveries', header: 'LAST ERROR', maxWidth: 40, format: (_v, row) => row.deliveries.last_error ?? '-' },
        { key: 'created_at', header: 'CREATED', format: show.date },
      ],
      { title: `Webhooks: ${data.count}`, empty: 'No webhooks.' },
    ),
  );
}

export default defineCliCommands({
  plugin: 'webhooks',
  register(program, ctx) {
    const webhook = program
      .command('webhook')
      .summary('add, list, remove or test signed webhooks')
      .description(
        `The node posts its events to each webhook's URL, signed with HMAC-SHA256 (header X-Webhook-Signature), ` +
          `retried with backoff, then parked in the dead letter queue. Events: ${WEBHOOK_EVENTS.join(', ')}. With no subcommand: list.`,
      );

    webhook.command('list', { isDefault: true }).summary('list webhooks and their deliveries').action(() => list(ctx));

    webhook
      .command('add')
      .summary('add a webhook (the secret is shown once)')
      .argument('<url>')
      .requiredOption('--events <events>', 'comma-separated events, or all')
      .option('--secret <secret>', 'the signing secret (16-256 characters); generated when omitted')
      .action(async (url: string, opts: { events: string; secret?: string }) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/webhooks']>('/api/v1/webhooks', {
          url,
          events: eventsOf(opts.events),
          ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
        });
        ctx.out.success(data, () => {
          ctx.out.kv([
            ['id', data.id],
            ['url', data.url],
            ['events', data.events.join(', ')],
            ['secret', data.secret],
          ]);
          ctx.out.line('Keep the secret: it is not shown again. Receivers check X-Webhook-Signature with it.');
        });
      });

    webhook
      .command('remove')
      .summary('remove a webhook and the deliveries it still owes')
      .argument('<id>')
      .action(async (id: string) => {
        const data = await ctx.api.delete<ResponseData['DELETE /api/v1/webhooks/{id}']>(`/api/v1/webhooks/${encodeURIComponent(id)}`);
        ctx.out.success(data, `Webhook ${data.id} removed`);
      });

    webhook
      .command('test')
      .summary('send a webhook.test event now and show how the receiver answered')
      .argument('<id>')
      .action(async (id: string) => {
        const data = await ctx.api.post<ResponseData['POST /api/v1/webhooks/{id}/test']>(`/api/v1/webhooks/${encodeURIComponent(id)}/test`);
        const d = data.delivery;
        ctx.out.success(
          data,
          d.status === 'delivered' ? `Delivered (${d.id})` : `Not delivered yet (${d.last_error ?? d.status}); it is retried with backoff (${d.id})`,
        );
      });
  },
});
