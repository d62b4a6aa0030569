/**
 * Consent in, payloads out. What may be sent and when:
 *
 * - Nothing unless analytics are enabled (`analyticsEnabled`, or NODE_ANALYTICS_ENABLED when set): every send
 *   checks it at the moment it starts, and switching analytics off cancels a submission in flight.
 * - `node_setup` once per data directory, when analytics are first found enabled (switched on, or enabled at start).
 *   A failed one is tried again before the next heartbeat.
 * - `usage_heartbeat` at most once per UTC day, over the period since the last accepted heartbeat or the opt-in,
 *   whichever is later (schedule.ts); a failure leaves the period open, so the next run widens it.
 * - A legacy opt-in (enabled without `analyticsOptInAt`) is stamped with the current time on the first daily run.
 */
import type { Logger, SettingsMechanism, SettingsApi } from '../../sdk/index.js';
import { collectMetrics, type MetricSources } from './metrics.js';
import { EVENTS, heartbeat, nodeSetup, type HeartbeatPayload } from './payload.js';
import { nextHeartbeatAt, reportWindow, sameUtcDay, type ReportWindow } from './schedule.js';
import type { AnalyticsState, AnalyticsStore } from './store.js';
import { SubmitError, type Submitter } from './submit.js';

export interface AnalyticsDeps extends Omit<MetricSources, 'store'> {
  store: AnalyticsStore;
  submitter: Submitter;
  settings: SettingsApi;
  /** Which settings the environment fixes, and the legacy opt-in stamp (no API client may write it). */
  nodeSettings: Pick<SettingsMechanism, 'update' | 'overridden'>;
  analyticsId: string;
  version: string;
  log: Logger;
  now: () => number;
}

export type RunOutcome = 'sent' | 'failed' | 'disabled' | 'already_sent';

export class Analytics {
  #inFlight = new AbortController();
  #setupTriedThisLoad = false;
  /** The node_setup submission under way: the daily job that finds node_setup unsent joins it instead of sending a second. */
  #setupInFlight: Promise<RunOutcome> | null = null;
  #nextHeartbeat: number | null = null;

  constructor(private readonly deps: AnalyticsDeps) {}

  enabled(): boolean {
    return this.deps.settings.get<boolean>('analyticsEnabled') === true;
  }

  /** Whether NODE_ANALYTICS_ENABLED decides, whatever the setting says. */
  decidedByEnvironment(): boolean {
    return this.deps.nodeSettings.overridden().includes('analyticsEnabled');
  }

  consentAsked(): boolean {
    return this.deps.settings.get<boolean>('analyticsConsentAsked') === true;
  }

  optInAt(): string | null {
    return this.deps.settings.get<string | null>('analyticsOptInAt');
  }

  state(): AnalyticsState {
    return this.deps.store.state();
  }

  /** Switching analytics off takes effect at once: a submission in flight is abandoned. */
  cancel(): void {
    this.#inFlight.abort();
    this.#inFlight = new AbortController();
  }

  /** The heartbeat job's schedule; the time is kept for the status route. */
  scheduleHeartbeat(now: number): number {
    this.#nextHeartbeat = nextHeartbeatAt(now);
    return this.#nextHeartbeat;
  }

  nextHeartbeat(): number | null {
    return this.#nextHeartbeat;
  }

  /** The start-up run of node_setup is due once per load, and only until it was accepted. */
  setupDueAtStart(): boolean {
    return !this.#setupTriedThisLoad && this.enabled() && this.state().nodeSetupSentAt === null;
  }

  async sendNodeSetup(): Promise<RunOutcome> {
    this.#setupTriedThisLoad = true;
    if (!this.enabled()) return 'disabled';
    if (this.#setupInFlight) return this.#setupInFlight;
    if (this.state().nodeSetupSentAt !== null) return 'already_sent';
    const now = this.deps.now();
    this.#setupInFlight = this.#submit(EVENTS.setup, nodeSetup(this.deps.analyticsId, this.deps.version, now), (at) => ({ nodeSetupSentAt: at }));
    try {
      return await this.#setupInFlight;
    } finally {
      this.#setupInFlight = null;
    }
  }

  /** The daily job. */
  async runDaily(): Promise<RunOutcome> {
    if (!this.enabled()) return 'disabled';
    if (this.optInAt() === null) {
      const stamp = new Date(this.deps.now()).toISOString();
      this.deps.nodeSettings.update({ analyticsOptInAt: stamp });
      this.deps.log.info('legacy analytics opt-in stamped', { opt_in_at: stamp });
    }
    if (this.state().nodeSetupSentAt === null && (await this.sendNodeSetup()) !== 'sent') return 'failed';
    const last = this.state().lastHeartbeatAt;
    if (last !== null && sameUtcDay(last, this.deps.now())) return 'already_sent';
    const { payload, window } = this.preview();
    return this.#submit(EVENTS.heartbeat, payload, () => ({ lastHeartbeatAt: window.to, heartbeatCoveredUntil: window.to }));
  }

  /** The heartbeat as it would be sent now (nothing is stamped or sent). */
  preview(): { payload: HeartbeatPayload; window: ReportWindow } {
    const now = this.deps.now();
    const optIn = this.optInAt();
    const window = reportWindow(now, optIn === null ? now : Date.parse(optIn), this.state().heartbeatCoveredUntil);
    const metrics = collectMetrics(this.deps, window.from, window.to);
    return { payload: heartbeat(this.deps.analyticsId, this.deps.version, now, window.periodDays, metrics), window };
  }

  async #submit(event: string, payload: object, onSuccess: (at: string) => Partial<AnalyticsState>): Promise<RunOutcome> {
    if (!this.enabled()) return 'disabled';
    const at = new Date(this.deps.now()).toISOString();
    try {
      await this.deps.submitter.submit(payload, this.#inFlight.signal);
    } catch (err) {
      const error = err instanceof SubmitError ? err.message : 'unexpected error';
      if (!(err instanceof SubmitError)) this.deps.log.error('analytics submission failed unexpectedly', { event, error: String(err) });
      this.deps.store.update({ lastAttempt: { at, event, ok: false, error } });
      this.deps.log.info('analytics submission failed', { event, error });
      return 'failed';
    }
    this.deps.store.update({ ...onSuccess(at), lastSubmitted: at, lastEvent: event, lastAttempt: { at, event, ok: true, error: null } });
    this.deps.log.info('analytics submitted', { event });
    return 'sent';
  }
}
