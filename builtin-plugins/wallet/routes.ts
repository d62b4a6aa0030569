/**
 * Every `/api/v1/wallet/*` route of Document 1: info, balance (+ /balances), overview, transactions, send, refund,
 * plus GET /wallet/transactions/:txid (our addition: one transaction, for clients following a payment).
 */
import { ApiError, type PluginContext } from '../../sdk/index.js';
import { MAX_PAGE_PARAM, pageParams, pageQuery } from '../../sdk/paging.js';
import { formatMinor, parseDecimal, type Minor } from '../../sdk/money.js';
import { dayRange } from '../../sdk/dates.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService, LedgerTx, RoutedOutcome, RouteDetail, RoutedPart, SplitDetail, TxDirection } from '../ledger/api.js';
import { sameCurrency } from '../../sdk/currency.js';
import { checkAmount, checkCurrency, checkDescription } from '../../sdk/amounts.js';
import { contactAddress, resolveRecipient, sendTarget } from './recipient.js';
import { balancesResponse, feeEarningsResponse, infoResponse, overviewResponse, refundResponse, sendResponse, transactionResponse, transactionsResponse } from './responses.js';

export interface CurrencyTotal {
  currency: string;
  total_amount?: string;
  total_available_credit?: string;
}

const TXID = /^[0-9a-fA-F]{64}$/;
/** Days of fee earnings in one answer: about three years, per currency. */
const FEE_DAYS_CAP = 1000;

interface TxQuery {
  limit?: number;
  offset?: number;
  type?: TxDirection;
  contact?: string;
  status?: string;
  q?: string;
  txid?: string;
  amount_min?: string;
  amount_max?: string;
  from?: string;
  to?: string;
  sort?: 'time' | 'amount';
  order?: 'asc' | 'desc';
}

/** An amount bound of the listing's query: a decimal of at most 8 places, zero included. */
function boundOf(field: string, raw: string | undefined): Minor | undefined {
  if (raw === undefined) return undefined;
  const r = parseDecimal(raw);
  if (!r.ok) throw new ApiError('invalid_amount', 400, `${field} must be a decimal amount of at most 8 places`, { field });
  return r.value;
}

