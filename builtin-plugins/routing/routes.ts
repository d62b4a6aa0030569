/**
 * The P2P approval routes of Document 1 (active when autoAcceptTransaction is off): the pending routed payments, their
 * candidates, approve and reject. Only the originator of a payment decides on it.
 */
import { ApiError, type PluginContext } from '../../sdk/index.js';
import { pageParams, pageQuery } from '../../sdk/paging.js';
import type { Payments } from './payments.js';
import { candidateView, pendingView } from './present.js';
import { HEX64 } from './protocol.js';
import { approvedResponse, candidatesResponse, pendingResponse, rejectedResponse } from './schemas.js';
import type { PaymentRow, RoutingStore } from './store.js';

export function registerRoutes(ctx: PluginContext, store: RoutingStore, payments: Payments): void {
  /** The payment named by `hash`, which this node originated. */
  const originated = (raw: unknown): PaymentRow => {
    const hash = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (!HEX64.test(hash)) throw new ApiError('invalid_hash', 400, 'hash must be a 64-character hex string', { field: 'hash' });
    const payment = store.payment(hash);
    if (payment) return payment;
    if (store.legsOf(hash).length > 0) throw new ApiError('not_originator', 403, `Only the originator of ${hash} may approve or reject it; this node relays it`);
    throw new ApiError('p2p_error', 404, `No P2P transaction ${hash} on this node`);
  };

  const awaiting = (p: PaymentRow): PaymentRow => {
    if (p.status !== 'awaiting_approval') throw new ApiError('p2p_error', 400, `The P2P transaction ${p.hash} is ${p.status}, not awaiting approval`);
    return p;
  };

  ctx.routes.add<unknown, { limit?: number; offset?: number }>({
    method: 'GET',
    path: '/api/v1/p2p',
    response: pendingResponse,
    access: { scope: 'wallet:read' },
    query: pageQuery(),
    handler: (req) => {
      const { limit, offset } = pageParams(req.query);
      const { rows, total } = store.openPayments(limit, offset);
      return { transactions: rows.map((p) => pendingView(p, store.candidates(p.hash))), count: rows.length, total, limit, offset };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/p2p/candidates/:hash',
    response: candidatesResponse,
    access: { scope: 'wallet:read' },
    handler: (req) => {
      const hash = String(req.params.hash ?? '').toLowerCase();
      const payment = HEX64.test(hash) ? store.payment(hash) : null;
      if (!payment || payment.status !== 'awaiting_approval') {
        throw new ApiError('p2p_error', 404, `No P2P transaction ${req.params.hash} awaiting approval on this node`);
      }
      const candidates = store.candidates(hash).map((c) => candidateView(c, payment));
      return {
        hash,
        amount: pendingView(payment, []).amount,
        currency: payment.currency,
        fast: payment.fast ? 1 : 0,
        candidates,
        // Fast mode holds one route: the single response, as Document 1 shows it.
        rp2p: payment.fast ? (candidates[0] ?? null) : null,
      };
    },
  });

  ctx.routes.add<{ hash: string; candidate_id?: number }>({
    method: 'POST',
    path: '/api/v1/p2p/approve',
    response: approvedResponse,
    access: { scope: 'wallet:send' },
    body: {
      type: 'object',
      required: ['hash'],
      properties: { hash: { type: 'string' }, candidate_id: { type: 'integer', minimum: 1 } },
    },
    errorCodes: { hash: 'invalid_hash', candidate_id: 'candidate_not_found' },
    handler: (req) => {
      const payment = awaiting(originated(req.body.hash));
      const candidates = store.candidates(payment.hash);
      let id = req.body.candidate_id;
      if (id === undefined) {
        if (candidates.length === 0) throw new ApiError('no_route', 400, `No route was found for ${payment.hash}`);
        if (candidates.length > 1) {
          throw new ApiError('candidate_selection_required', 400, `${candidates.length} routes were found: choose one with candidate_id`, {
            candidate_ids: candidates.map((c) => c.id),
          });
        }
        id = candidates[0]!.id;
      }
      const chosen = store.candidate(id);
      if (!chosen) throw new ApiError('candidate_not_found', 404, `No route candidate ${id}`);
      if (chosen.hash !== payment.hash) throw new ApiError('candidate_mismatch', 400, `Route candidate ${id} belongs to another P2P transaction`);
      let txid: string;
      try {
        txid = payments.execute(payment.hash, id);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw new ApiError('p2p_error', 500, `The route could not be used: ${err instanceof Error ? err.message : String(err)}`);
      }
      return { message: `Route ${id} approved: the payment is on its way`, hash: payment.hash, candidate_id: id, txid };
    },
  });

  ctx.routes.add<{ hash: string }>({
    method: 'POST',
    path: '/api/v1/p2p/reject',
    response: rejectedResponse,
    access: { scope: 'wallet:send' },
    body: { type: 'object', required: ['hash'], properties: { hash: { type: 'string' } } },
    errorCodes: { hash: 'invalid_hash' },
    handler: (req) => {
      const payment = awaiting(originated(req.body.hash));
      payments.reject(payment.hash, 'rejected by the operator');
      return { message: 'P2P transaction rejected: the routes offered are released', hash: payment.hash };
    },
  });
}
