/**
 * Partitions that heal: for a window of virtual time the nodes are split in two sides, and every exchange between
 * the sides is lost (the request if it leaves during the window, the answer if it comes back during it). Drawn from
 * the seed before the workload starts.
 */
import type { Rng } from '../random.js';

export interface Partition {
  from: number;
  until: number;
  /** side[i]: which side node i is on. */
  side: boolean[];
}

/** `count` windows of `lengthMs`, starting anywhere in [start, start + spanMs), each a fresh random cut. */
export function drawPartitions(rng: Rng, nodes: number, count: number, lengthMs: number, start: number, spanMs: number): Partition[] {
  const out: Partition[] = [];
  for (let k = 0; k < count; k++) {
    const from = start + rng.int(0, Math.max(0, spanMs - 1));
    const side = Array.from({ length: nodes }, () => rng.chance(0.5));
    // Both sides non-empty: a cut that separates nothing is no fault.
    if (side.every((s) => s === side[0])) side[rng.int(0, nodes - 1)] = !side[0];
    out.push({ from, until: from + lengthMs, side });
  }
  return out;
}

/** Whether a and b cannot reach each other at time `at`. */
export const cut = (partitions: readonly Partition[], a: number, b: number, at: number): boolean =>
  a >= 0 && b >= 0 && partitions.some((p) => at >= p.from && at < p.until && p.side[a] !== p.side[b]);
