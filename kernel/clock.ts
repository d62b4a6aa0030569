import type { Clock } from '../sdk/index.js';

export const systemClock: Clock = { now: () => Date.now() };
