import type { Clock } from '../sdk/index.js';

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the timestamp form of every envelope. */
export const isoNow = (clock: Clock = systemClock): string => new Date(clock.now()).toISOString();
