import { definePlugin } from '../../sdk/index.js';
import type { SystemService } from '../system/api.js';
import { registerDlqRoutes } from './routes.js';

/**
 * The REST surface of the kernel's dead letter queue (ctx.kernel.dlq): Document 2 gives the queue a CLI only;
 * the routes live under the system resource (docs/protocol.md, "Dead letter queue routes"). The pending count (the GUI badge of Document 2)
 * is in the list response and in GET /system/metrics under `plugins.dlq`.
 */
export default definePlugin({
  setup(ctx) {
    registerDlqRoutes(ctx);
    ctx.services.use<SystemService>('system').registerMetrics('dlq', () => ({ pending_count: ctx.kernel.dlq.pendingCount() }));
    ctx.metrics.gauge({ name: 'dlq_pending', help: 'Dead letters waiting for a retry or a decision' }, () => [{ value: ctx.kernel.dlq.pendingCount() }]);
  },
});
