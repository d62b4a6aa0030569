/**
 * node-cli commands of the payment-requests plugin (rate: the `request` bucket, 20 per 60 s):
 *
 *   request [list] [--limit N]
 *   request create <contact> <amount> <currency> [description] [--address-type tor|https|http]
 *   request approve <request_id> [note]
 *   request retry <request_id>
 *   request decline <request_id>
 *   request cancel <request_id>
 */
import { CliError, cliDisplay, defineCliCommands, parseIntOption, type CliContext, type CliDisplay } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

type Requests = ResponseData['GET /api/v1/requests'];
type RequestView = Requests['incoming'][number] | Requests['outgoing'][number];

function table(ctx: CliContext, show: CliDisplay, rows: readonly RequestView[], title: string): void {
  ctx.out.table(
    rows,
    [
      { key: 'created_at', header: 'CREATED', format: show.date },
      { key: 'status', header: 'STATUS' },
      { key: 'contact_name', header: 'CONTACT', maxWidth: 24 },
      { key: 'amount', header: 'AMOUNT', align: 'right', format: show.amount },
      { key: 'currency', header: 'CCY' },
      { key: 'description', header: 'DESCRIPTION', maxWidth: 40 },
      { key: 'request_id', header: 'REQUEST ID' },
    ],
    { title, empty: 'none' },
  );
}

async function list(ctx: CliContext, limit: number | undefined): Promise<void> {
  const data = await ctx.api.get<Requests>('/api/v1/requests', limit !== undefined ? { limit } : {});
  const show = await cliDisplay(ctx);
  ctx.out.success(data, () => {
    table(ctx, show, data.incoming, 'Incoming (asked of you: approve, decline)');
    ctx.out.line();
    table(ctx, show, data.outgoing, 'Outgoing (you asked: cancel while pending)');
  });
}

/**
 * A REST call whose answer's `message` is shown too (the signed client's request returns `data` only); `T` is the
 * route's ResponseData entry, as for the signed client.
 */
async function call<T>(ctx: CliContext, method: string, path: string, body?: unknown): Promise<{ data: T; message: string }> {
  const res = await ctx.api.raw(method, path, body === undefined ? {} : { body });
  const env = res.body as { success?: boolean; data?: unknown; message?: string; error?: { code: string; message: string } };
  if (!env?.success) throw new CliError(env?.error?.code ?? `http_${res.status}`, env?.error?.message ?? `HTTP ${res.status}`, { status: res.status });
  return { data: env.data as T, message: env.message ?? 'Done' };
}

export default defineCliCommands({
  plugin: 'payment-requests',
  register(program, ctx) {
    const request = program
      .command('request')
      .summary('payment requests: list, create, approve, retry, decline, cancel')
      .description(
        'Ask a contact for a payment, or answer what contacts asked of you. Approving pays the request through the ' +
          'normal payment pipeline; the requester learns of it when the payment completes. Rate: 20 per 60 s.',
      );

    request
      .command('list', { isDefault: true })
      .summary('incoming and outgoing requests, newest first')
      .option('--limit <n>', 'per direction (default 50, at most 200)', parseIntOption('--limit', 1))
      .action((opts: { limit?: number }) => list(ctx, opts.limit));

    request
      .command('create')
      .summary('ask a contact for a payment')
      .argument('<contact>', 'name, address or public key hash of an accepted contact')
      .argument('<amount>', 'decimal amount, up to 8 decimals')
      .argument('<currency>', 'currency code of a line you share with the contact')
      .argument('[description]', 'at most 255 characters')
      .option('--address-type <type>', 'deliver over tor, https or http (default: the best transport)')
      .action(async (contact: string, amount: string, currency: string, description: string | undefined, opts: { addressType?: string }) => {
        const sent = await call<ResponseData['POST /api/v1/requests']>(ctx, 'POST', '/api/v1/requests', {
          contact,
          amount,
          currency,
          ...(description !== undefined ? { description } : {}),
          ...(opts.addressType ? { address_type: opts.addressType } : {}),
        });
        const data = { request_id: sent.data.request_id, message: sent.message };
        ctx.out.success(data, () => {
          ctx.out.line(data.message);
          ctx.out.kv([['request id', data.request_id]], { indent: 2 });
        });
      });

    const act = (name: string, summary: string, run: (id: string, extra?: string) => Promise<{ data: object | null; message: string }>, extraArg?: [string, string]) => {
      const cmd = request.command(name).summary(summary).argument('<request_id>', 'the request id (node-cli request list)');
      if (extraArg) cmd.argument(extraArg[0], extraArg[1]);
      cmd.action(async (id: string, extra?: string) => {
        const { data, message } = await run(id, typeof extra === 'string' ? extra : undefined);
        ctx.out.success({ ...data, message }, message);
      });
    };

    act(
      'approve',
      'pay a request made of you (optionally with a note for the requester)',
      (id, note) => call<ResponseData['POST /api/v1/requests/approve']>(ctx, 'POST', '/api/v1/requests/approve', { request_id: id, ...(note !== undefined ? { payer_note: note } : {}) }),
      ['[note]', 'added to the payment description: "payment: <their description> | <note>"'],
    );
    act('retry', 'pay a failed request again', (id) => call<ResponseData['POST /api/v1/requests/retry']>(ctx, 'POST', '/api/v1/requests/retry', { request_id: id }));
    act('decline', 'decline a request made of you (the requester is told)', (id) => call<ResponseData['POST /api/v1/requests/decline']>(ctx, 'POST', '/api/v1/requests/decline', { request_id: id }));
    act('cancel', 'withdraw a pending request you made (the contact is told)', (id) => call<ResponseData['DELETE /api/v1/requests/{request_id}']>(ctx, 'DELETE', `/api/v1/requests/${encodeURIComponent(id)}`));
  },
});
