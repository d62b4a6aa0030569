/**
 * The plugin's own routes, beside Document 1's (`analytics_enabled` in PUT /system/settings, the `analytics` object of
 * GET /system/status):
 *
 *   GET /api/v1/plugins/analytics/status    consent, schedule and the last submission attempt
 *   GET /api/v1/plugins/analytics/preview   the heartbeat exactly as it would be sent now; sends nothing
 *
 * There is deliberately no "send now": Document 2 gives analytics a daily schedule only.
 */
import type { PluginContext } from '../../sdk/index.js';
import type { Analytics } from './core.js';
import { toJson } from './payload.js';
import type { Submitter } from './submit.js';
import { previewResponse, statusResponse } from './schemas.js';

const READ = { scope: 'system:read' } as const;
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function registerAnalyticsRoutes(ctx: PluginContext, analytics: Analytics, submitter: Submitter, heartbeatInstalled: () => boolean): void {
  ctx.routes.plugin({
    method: 'GET',
    path: 'status',
    response: statusResponse,
    access: READ,
    query: { type: 'object' },
    handler: () => {
      const state = analytics.state();
      const enabled = analytics.enabled();
      return {
        enabled,
        decided_by_environment: analytics.decidedByEnvironment(),
        consent_asked: analytics.consentAsked(),
        consent_pending: !enabled && !analytics.consentAsked(),
        opt_in_at: analytics.optInAt(),
        collector: submitter.target(),
        node_setup_sent_at: state.nodeSetupSentAt,
        last_submitted: state.lastSubmitted,
        last_event: state.lastEvent,
        last_attempt: state.lastAttempt,
        heartbeat_installed: heartbeatInstalled(),
        next_heartbeat_at: heartbeatInstalled() ? iso(analytics.nextHeartbeat()) : null,
      };
    },
  });

  ctx.routes.plugin({
    method: 'GET',
    path: 'preview',
    response: previewResponse,
    access: READ,
    query: { type: 'object' },
    handler: () => {
      const { payload, window } = analytics.preview();
      return {
        enabled: analytics.enabled(),
        window: { from: iso(window.from), to: iso(window.to) },
        // The wire form: bigint totals become plain JSON numbers, as the collector receives them.
        payload: JSON.parse(toJson(payload)) as unknown,
      };
    },
  });
}
