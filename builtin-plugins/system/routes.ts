import type { IntervalHistogram } from 'node:perf_hooks';
import type { PluginContext } from '../../sdk/index.js';
import { buildReport, type ReportSources, type ReportType } from './debug-report.js';
import type { DebugReportSubmitter } from './debug-submit.js';
import type { Extensions } from './extensions.js';
import { registerLifecycleRoutes } from './lifecycle-routes.js';
import { debugReportResponse, debugSubmitResponse, metricsResponse, statusResponse, updateStatusSchema } from './schemas.js';
import { registerSettingsRoutes } from './settings-routes.js';
import { processorFlags, type SystemStatus } from './status.js';
import type { UpdateChecker } from './update-check.js';

export interface SystemRouteDeps {
  status: () => SystemStatus;
  updates: UpdateChecker;
  extensions: Extensions;
  reportSources: ReportSources;
  submitter: DebugReportSubmitter;
  eventLoop: IntervalHistogram;
}

const READ = { scope: 'system:read' } as const;
const DESCRIPTION = { type: 'string', maxLength: 500 } as const;
/** `full` arrives as text in a query string: true/false, also 1/0 as the reference CLI sends it. */
const FULL_QUERY = { enum: ['true', 'false', '1', '0'], default: 'false' } as const;

/** The event-loop histogram samples every LOOP_RESOLUTION_MS; what exceeds it is lag. */
export const LOOP_RESOLUTION_MS = 20;
const lagMs = (ns: number): number => (Number.isFinite(ns) ? Math.max(0, Math.round((ns / 1e6 - LOOP_RESOLUTION_MS) * 100) / 100) : 0);

export function registerRoutes(ctx: PluginContext, deps: SystemRouteDeps): void {
  const { kernel } = ctx;

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/system/status',
    response: statusResponse,
    access: READ,
    query: { type: 'object' },
    handler: deps.status,
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/system/metrics',
    response: metricsResponse,
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
        peer_traffic: { days: kernel.peerTrafficDays() },
        jobs: { running: kernel.jobs.running(), processors: processorFlags(kernel.jobs), states: kernel.jobs.states() },
        plugins: deps.extensions.metrics(),
        timestamp: new Date(now).toISOString(),
      };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/system/update-check',
    response: updateStatusSchema,
    access: READ,
    body: { type: 'object' },
    handler: () => deps.updates.check(),
  });

  ctx.routes.add<unknown, { full: string; description?: string }>({
    method: 'GET',
    path: '/api/v1/system/debug-report',
    response: debugReportResponse,
    access: READ,
    query: { type: 'object', properties: { full: FULL_QUERY, description: DESCRIPTION } },
    errorCodes: { description: 'invalid_description' },
    handler: (req) => {
      const type: ReportType = req.query.full === 'true' || req.query.full === '1' ? 'full' : 'limited';
      const report = buildReport(deps.reportSources, type, req.query.description ?? '');
      return { report, report_type: type, debug_entries_count: report.debug_entries_count };
    },
  });

  ctx.routes.add<{ description?: string; full?: boolean }>({
    method: 'POST',
    path: '/api/v1/system/debug-report',
    response: debugSubmitResponse,
    access: READ,
    body: { type: 'object', properties: { description: DESCRIPTION, full: { type: 'boolean' } }, additionalProperties: false },
    errorCodes: { description: 'invalid_description' },
    handler: (req) => {
      const type: ReportType = req.body.full ? 'full' : 'limited';
      const description = req.body.description ?? '';
      return deps.submitter.submit(buildReport(deps.reportSources, type, description), description);
    },
  });

  registerSettingsRoutes(ctx);
  registerLifecycleRoutes(ctx, deps.extensions);
}
