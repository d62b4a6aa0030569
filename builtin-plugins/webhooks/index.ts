import { definePlugin } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import { DELIVER_JOB, DLQ_LABEL, DLQ_TYPE, WebhooksCore } from './core.js';
import { registerWebhookRoutes } from './routes.js';
import { webhookSettings } from './settings.js';
import { subscribeSources } from './sources.js';
import { WebhookStore, migrations } from './store.js';

/** How long a delivered delivery is kept (it only feeds the counts of GET /webhooks). */
const DELIVERED_RETENTION_MS = 7 * 86_400_000;

/**
 * Signed webhooks (docs/api/webhooks.md): the operator's URLs get the node's events as signed JSON posts, retried
 * with backoff, then parked in the dead letter queue.
 */
export default definePlugin({
  setup(ctx) {
    ctx.db.migrate(migrations);
    ctx.settings.declare(webhookSettings);
    const store = new WebhookStore(ctx.db.handle);
    const core = new WebhooksCore(ctx, store);
    ctx.jobs.register({
      name: DELIVER_JOB,
      processor: 'webhooks',
      // Timed only for retries: new events kick the job.
      nextRunAt: () => store.nextDue(),
      run: async () => {
        await core.deliverDue();
        ctx.jobs.reschedule(DELIVER_JOB);
      },
    });
    ctx.jobs.register({
      name: 'retention',
      processor: 'cleanup',
      everyMs: 3_600_000,
      run: () => {
        ctx.db.tx(() => store.prune(ctx.clock.now() - DELIVERED_RETENTION_MS));
      },
    });
    ctx.peer.outcomes(DLQ_TYPE, { label: DLQ_LABEL, retryable: true, retry: (message) => core.retryDead(message) });
    registerWebhookRoutes(ctx, core);
    subscribeSources(ctx, core, ctx.services.use<LedgerService>('ledger'), ctx.services.use<ContactsService>('contacts'));
  },
});
