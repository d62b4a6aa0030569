export const systemClock = { now: () => Date.now() };
/** ISO 8601 UTC with milliseconds, the timestamp form of every envelope. */
export const isoNow = (clock = systemClock) => new Date(clock.now()).toISOString();
//# sourceMappingURL=clock.js.map