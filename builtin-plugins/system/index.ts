import { definePlugin } from '../../sdk/index.js';
import { DebugReportSubmitter } from './debug-submit.js';
import { acquireEventLoopMonitor } from './event-loop.js';
import { Extensions } from './extensions.js';
import { registerRoutes } from './routes.js';
import { systemSettings } from './settings-catalog.js';
import { databaseProbe, processorFlags, statusBuilder } from './status.js';
import { SystemStore } from './store.js';
import { UpdateChecker } from './update-check.js';

/**
 * The `system` plugin: node status and metrics, settings, background processors, restart, retirement,
 * release checks and debug reports (Document 1, "System"). It is essential (never disabled) and provides the
 * `system` service (api.ts) through which feature plugins add sync handlers and metrics.
 */

const HOUR_MS = 3_600_000;

export default definePlugin({
  setup(ctx) {
    const { kernel } = ctx;
    ctx.settings.declare(systemSettings);
    const store = new SystemStore(ctx.db);

    // Outbound calls (update check, report submission) are cancelled when the plugin stops (restart, shutdown).
    const stopping = new AbortController();
    ctx.onStop(() => stopping.abort());

    const extensions = new Extensions(ctx.log);
    ctx.services.provide('system', extensions.service);

    const updates = new UpdateChecker({
      store,
      settings: ctx.settings,
      currentVersion: kernel.node.version,
      outbound: kernel.outbound,
      log: ctx.log,
      signal: stopping.signal,
    });
    // A schedule, not polling: the job only fetches when the cached answer has expired (24 h / 1 h).
    ctx.jobs.register({ name: 'update-check', everyMs: HOUR_MS, run: () => updates.refreshIfDue() });
    // Turned on: the first check now, not an hour later.
    ctx.settings.onChange('updateCheckEnabled', () => ctx.jobs.kick('update-check'));

    const { histogram: eventLoop, release } = acquireEventLoopMonitor();
    ctx.onStop(release);

    const database = databaseProbe(kernel);
    registerRoutes(ctx, {
      status: statusBuilder(kernel, ctx.settings, updates, extensions, database),
      updates,
      extensions,
      reportSources: {
        kernel,
        authCode: ctx.identity.authCode,
        processors: () => processorFlags(kernel.jobs),
        database: () => (kernel.databaseHealthy() ? 'healthy' : 'unhealthy'),
      },
      submitter: new DebugReportSubmitter({
        settings: ctx.settings,
        store,
        outbound: kernel.outbound,
        version: kernel.node.version,
        log: ctx.log,
        signal: stopping.signal,
      }),
      eventLoop,
    });
  },
});
