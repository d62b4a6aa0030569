import { definePlugin } from '../../sdk/index.js';
import { registerExportRoutes } from './routes.js';
/**
 * Exports (Document 1, "Exports"): transactions, payment requests, contacts and balances as CSV or NDJSON, streamed
 * from the services of the plugins that own them (docs/api/exports.md). No tables of its own.
 */
export default definePlugin({
    setup(ctx) {
        registerExportRoutes(ctx, {
            contacts: ctx.services.use('contacts'),
            ledger: ctx.services.use('ledger'),
            requests: ctx.services.use('payment-requests'),
        });
    },
});
//# sourceMappingURL=index.js.map