/**
 * `/api/v1/requests` routes (Document 1, "Payment requests"). Responses carry a top-level `message`.
 */
import { ApiError, Reply, created, type PluginContext } from '../../sdk/index.js';
import { pageParams, pageQuery } from '../../sdk/paging.js';
import { formatMinor } from '../../sdk/money.js';
import { checkAmount, checkCurrency, checkDescription } from '../../sdk/amounts.js';
import type { Payment, RequestsCore } from './core.js';
import { nullSchema } from '../../sdk/schema.js';
import { dayRange } from '../../sdk/dates.js';
import type { RequestStatus } from './api.js';
import { requestCreatedResponse, requestListResponse, requestPaymentResponse, requestView } from './present.js';

/** `{txid}` (Document 1); a payment that goes over a route also names it (`p2p_hash`, as the send route does). */
const paymentData = (paid: Payment): Record<string, unknown> => ({ txid: paid.txid, ...(paid.routeHash ? { p2p_hash: paid.routeHash } : {}) });

/** Document 1: the request list's limit caps at 200, per direction. */
const REQUESTS_PAGE_CAP = 200;

export function registerRequestRoutes(ctx: PluginContext, core: RequestsCore): void {
  const view = (r: Parameters<typeof requestView>[0]) => requestView(r, core.contactName(r.contactHash));

  ctx.routes.add<unknown, { limit?: number; offset?: number; status?: RequestStatus; q?: string; from?: string; to?: string }>({
    method: 'GET',
    path: '/api/v1/requests',
    access: { scope: 'wallet:read' },
    response: requestListResponse,
    // Our additions beside Document 1's limit and offset: filters, and each direction's total (the GUI pages them).
    query: pageQuery({
      status: { type: 'string', enum: ['pending', 'sending', 'approved', 'failed', 'declined', 'cancelled', 'expired'] },
      q: { type: 'string', minLength: 1, maxLength: 255 },
      from: { type: 'string' },
      to: { type: 'string' },
    }),
    handler: (req) => {
      core.expireDue();
      const { limit, offset } = pageParams(req.query, REQUESTS_PAGE_CAP);
      const filter = { limit, offset, ...(req.query.status ? { status: req.query.status } : {}), ...(req.query.q ? { search: req.query.q } : {}), ...dayRange(req.query) };
      const incoming = core.store.list('incoming', filter);
      const outgoing = core.store.list('outgoing', filter);
      return {
        incoming: incoming.rows.map(view),
        outgoing: outgoing.rows.map(view),
        pagination: { incoming_total: incoming.total, outgoing_total: outgoing.total, limit, offset },
      };
    },
  });

  ctx.routes.add<{ contact: string; amount: unknown; currency: string; description?: unknown; address_type?: string }>({
    method: 'POST',
    path: '/api/v1/requests',
    access: { scope: 'wallet:send' },
    response: requestCreatedResponse,
    body: {
      type: 'object',
      required: ['contact', 'amount', 'currency'],
      properties: {
        contact: { type: 'string' },
        amount: { type: ['string', 'number'] },
        currency: { type: 'string' },
        description: { type: ['string', 'null'] },
        address_type: { type: 'string', enum: ['tor', 'https', 'http'] },
      },
    },
    errorCodes: { amount: 'invalid_amount', currency: 'invalid_currency', description: 'invalid_description', address_type: 'invalid_address' },
    handler: (req) => {
      const amount = checkAmount(req.body.amount);
      const currency = checkCurrency(ctx, req.body.currency);
      const description = checkDescription(req.body.description);
      const row = core.create({ contact: req.body.contact, amount, currency, description, addressType: req.body.address_type ?? null });
      const name = core.contactName(row.contactHash) ?? row.storedContactName ?? 'the contact';
      return created({ request_id: row.requestId }, `Payment request for ${formatMinor(amount)} ${currency} sent to ${name}`);
    },
  });

  ctx.routes.add<{ request_id: string; payer_note?: unknown }>({
    method: 'POST',
    path: '/api/v1/requests/approve',
    access: { scope: 'wallet:send' },
    response: requestPaymentResponse,
    body: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string', minLength: 1 } } },
    handler: async (req) => {
      const paid = await core.approve(req.body.request_id, req.body.payer_note);
      const to = core.contactName(paid.row.contactHash) ?? paid.row.storedContactName ?? 'the requester';
      return new Reply(paymentData(paid), 200, `Payment request approved: ${formatMinor(paid.row.amount)} ${paid.row.currency} to ${to} is on its way${paid.routeHash ? ' over a route' : ''}`);
    },
  });

  ctx.routes.add<{ request_id: string }>({
    method: 'POST',
    path: '/api/v1/requests/retry',
    access: { scope: 'wallet:send' },
    response: requestPaymentResponse,
    body: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string' } } },
    errorCodes: { request_id: 'retry_failed' },
    handler: async (req) => {
      const paid = await core.retry(req.body.request_id);
      return new Reply(paymentData(paid), 200, `Payment request retried: a payment of ${formatMinor(paid.row.amount)} ${paid.row.currency} is on its way`);
    },
  });

  ctx.routes.add<{ request_id: string }>({
    method: 'POST',
    path: '/api/v1/requests/decline',
    access: { scope: 'wallet:send' },
    response: nullSchema,
    body: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string', minLength: 1 } } },
    handler: (req) => {
      const row = core.decline(req.body.request_id);
      return new Reply(null, 200, `Payment request ${row.requestId} declined; the requester is notified`);
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/requests/:request_id',
    access: { scope: 'wallet:send' },
    response: nullSchema,
    handler: (req) => {
      const id = req.params.request_id ?? '';
      if (!id) throw new ApiError('missing_field', 400, 'Missing required field: request_id', { field: 'request_id' });
      const row = core.cancel(id);
      return new Reply(null, 200, `Payment request ${row.requestId} cancelled; the recipient is notified`);
    },
  });
}
