import { definePlugin } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { PaymentRequestsService } from '../payment-requests/api.js';
import { registerExportRoutes } from './routes.js';

/**
 * Exports (Document 1, "Exports"): transactions, payment requests, contacts and balances as CSV or NDJSON, streamed
 * from the services of the plugins that own them (docs/api/exports.md). No tables of its own.
 */
export default definePlugin({
  setup(ctx) {
    registerExportRoutes(ctx, {
      contacts: ctx.services.use<ContactsService>('contacts'),
      ledger: ctx.services.use<LedgerService>('ledger'),
      requests: ctx.services.use<PaymentRequestsService>('payment-requests'),
    });
  },
});
