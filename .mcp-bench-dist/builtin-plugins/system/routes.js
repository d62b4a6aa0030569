import { buildReport } from './debug-report.js';
import { registerLifecycleRoutes } from './lifecycle-routes.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { processorFlags } from './status.js';
const READ = { scope: 'system:read' };
const DESCRIPTION = { type: 'string', maxLength: 500 };
/** `full` arrives as text in a query string: true/false, also 1/0 as the reference CLI sends it. */
const FULL_QUERY = { enum: ['true', 'false', '1', '0'], default: 'false' };
/** The event-loop histogram samples every LOOP_RESOLUTION_MS; what exceeds it is lag. */
export const LOOP_RESOLUTION_MS = 20;
const lagMs = (ns) => (Number.isFinite(ns) ? Math.max(0, Math.round((ns / 1e6 - LOOP_RESOLUTION_MS) * 100) / 100) : 0);
export function registerRoutes(ctx, deps) {
    const { kernel } = ctx;
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/system/status',
        access: READ,
        query: { type: 'object' },
        handler: deps.status,
    });
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/system/metrics',
        access: READ,
        query: { type: 'object' },
        handler: () => {
            const now = Date.now();
            const mem = process.memoryUsage();
            const { requests_total: total = 0, ...byStatus } = kernel.httpMetrics();
            const loop = deps.eventLoop;
            return {
                uptime_seconds: Math.floor((now - kernel.node.startedAt) / 1000),
                started_at: new Date(kernel.node.startedAt).toISOString(),
                version: kernel.node.version,
                retired: kernel.isRetired(),
                memory: { rss: mem.rss, heap_used: mem.heapUsed, heap_total: mem.heapTotal, external: mem.external },
                event_loop_lag_ms: { mean: lagMs(loop.mean), p99: lagMs(loop.percentile(99)), max: lagMs(loop.max) },
                http: { requests_total: total, by_status: byStatus },
                jobs: { running: kernel.jobs.running(), processors: processorFlags(kernel.jobs), states: kernel.jobs.states() },
                plugins: deps.extensions.metrics(),
                timestamp: new Date(now).toISOString(),
            };
        },
    });
    ctx.routes.add({
        method: 'POST',
        path: '/api/v1/system/update-check',
        access: READ,
        body: { type: 'object' },
        handler: () => deps.updates.check(),
    });
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/system/debug-report',
        access: READ,
        query: { type: 'object', properties: { full: FULL_QUERY, description: DESCRIPTION } },
        errorCodes: { description: 'invalid_description' },
        handler: (req) => {
            const type = req.query.full === 'true' || req.query.full === '1' ? 'full' : 'limited';
            const report = buildReport(deps.reportSources, type, req.query.description ?? '');
            return { report, report_type: type, debug_entries_count: report.debug_entries_count };
        },
    });
    ctx.routes.add({
        method: 'POST',
        path: '/api/v1/system/debug-report',
        access: READ,
        body: { type: 'object', properties: { description: DESCRIPTION, full: { type: 'boolean' } }, additionalProperties: false },
        errorCodes: { description: 'invalid_description' },
        handler: (req) => {
            const type = req.body.full ? 'full' : 'limited';
            const description = req.body.description ?? '';
            return deps.submitter.submit(buildReport(deps.reportSources, type, description), description);
        },
    });
    registerSettingsRoutes(ctx);
    registerLifecycleRoutes(ctx, deps.extensions);
}
//# sourceMappingURL=routes.js.map