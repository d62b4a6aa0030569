/**
 * Clock skew: each node's clock reads the virtual time plus an offset of its own in [-maxMs, maxMs], set before the
 * node starts (clock.ts applies it to every `Date` the node reads; timers are relative and stay exact). Drawn from a
 * stream of its own, so turning skew on changes no other decision of the run.
 */
import { Rng } from '../random.js';

export function skews(seed: number, nodes: number, maxMs: number): number[] {
  const rng = new Rng(seed ^ 0x5c3e);
  return Array.from({ length: nodes }, () => (maxMs > 0 ? rng.int(-maxMs, maxMs) : 0));
}
