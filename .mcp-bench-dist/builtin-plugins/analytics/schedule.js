/**
 * When the heartbeat runs and which period it reports (Document 2, "Outbound analytics submission" and
 * "Analytics limits"). Pure functions of the time, so they are tested without waiting for 03:00.
 */
export const DAY_MS = 86_400_000;
export const HEARTBEAT_HOUR_UTC = 3;
/** The random delay after 03:00 UTC, 0-3600 s inclusive, spreads the nodes' reports over an hour. */
export const MAX_DELAY_SECONDS = 3600;
export const MAX_PERIOD_DAYS = 365;
/** The next run: the first 03:00 UTC strictly after `now`, plus a fresh random delay of whole seconds. */
export function nextHeartbeatAt(now, random = Math.random) {
    const d = new Date(now);
    let slot = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), HEARTBEAT_HOUR_UTC);
    if (slot <= now)
        slot += DAY_MS;
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.floor(random() * (MAX_DELAY_SECONDS + 1)));
    return slot + delaySeconds * 1000;
}
/**
 * The period a heartbeat reports. It starts where the last accepted heartbeat's period ended, or at the opt-in when
 * that is later (so nothing from before consent is counted, and a re-enabling starts afresh); a failed submission
 * moves nothing, so the next run covers the gap. `period_days` is the whole days since that start, clamped to
 * 1-365, and the counted period never reaches further back than 365 days.
 */
export function reportWindow(now, optInAt, coveredUntil) {
    const known = [optInAt, coveredUntil].filter((t) => t !== null && Number.isFinite(t));
    const start = known.length ? Math.max(...known) : now - DAY_MS;
    const days = Math.floor((now - start) / DAY_MS);
    const periodDays = Math.min(MAX_PERIOD_DAYS, Math.max(1, days));
    const from = Math.min(now, Math.max(start, now - MAX_PERIOD_DAYS * DAY_MS));
    return { from, to: now, periodDays };
}
/** Document 2's timestamp form, `2025-01-31T03:12:09Z` (UTC, whole seconds). */
export function utcStamp(ms) {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
export const sameUtcDay = (a, b) => new Date(a).toISOString().slice(0, 10) === new Date(b).toISOString().slice(0, 10);
//# sourceMappingURL=schedule.js.map