/** Sums per currency (case-insensitive), keeping the first spelling seen, sorted by code. */
function sumByCurrency(items: Iterable<{ currency: string; amount: Minor }>): { currency: string; amount: Minor }[] {
  const map = new Map<string, { currency: string; amount: Minor }>();
  for (const it of items) {
    const key = it.currency.toLowerCase();
    const cur = map.get(key);
    if (cur) cur.amount += it.amount;
    else map.set(key, { currency: it.currency, amount: it.amount });
  }
  return [...map.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** A part of a split payment on the wire (decimal amounts; the fee only once its route was chosen). */
const partView = (p: RoutedPart): Record<string, unknown> => ({
  p2p_hash: p.hash,
  txid: p.txid,
  via: p.via,
  amount: formatMinor(p.amount),
  total: p.total === null ? null : formatMinor(p.total),
  fee: p.total === null ? null : formatMinor(p.total - p.amount),
  status: p.status,
});

const routeView = (r: RouteDetail): Record<string, unknown> => ({ ...partView(r), hops: r.hops });

const splitView = (s: SplitDetail): Record<string, unknown> => ({ group: s.group, role: s.role, amount: formatMinor(s.amount), parts: s.parts.map(partView) });

/** The send route's answer for a payment that goes over a route (or several: a split payment, with its parts). */
function routedAnswer(routed: RoutedOutcome, to: { name: string; address: string; amount: Minor; currency: string }): Record<string, unknown> {
  const { name, amount, currency } = to;
  const total = routed.total === null ? {} : { total: formatMinor(routed.total), fee: formatMinor(routed.total - amount) };
  return {
    status: routed.status,
    message:
      routed.status === 'sent'
        ? routed.parts
          ? `Payment of ${formatMinor(amount)} ${currency} to ${name} split over ${routed.parts.length} routes; on its way`
          : `Payment of ${formatMinor(amount)} ${currency} to ${name} routed through ${routed.candidateCount} route(s) found; on its way`
        : routed.status === 'awaiting_approval'
          ? `${routed.candidateCount} route(s) to ${name} found: approve one with POST /api/v1/p2p/approve (node-cli p2p)`
          : `Still searching a route to ${name}; the payment goes on its way once one is found`,
    recipient: name,
    recipient_address: to.address,
    amount: formatMinor(amount),
    currency,
    txid: routed.txid,
    type: 'p2p',
    p2p_hash: routed.hash,
    best_fee: !routed.fast,
    ...total,
    ...(routed.parts ? { split: { group: routed.hash, parts: routed.parts.map(partView) } } : {}),
  };
}

export function registerWalletRoutes(ctx: PluginContext): void {
  const contacts = ctx.services.use<ContactsService>('contacts');
  const ledger = ctx.services.use<LedgerService>('ledger');

  const contactName = (hash: string): string | null => contacts.get(hash)?.name ?? null;

  const fullTx = (t: LedgerTx): Record<string, unknown> => ({
    txid: t.txid,
    type: t.type,
    tx_type: t.txType,
    status: t.status,
    amount: formatMinor(t.amount),
    currency: t.currency,
    sender_address: t.senderAddress,
    receiver_address: t.receiverAddress,
    counterparty_name: contactName(t.contactHash),
    counterparty_pubkey_hash: t.contactHash,
    description: t.description,
    memo: t.memo,
    previous_txid: t.prevTxid,
    refund_of: t.refundOf,
    failure_reason: t.failureReason,
    needs_review: t.needsReview,
    timestamp: new Date(t.createdAt).toISOString(),
    completed_at: t.completedAt === null ? null : new Date(t.completedAt).toISOString(),
  });

  const overviewTx = (t: LedgerTx): Record<string, unknown> => ({
    txid: t.txid,
    type: t.type,
    tx_type: t.txType,
    status: t.status,
    amount: formatMinor(t.amount),
    currency: t.currency,
    counterparty_name: contactName(t.contactHash),
    description: t.description,
    timestamp: new Date(t.createdAt).toISOString(),
  });

  const availableCredit = (): { currency: string; amount: Minor }[] =>
    sumByCurrency(Object.entries(contacts.availableCreditTotals()).map(([currency, amount]) => ({ currency, amount })));

  /** Balance rows: every ledger balance, plus a zero row for each accepted line without one yet. */
  const balanceRows = (): Record<string, unknown>[] => {
    const rows = ledger.balances().map((b) => ({ hash: b.contactHash, currency: b.currency, received: b.received, sent: b.sent }));
    for (const c of contacts.accepted()) {
      if (!c.pubkeyHash) continue;
      for (const line of c.currencies) {
        if (line.status !== 'accepted') continue;
        if (rows.some((r) => r.hash === c.pubkeyHash && sameCurrency(r.currency, line.currency))) continue;
        rows.push({ hash: c.pubkeyHash, currency: line.currency, received: 0n, sent: 0n });
      }
    }
    return rows
      .map((r) => {
        const c = contacts.get(r.hash);
        return {
          contact_name: c?.name ?? null,
          address: c ? contactAddress(ctx, c) : null,
          pubkey_hash: r.hash,
          currency: r.currency,
          received: formatMinor(r.received),
          sent: formatMinor(r.sent),
          net_balance: formatMinor(r.received - r.sent),
        };
      })
      .sort((a, b) => String(a.contact_name ?? '').localeCompare(String(b.contact_name ?? '')) || a.currency.localeCompare(b.currency));
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/wallet/info',
    access: { scope: 'wallet:read' },
    response: infoResponse,
    handler: () => ({
      public_key_hash: ctx.identity.pubkeyHash,
      addresses: ctx.kernel.node.addresses,
      fee_earnings: sumByCurrency(Object.entries(ledger.feeEarnings()).map(([currency, amount]) => ({ currency, amount }))).map(
        (f): CurrencyTotal => ({ currency: f.currency, total_amount: formatMinor(f.amount) }),
      ),
      available_credit: availableCredit().map((a): CurrencyTotal => ({ currency: a.currency, total_available_credit: formatMinor(a.amount) })),
    }),
  });

  for (const path of ['/api/v1/wallet/balance', '/api/v1/wallet/balances']) {
    ctx.routes.add({
      method: 'GET',
      path,
      access: { scope: 'wallet:read' },
      response: balancesResponse,
      handler: () => ({ balances: balanceRows() }),
    });
  }

  ctx.routes.add<unknown, { transaction_limit?: number }>({
    method: 'GET',
    path: '/api/v1/wallet/overview',
    access: { scope: 'wallet:read' },
    response: overviewResponse,
    query: {
      type: 'object',
      properties: { transaction_limit: { type: 'integer', minimum: 0, maximum: MAX_PAGE_PARAM, default: 5 } },
    },
    handler: (req) => {
      const limit = Math.min(req.query.transaction_limit ?? 5, 20);
      const recent = ledger.list({ limit: Math.max(limit, 1), offset: 0 });
      return {
        balances: sumByCurrency(ledger.balances().map((b) => ({ currency: b.currency, amount: b.received - b.sent }))).map((b) => ({
          currency: b.currency,
          total_balance: formatMinor(b.amount),
        })),
        total_available_credit: availableCredit().map((a) => ({ currency: a.currency, total: formatMinor(a.amount) })),
        recent_transactions: limit === 0 ? [] : recent.rows.map(overviewTx),
        transaction_count: recent.total,
      };
    },
  });

  ctx.routes.add<unknown, TxQuery>({
    method: 'GET',
    path: '/api/v1/wallet/transactions',
    access: { scope: 'wallet:read' },
    response: transactionsResponse,
    query: pageQuery({
      type: { type: 'string', enum: ['sent', 'received', 'relay'] },
      contact: { type: 'string', minLength: 1 },
      status: { type: 'string', enum: ['pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed'] },
      // Search and sort (ours, beside Document 1's filters): the GUI's History asks the node, not its own page.
      q: { type: 'string', minLength: 1, maxLength: 255 },
      txid: { type: 'string', pattern: '^[0-9a-fA-F]{1,64}$' },
      amount_min: { type: 'string', minLength: 1 },
      amount_max: { type: 'string', minLength: 1 },
      from: { type: 'string' },
      to: { type: 'string' },
      sort: { type: 'string', enum: ['time', 'amount'] },
      order: { type: 'string', enum: ['asc', 'desc'] },
    }),
    handler: (req) => {
      const { limit, offset } = pageParams(req.query);
      const q = req.query;
      let contactHash: string | undefined;
      if (q.contact !== undefined) {
        const c = contacts.resolve(q.contact);
        if (!c.pubkeyHash) return { transactions: [], pagination: { total: 0, limit, offset } };
        contactHash = c.pubkeyHash;
      }
      const amountMin = boundOf('amount_min', q.amount_min);
      const amountMax = boundOf('amount_max', q.amount_max);
      const { rows, total } = ledger.list({
        limit,
        offset,
        ...(q.type ? { type: q.type } : {}),
        ...(contactHash ? { contactHash } : {}),
        ...(q.status ? { status: q.status as LedgerTx['status'] } : {}),
        ...(q.q ? { search: q.q } : {}),
        ...(q.txid ? { txidPrefix: q.txid.toLowerCase() } : {}),
        ...(amountMin !== undefined ? { amountMin } : {}),
        ...(amountMax !== undefined ? { amountMax } : {}),
        ...dayRange(q),
        ...(q.sort ? { sort: q.sort } : {}),
        ...(q.order ? { order: q.order } : {}),
      });
      return { transactions: rows.map(fullTx), pagination: { total, limit, offset } };
    },
  });

  // Ours: fees earned relaying per day (the GUI's chart), groups rather than transactions.
  ctx.routes.add<unknown, { limit?: number; offset?: number; from?: string; to?: string }>({
    method: 'GET',
    path: '/api/v1/wallet/fee-earnings',
    access: { scope: 'wallet:read' },
    response: feeEarningsResponse,
    query: pageQuery({ from: { type: 'string' }, to: { type: 'string' } }),
    handler: (req) => {
      const { limit, offset } = pageParams(req.query, FEE_DAYS_CAP, FEE_DAYS_CAP);
      const { rows, total } = ledger.feeEarningsByDay({ limit, offset, ...dayRange(req.query) });
      return { days: rows.map((r) => ({ day: r.day, currency: r.currency, amount: formatMinor(r.amount) })), pagination: { total, limit, offset } };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/wallet/transactions/:txid',
    access: { scope: 'wallet:read' },
    response: transactionResponse,
    handler: (req) => {
      const txid = String(req.params.txid ?? '').toLowerCase();
      const tx = TXID.test(txid) ? ledger.get(txid) : null;
      if (!tx) throw new ApiError('transaction_not_found', 404, `No transaction ${req.params.txid}`);
      // One transaction is looked at closely (the GUI's detail): the two signatures of its signed content come along,
      // and the split payment it is a part of, if any.
      const router = ledger.router();
      const split = router?.splitOf?.(tx.txid) ?? null;
      const route = split ? null : (router?.routeOf?.(tx.txid) ?? null);
      return {
        transaction: fullTx(tx),
        signatures: { sender: tx.senderSignature, recipient: tx.recipientSignature },
        ...(split ? { split: splitView(split) } : {}),
        ...(route ? { route: routeView(route) } : {}),
      };
    },
  });

  ctx.routes.add<{ address: string; amount: unknown; currency: string; description?: unknown; best_fee?: boolean; allow_split?: boolean }>({
    method: 'POST',
    path: '/api/v1/wallet/send',
    access: { scope: 'wallet:send' },
    response: sendResponse,
    body: {
      type: 'object',
      required: ['address', 'amount', 'currency'],
      properties: {
        address: { type: 'string' },
        amount: { type: ['string', 'number'] },
        currency: { type: 'string' },
        description: { type: ['string', 'null'] },
        best_fee: { type: 'boolean' },
        allow_split: { type: 'boolean' },
      },
    },
    errorCodes: { address: 'invalid_address', amount: 'invalid_amount', currency: 'invalid_currency', description: 'invalid_description' },
    handler: async (req) => {
      const amount = checkAmount(req.body.amount);
      const currency = checkCurrency(ctx, req.body.currency);
      const description = checkDescription(req.body.description);
      const router = ledger.router();
      const target = sendTarget(ctx, contacts, req.body.address, currency, router !== null);
      // A contact whose line (as it last reported the credit it extends) cannot carry the amount is paid over a route
      // when one exists; with none, the direct payment goes out and the contact decides.
      const short =
        target.kind === 'direct' && router !== null && target.recipient.address !== null
          ? (contacts.line(target.recipient.pubkeyHash, currency)?.myAvailableCredit ?? amount) < amount
          : false;
      if (target.kind === 'route' || short) {
        const address = target.kind === 'route' ? target.address : target.recipient.address!;
        const name = target.kind === 'route' ? target.name : target.recipient.name;
        const routed = await router!.send({ address, amount, currency, description, bestFee: req.body.best_fee === true, allowSplit: req.body.allow_split === true }).catch((err: unknown) => {
          if (!(err instanceof ApiError) || err.code !== 'no_route') throw err;
          if (short) return null;
          const who = target.kind === 'route' && target.contact ? `${name} has no ${currency} line with you` : `${address} is not one of your contacts`;
          throw new ApiError('no_route', 400, `${who}, and no route to it was found: ${err.message}`, err.context);
        });
        if (routed) return routedAnswer(routed, { name, address, amount, currency });
      }
      const to = target.kind === 'direct' ? target.recipient : null;
      if (!to) throw new ApiError('no_route', 400, `No route to ${req.body.address}`);
      const tx = ledger.send({ contactHash: to.pubkeyHash, amount, currency, description, recipientAddress: to.address });
      return {
        status: 'sent',
        message: `Payment of ${formatMinor(amount)} ${currency} to ${to.name} accepted for delivery`,
        recipient: to.name,
        recipient_address: to.address,
        amount: formatMinor(amount),
        currency,
        txid: tx.txid,
        type: 'standard',
      };
    },
  });

  ctx.routes.add<{ txid: unknown; amount?: unknown }>({
    method: 'POST',
    path: '/api/v1/wallet/refund',
    access: { scope: 'wallet:send' },
    response: refundResponse,
    body: {
      type: 'object',
      required: ['txid'],
      properties: { txid: { type: 'string' }, amount: { type: ['string', 'number', 'null'] } },
    },
    errorCodes: { txid: 'invalid_refund', amount: 'invalid_amount' },
    handler: async (req) => {
      const bad = (message: string): ApiError => new ApiError('invalid_refund', 400, message);
      const txid = String(req.body.txid).trim().toLowerCase();
      if (!TXID.test(txid)) throw bad('txid must be a 64-character hex transaction id');
      const raw = req.body.amount;
      const wantsAll = raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');
      const requested = wantsAll ? null : checkAmount(raw);
      const router = ledger.router();
      // Checked and sent in one synchronous turn: a second refund of the same payment sees this one counted.
      const original = ledger.get(txid);
      if (!original) throw bad(`Unknown transaction ${txid}`);
      if (original.type !== 'received') throw bad(`Transaction ${txid} was not received by this wallet: only received payments can be refunded`);
      if (original.status !== 'completed') throw bad(`Transaction ${txid} is ${original.status}, not settled: only completed payments can be refunded`);
      const already = ledger.refunded(txid) + (router?.refundsInFlight(txid) ?? 0n);
      const remainder = original.amount - already;
      if (remainder <= 0n) throw bad(`Transaction ${txid} is already fully refunded`);
      const amount = requested ?? remainder;
      if (amount > remainder) {
        throw bad(`Refund of ${formatMinor(amount)} exceeds the remainder ${formatMinor(remainder)} ${original.currency} (received ${formatMinor(original.amount)}, already refunded or in flight ${formatMinor(already)})`);
      }
      const currency = checkCurrency(ctx, original.currency);
      const remaining = remainder - amount;
      const answer = (to: string, refundTxid: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
        status: remaining === 0n ? 'fully_refunded' : 'partially_refunded',
        message: `Refund of ${formatMinor(amount)} ${currency} to ${to} accepted for delivery`,
        original_txid: txid,
        refund_txid: refundTxid,
        amount: formatMinor(amount),
        currency,
        original_amount: formatMinor(original.amount),
        already_refunded: formatMinor(already),
        remaining: formatMinor(remaining),
        fully_refunded: remaining === 0n,
        note: 'A refund is an ordinary payment back to the sender; refunds still in flight count toward the total, and a refund that is rejected frees its amount again.',
        ...extra,
      });
      if (original.condition) {
        // A routed payment goes back over a route to its originator; the return route's fees are paid on top.
        const origin = router?.originOf(txid) ?? null;
        if (!router || !origin) throw bad(`Transaction ${txid} came over a route from a sender whose address this node never learned: it cannot be refunded`);
        const routed = await router.send({ address: origin, amount, currency, description: `refund of ${txid}`, refundOf: txid });
        return answer(origin, routed.txid, {
          type: 'p2p',
          p2p_hash: routed.hash,
          routing_status: routed.status,
          ...(routed.total !== null ? { total: formatMinor(routed.total), fee: formatMinor(routed.total - amount) } : {}),
        });
      }
      const to = resolveRecipient(ctx, contacts, original.contactHash, currency);
      const refund = ctx.db.tx(() =>
        ledger.send({ contactHash: to.pubkeyHash, amount, currency, description: `refund of ${txid}`, refundOf: txid, recipientAddress: to.address }),
      );
      return answer(to.name, refund.txid);
    },
  });
}
