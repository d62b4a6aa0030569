import { collectMetrics } from './metrics.js';
import { EVENTS, heartbeat, nodeSetup } from './payload.js';
import { nextHeartbeatAt, reportWindow, sameUtcDay } from './schedule.js';
import { SubmitError } from './submit.js';
export class Analytics {
    deps;
    #inFlight = new AbortController();
    #setupTriedThisLoad = false;
    #nextHeartbeat = null;
    constructor(deps) {
        this.deps = deps;
    }
    enabled() {
        return this.deps.settings.get('analyticsEnabled') === true;
    }
    /** Whether NODE_ANALYTICS_ENABLED decides, whatever the setting says. */
    decidedByEnvironment() {
        return this.deps.nodeSettings.overridden().includes('analyticsEnabled');
    }
    consentAsked() {
        return this.deps.settings.get('analyticsConsentAsked') === true;
    }
    optInAt() {
        return this.deps.settings.get('analyticsOptInAt');
    }
    state() {
        return this.deps.store.state();
    }
    /** Switching analytics off takes effect at once: a submission in flight is abandoned. */
    cancel() {
        this.#inFlight.abort();
        this.#inFlight = new AbortController();
    }
    /** The heartbeat job's schedule; the time is kept for the status route. */
    scheduleHeartbeat(now) {
        this.#nextHeartbeat = nextHeartbeatAt(now);
        return this.#nextHeartbeat;
    }
    nextHeartbeat() {
        return this.#nextHeartbeat;
    }
    /** The start-up run of node_setup is due once per load, and only until it was accepted. */
    setupDueAtStart() {
        return !this.#setupTriedThisLoad && this.enabled() && this.state().nodeSetupSentAt === null;
    }
    async sendNodeSetup() {
        this.#setupTriedThisLoad = true;
        if (!this.enabled())
            return 'disabled';
        if (this.state().nodeSetupSentAt !== null)
            return 'already_sent';
        const now = this.deps.now();
        return this.#submit(EVENTS.setup, nodeSetup(this.deps.analyticsId, this.deps.version, now), (at) => ({ nodeSetupSentAt: at }));
    }
    /** The daily job. */
    async runDaily() {
        if (!this.enabled())
            return 'disabled';
        if (this.optInAt() === null) {
            const stamp = new Date(this.deps.now()).toISOString();
            this.deps.nodeSettings.update({ analyticsOptInAt: stamp });
            this.deps.log.info('legacy analytics opt-in stamped', { opt_in_at: stamp });
        }
        if (this.state().nodeSetupSentAt === null && (await this.sendNodeSetup()) !== 'sent')
            return 'failed';
        const last = this.state().lastHeartbeatAt;
        if (last !== null && sameUtcDay(last, this.deps.now()))
            return 'already_sent';
        const { payload, window } = this.preview();
        return this.#submit(EVENTS.heartbeat, payload, () => ({ lastHeartbeatAt: window.to, heartbeatCoveredUntil: window.to }));
    }
    /** The heartbeat as it would be sent now (nothing is stamped or sent). */
    preview() {
        const now = this.deps.now();
        const optIn = this.optInAt();
        const window = reportWindow(now, optIn === null ? now : Date.parse(optIn), this.state().heartbeatCoveredUntil);
        const metrics = collectMetrics(this.deps, window.from, window.to);
        return { payload: heartbeat(this.deps.analyticsId, this.deps.version, now, window.periodDays, metrics), window };
    }
    async #submit(event, payload, onSuccess) {
        if (!this.enabled())
            return 'disabled';
        const at = new Date(this.deps.now()).toISOString();
        try {
            await this.deps.submitter.submit(payload, this.#inFlight.signal);
        }
        catch (err) {
            const error = err instanceof SubmitError ? err.message : 'unexpected error';
            if (!(err instanceof SubmitError))
                this.deps.log.error('analytics submission failed unexpectedly', { event, error: String(err) });
            this.deps.store.update({ lastAttempt: { at, event, ok: false, error } });
            this.deps.log.info('analytics submission failed', { event, error });
            return 'failed';
        }
        this.deps.store.update({ ...onSuccess(at), lastSubmitted: at, lastEvent: event, lastAttempt: { at, event, ok: true, error: null } });
        this.deps.log.info('analytics submitted', { event });
        return 'sent';
    }
}
//# sourceMappingURL=core.js.map