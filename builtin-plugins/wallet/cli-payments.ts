/**
 * node-cli payment commands of the wallet plugin: send, refund, viewbalances, history, overview.
 * Every command is a signed REST call of the same node (docs/api/wallet.md lists the mapping).
 */
import type { Command } from 'commander';
import { CliError, cliDisplay, offerRateLimitOff, type CliContext, type CliDisplay } from '../../sdk/cli.js';
import type { ResponseData } from '../../sdk/index.js';

type Tx = ResponseData['GET /api/v1/wallet/transactions/{txid}']['transaction'];
/** A row of history or overview: overview's rows are the shorter. */
type TxRow = ResponseData['GET /api/v1/wallet/overview']['recent_transactions'][number];
type SendAnswer = ResponseData['POST /api/v1/wallet/send'];
export type BalanceRow = ResponseData['GET /api/v1/wallet/balance']['balances'][number];

/** How long `send` and `refund` wait for the payment's outcome before reporting it as still in flight. */
const OUTCOME_WAIT_MS = 5000;
const FINAL = new Set(['completed', 'rejected', 'cancelled', 'failed']);
const PAGE = 100;

const short = (txid: string): string => `${txid.slice(0, 12)}…`;

/** Follows a payment for a few seconds (the node answers "accepted for delivery" at once). */
async function outcome(ctx: CliContext, txid: string): Promise<Tx | null> {
  const end = Date.now() + OUTCOME_WAIT_MS;
  let delay = 20;
  for (;;) {
    const { transaction } = await ctx.api.get<ResponseData['GET /api/v1/wallet/transactions/{txid}']>(`/api/v1/wallet/transactions/${txid}`);
    if (FINAL.has(transaction.status) || Date.now() > end) return transaction;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 250);
  }
}

/** A final status other than completed fails the command (exit 1) with the Document 2 send-failure fields. */
function failOnOutcome(ctx: CliContext, tx: Tx | null, what: string): void {
  if (!tx || tx.status === 'completed' || !FINAL.has(tx.status)) return;
  const reason = tx.failure_reason ?? tx.status;
  const code = /insufficient_credit/.test(reason) ? 'INSUFFICIENT_FUNDS' : 'PAYMENT_' + tx.status.toUpperCase();
  ctx.fail(code, `${what} ${tx.status}: ${reason}`, { title: `${what} ${tx.status}`, status: tx.status, detail: reason, txid: tx.txid });
}

/**
 * A payment nobody can carry because this node has no accepted contact at all is `NO_CONTACTS` (Document 2's code):
 * the node answers `no_route` or `contact_not_found`, and the fix is to add a contact, not to name another one.
 */
async function withoutContacts<T>(ctx: CliContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof CliError) || !['no_route', 'contact_not_found', 'CONTACT_NOT_FOUND'].includes(err.code)) throw err;
    const accepted = await ctx.api.get<ResponseData['GET /api/v1/contacts']>('/api/v1/contacts', { status: 'accepted', limit: 1 }).catch(() => null);
    if (accepted?.total !== 0) throw err;
    throw new CliError('NO_CONTACTS', 'This node has no accepted contacts yet: add one with `node-cli contact add <address> <name>`', {
      ...err.details,
      node_code: err.details?.node_code ?? err.code,
    });
  }
}

/** REST failures of send/refund carry title, status and detail (Document 2). */
async function asSend<T>(title: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof CliError) || err.details?.title) throw err;
    throw new CliError(err.code, err.message, { ...err.details, title, status: err.details?.status ?? 'error', detail: err.message });
  }
}

async function maxOutput(ctx: CliContext): Promise<number> {
  try {
    const view = await ctx.api.get<ResponseData['GET /api/v1/system/settings']>('/api/v1/system/settings');
    const n = Number(view.settings.max_output);
    return Number.isInteger(n) && n >= 0 ? n : 5;
  } catch {
    return 5;
  }
}

function parseLimit(ctx: CliContext, text: string, what: string): number {
  if (!/^\d+$/.test(text.trim())) ctx.fail('INVALID_PARAMS', `${what} must be a whole number, got "${text}"`);
  return Number(text.trim());
}

async function contactHash(ctx: CliContext, reference: string): Promise<string> {
  const data = await ctx.api.get<ResponseData['GET /api/v1/contacts/{address}']>(`/api/v1/contacts/${encodeURIComponent(reference)}`);
  if (!data.contact.pubkey_hash) ctx.fail('CONTACT_NOT_FOUND', `${reference} has no known public key yet: no balances or history`);
  return data.contact.pubkey_hash;
}

function txTable(ctx: CliContext, show: CliDisplay, rows: readonly TxRow[], title: string): void {
  ctx.out.table(
    rows,
    [
      { key: 'timestamp', header: 'TIME', format: show.date },
      { key: 'type', header: 'TYPE' },
      { key: 'status', header: 'STATUS' },
      { key: 'amount', header: 'AMOUNT', align: 'right', format: show.amount },
      { key: 'currency', header: 'CCY' },
      { key: 'counterparty_name', header: 'CONTACT', maxWidth: 24 },
      { key: 'description', header: 'DESCRIPTION', maxWidth: 40 },
      { key: 'txid', header: 'TXID', format: (_v, row) => short(row.txid) },
    ],
    { title, empty: 'no transactions' },
  );
}

