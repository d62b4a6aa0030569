import { toJson } from './payload.js';
const READ = { scope: 'system:read' };
const iso = (ms) => (ms === null ? null : new Date(ms).toISOString());
export function registerAnalyticsRoutes(ctx, analytics, submitter, heartbeatInstalled) {
    ctx.routes.plugin({
        method: 'GET',
        path: 'status',
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
        access: READ,
        query: { type: 'object' },
        handler: () => {
            const { payload, window } = analytics.preview();
            return {
                enabled: analytics.enabled(),
                window: { from: iso(window.from), to: iso(window.to) },
                // The wire form: bigint totals become plain JSON numbers, as the collector receives them.
                payload: JSON.parse(toJson(payload)),
            };
        },
    });
}
//# sourceMappingURL=routes.js.map