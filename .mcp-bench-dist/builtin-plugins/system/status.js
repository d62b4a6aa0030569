/**
 * GET /system/status, Document 1's "System status" resource, field for field. It sits on a benchmark
 * (5,000 req/s), so it touches no file and no network: the update object is the checker's cached view,
 * settings are in memory, and the database probe is remembered for one second.
 */
/** The background processors Document 1 names. A plugin's job joins one with `processor: 'p2p'` etc. */
export const PROCESSORS = ['p2p', 'transaction', 'cleanup'];
export function processorFlags(jobs) {
    return { p2p: jobs.processorRunning('p2p'), transaction: jobs.processorRunning('transaction'), cleanup: jobs.processorRunning('cleanup') };
}
const DB_PROBE_TTL_MS = 1000;
/** The database probe, cached for a second: a failing disk still shows within a second. */
export function databaseProbe(kernel) {
    let at = 0;
    let last = 'healthy';
    return () => {
        const now = Date.now();
        if (now - at >= DB_PROBE_TTL_MS) {
            last = kernel.databaseHealthy() ? 'healthy' : 'unhealthy';
            at = now;
        }
        return last;
    };
}
export function statusBuilder(kernel, settings, updates, extensions, database) {
    return () => {
        const enabled = settings.get('analyticsEnabled');
        return {
            status: 'operational',
            version: kernel.node.version,
            environment: kernel.node.environment,
            database: database(),
            processors: processorFlags(kernel.jobs),
            update: updates.status(),
            analytics: {
                enabled,
                // Pending: the operator has neither switched analytics on nor answered the question.
                consent_pending: !enabled && !settings.get('analyticsConsentAsked'),
                last_submitted: extensions.analyticsLastSubmitted(),
                opt_in_at: settings.get('analyticsOptInAt'),
            },
            timestamp: new Date().toISOString(),
        };
    };
}
//# sourceMappingURL=status.js.map