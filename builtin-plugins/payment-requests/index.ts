import { definePlugin } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import { PAYMENT_REQUEST_EVENTS, type PaymentRequestsService } from './api.js';
import { MSG_TYPE, RequestsCore } from './core.js';
import { registerRequestRoutes } from './routes.js';
import { RequestStore, migrations } from './store.js';
import { checkAmount, checkCurrency, checkDescription } from '../../sdk/amounts.js';
import { inBatches } from '../../sdk/batches.js';

export default definePlugin({
  setup(ctx) {
    ctx.db.migrate(migrations);
    const contacts = ctx.services.use<ContactsService>('contacts');
    const ledger = ctx.services.use<LedgerService>('ledger');
    const store = new RequestStore(ctx.db.handle, (row) => {
      const change = { request_id: row.requestId, direction: row.direction, status: row.status };
      ctx.db.afterCommit(() => ctx.events.publish(PAYMENT_REQUEST_EVENTS.changed, change));
    });
    const core = new RequestsCore(ctx, store, contacts, ledger);

    ctx.peer.handle(MSG_TYPE, core.handle);
    const outcome = (kind: 'delivered' | 'refused' | 'dead') => (m: { payload: Record<string, unknown> }, detail: unknown) => {
      const error = kind === 'delivered' ? null : kind === 'dead' ? String(detail) : ((detail as { error?: { code: string; message: string } }).error?.code ?? 'refused');
      core.delivered(String(m.payload.request_id), kind, error, m.payload.event);
    };
    ctx.peer.outcomes(MSG_TYPE, {
      label: 'payment_request',
      retryable: true,
      delivered: outcome('delivered'),
      refused: outcome('refused'),
      dead: outcome('dead'),
    });
    const offFinal = ledger.onFinal(core.onPaymentFinal);
    ctx.onStop(offFinal);
    ctx.jobs.register({ name: 'expiry', processor: 'cleanup', everyMs: 3_600_000, run: () => void core.expireDue() });
    registerRequestRoutes(ctx, core);

    const service: PaymentRequestsService = {
      exportRequests: (filter = {}) => store.exportRows(filter),
      archiveResolved: (olderThan, batchSize) => inBatches(() => ctx.db.tx(() => store.archiveResolved(olderThan, batchSize)), batchSize),
      create: (input) => {
        const row = core.create({
          contact: input.contact,
          amount: checkAmount(input.amount),
          currency: checkCurrency(ctx, input.currency),
          description: checkDescription(input.description),
          addressType: null,
        });
        return { requestId: row.requestId, contactHash: row.contactHash, amount: row.amount, currency: row.currency, status: row.status };
      },
    };
    ctx.services.provide('payment-requests', service);
  },
});
