import { definePlugin } from '../../sdk/index.js';
import { MSG_TYPE, RequestsCore } from './core.js';
import { registerRequestRoutes } from './routes.js';
import { RequestStore, migrations } from './store.js';
export default definePlugin({
    setup(ctx) {
        ctx.db.migrate(migrations);
        const contacts = ctx.services.use('contacts');
        const ledger = ctx.services.use('ledger');
        const store = new RequestStore(ctx.db.handle);
        const core = new RequestsCore(ctx, store, contacts, ledger);
        ctx.peer.handle(MSG_TYPE, core.handle);
        const outcome = (kind) => (m, detail) => {
            const error = kind === 'delivered' ? null : kind === 'dead' ? String(detail) : (detail.error?.code ?? 'refused');
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
        const service = {
            exportRequests: (filter = {}) => store.exportRows(filter),
        };
        ctx.services.provide('payment-requests', service);
    },
});
//# sourceMappingURL=index.js.map