/** Balances per contact and currency; `info detail` prints the same table under another title. */
export function balanceTable(ctx: CliContext, show: CliDisplay, rows: readonly BalanceRow[], title = 'Balances (net > 0: the contact owes you)'): void {
  ctx.out.table(
    rows,
    [
      { key: 'contact_name', header: 'CONTACT', maxWidth: 32 },
      { key: 'currency', header: 'CURRENCY' },
      { key: 'received', header: 'RECEIVED', align: 'right', format: show.amount },
      { key: 'sent', header: 'SENT', align: 'right', format: show.amount },
      { key: 'net_balance', header: 'NET', align: 'right', format: show.amount },
    ],
    { title, empty: 'no balances' },
  );
}

/** A split payment's parts, one line each: what each route delivers and what it costs. */
function splitLines(split: SendAnswer['split'], amount: (v: unknown) => string): [string, string][] {
  return (split?.parts ?? []).map((p, i) => [`part ${i + 1}`, `${amount(p.amount)} (fee ${p.fee === null ? '?' : amount(p.fee)}) via ${(p.via ?? '?').slice(0, 12)}`]);
}

export function registerPaymentCommands(program: Command, ctx: CliContext): void {
  const send = program
    .command('send')
    .summary('pay a contact, or anyone reachable through your contacts')
    .description(
      'Sends <amount> <currency> to a contact named by name, address or public key hash. The node accepts the payment ' +
        `into its send queue at once; the command then follows it for up to ${OUTCOME_WAIT_MS / 1000} s and reports the ` +
        'outcome (completed, or rejected with the reason, e.g. insufficient credit). --best asks for best-fee routing ' +
        '(experimental; ignored for direct payments and Tor recipients). --split lets an amount no single route carries go ' +
        'over several routes at once, all or none (node-cli max-sendable shows what a split can carry).\n\n' +
        'Rate: 30 per 60 s per wallet, then blocked 5 minutes. node-cli counts runs in cli-rate.json next to cli.json; ' +
        'NODE_CLI_RATE_FILE=<file> keeps the count in another file. A script on an admin key skips the count for a ' +
        'run with --json --rate-limit off (the node still limits each API key per minute).',
    )
    .argument('<address>', 'contact name, address or public key hash')
    .argument('<amount>', 'decimal amount, up to 8 decimals')
    .argument('<currency>', 'currency code')
    .argument('[description]', 'at most 255 characters, visible to the recipient')
    .option('--best', 'best-fee routing (experimental)')
    .option('--split', 'pay over several routes when no single one carries the amount (all parts or none)');
  offerRateLimitOff(send)
    .action(async (address: string, amount: string, currency: string, description: string | undefined, opts: { best?: boolean; split?: boolean }) => {
      const sent = await asSend('Send failed', () =>
        withoutContacts(ctx, () =>
          ctx.api.post<SendAnswer>('/api/v1/wallet/send', {
            address,
            amount,
            currency,
            ...(description !== undefined ? { description } : {}),
            ...(opts.best ? { best_fee: true } : {}),
            ...(opts.split ? { allow_split: true } : {}),
          }),
        ),
      );
      if (!sent.txid) {
        // A routed payment waiting for approval (or still searching a route): nothing to follow yet.
        const data = { ...sent, payment_status: sent.status };
        ctx.out.success(data, () => {
          ctx.out.line(sent.message);
          ctx.out.kv([
            ['p2p hash', sent.p2p_hash],
            ['recipient', sent.recipient],
            ['address', sent.recipient_address],
          ], { indent: 2 });
        });
        return;
      }
      const tx = await outcome(ctx, sent.txid);
      failOnOutcome(ctx, tx, 'Payment');
      const data = { ...sent, payment_status: tx?.status ?? 'pending' };
      const show = await cliDisplay(ctx);
      ctx.out.success(data, () => {
        ctx.out.line(tx?.status === 'completed' ? `Paid ${show.amount(sent.amount)} ${sent.currency} to ${sent.recipient}.` : `${sent.message}; status: ${tx?.status ?? 'pending'} (still in flight: check node-cli history).`);
        ctx.out.kv([
          ['txid', sent.txid],
          ['recipient', sent.recipient],
          ['address', sent.recipient_address],
          ...(sent.p2p_hash ? ([['routed, total', `${show.amount(sent.total)} ${sent.currency} (fee ${show.amount(sent.fee)})`], ['p2p hash', sent.p2p_hash]] as const) : []),
          ...splitLines(sent.split, show.amount),
        ], { indent: 2 });
      });
    });

  program
    .command('refund')
    .summary('return a received payment (all or part of it)')
    .description(
      'Refunds a received, completed transaction to its sender: the whole remainder when no amount is given, else the ' +
        'amount (refunds still in flight count toward the total). Rate: 20 per minute.',
    )
    .argument('<txid>', 'the received transaction')
    .argument('[amount]', 'part of it (default: everything not yet refunded)')
    .action(async (txid: string, amount: string | undefined) => {
      const r = await asSend('Refund failed', () =>
        ctx.api.post<ResponseData['POST /api/v1/wallet/refund']>('/api/v1/wallet/refund', { txid, ...(amount !== undefined ? { amount } : {}) }),
      );
      const tx = r.refund_txid ? await outcome(ctx, r.refund_txid) : null;
      failOnOutcome(ctx, tx, 'Refund');
      const data = { ok: true, ...r, payment_status: tx?.status ?? 'pending' };
      const show = await cliDisplay(ctx);
      ctx.out.success(data, () => {
        ctx.out.line(r.message);
        ctx.out.kv(
          [
            ['original txid', r.original_txid],
            ['refund txid', r.refund_txid],
            ['amount', `${show.amount(r.amount)} ${r.currency}`],
            ['original amount', show.amount(r.original_amount)],
            ['already refunded', show.amount(r.already_refunded)],
            ['remaining', show.amount(r.remaining)],
            ['fully refunded', r.fully_refunded],
            ['payment status', tx?.status ?? 'pending'],
          ],
          { indent: 2 },
        );
      });
    });

  program
    .command('viewbalances')
    .summary('balances per contact and currency')
    .argument('[address]', 'one contact: name, address or public key hash')
    .action(async (reference: string | undefined) => {
      const { balances } = await ctx.api.get<ResponseData['GET /api/v1/wallet/balance']>('/api/v1/wallet/balance');
      let rows = balances;
      if (reference !== undefined) {
        const hash = await contactHash(ctx, reference);
        rows = balances.filter((b) => b.pubkey_hash === hash);
      }
      const show = await cliDisplay(ctx);
      ctx.out.success({ balances: rows }, () => balanceTable(ctx, show, rows));
    });

  program
    .command('history')
    .summary('transaction history, newest first')
    .description(
      'Lists transactions, newest first, optionally with one contact. [limit] caps the rows (0: all of them); the ' +
        'default is the maxOutput setting. A single numeric argument is the limit.',
    )
    .argument('[address]', 'contact name, address or public key hash')
    .argument('[limit]', 'rows to show; 0 for all')
    .action(async (first: string | undefined, second: string | undefined) => {
      let reference = first;
      let limitText = second;
      if (second === undefined && first !== undefined && /^\d+$/.test(first.trim())) {
        reference = undefined;
        limitText = first;
      }
      const limit = limitText !== undefined ? parseLimit(ctx, limitText, 'limit') : await maxOutput(ctx);
      const rows: TxRow[] = [];
      let total = 0;
      for (let offset = 0; ; offset += PAGE) {
        const want = limit === 0 ? PAGE : Math.min(PAGE, limit - rows.length);
        const page = await ctx.api.get<ResponseData['GET /api/v1/wallet/transactions']>('/api/v1/wallet/transactions', {
          limit: want,
          offset,
          ...(reference !== undefined ? { contact: reference } : {}),
        });
        total = page.pagination.total;
        rows.push(...page.transactions);
        if (page.transactions.length < want || rows.length >= total || (limit !== 0 && rows.length >= limit)) break;
      }
      const show = await cliDisplay(ctx);
      ctx.out.success({ transactions: rows, total }, () => {
        txTable(ctx, show, rows, `Transactions${reference ? ` with ${reference}` : ''} (${rows.length} of ${total})`);
        if (rows.length < total) ctx.out.line(`  … ${total - rows.length} more: node-cli history ${reference ? `${reference} ` : ''}0 shows all`);
      });
    });

  program
    .command('overview')
    .summary('balances, available credit and recent transactions')
    .argument('[limit]', 'recent transactions to show (default 5, at most 20)')
    .action(async (limitText: string | undefined) => {
      const limit = limitText !== undefined ? parseLimit(ctx, limitText, 'limit') : 5;
      const data = await ctx.api.get<ResponseData['GET /api/v1/wallet/overview']>('/api/v1/wallet/overview', { transaction_limit: limit });
      const show = await cliDisplay(ctx);
      ctx.out.success(data, () => {
        ctx.out.table(
          data.balances,
          [
            { key: 'currency', header: 'CURRENCY' },
            { key: 'total_balance', header: 'NET BALANCE', align: 'right', format: show.amount },
          ],
          { title: 'Balances', empty: 'none' },
        );
        ctx.out.line();
        ctx.out.table(
          data.total_available_credit,
          [
            { key: 'currency', header: 'CURRENCY' },
            { key: 'total', header: 'AVAILABLE', align: 'right', format: show.amount },
          ],
          { title: 'Available credit', empty: 'none' },
        );
        ctx.out.line();
        txTable(ctx, show, data.recent_transactions, `Recent transactions (${data.recent_transactions.length} of ${data.transaction_count})`);
      });
    });
}
