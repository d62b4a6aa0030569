import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { LOOP_RESOLUTION_MS } from './routes.js';

/**
 * The event-loop delay is the process's, not a node's: the nodes one process runs (tests, simulations) share one
 * monitor, each a sampling timer and a histogram of a few hundred KiB. It starts with its first holder and stops with
 * the last, so a lone node's restart starts a fresh one as before.
 */
let shared: { histogram: IntervalHistogram; holders: number } | null = null;

/** The process's event-loop delay histogram, and its release (call it once). */
export function acquireEventLoopMonitor(): { histogram: IntervalHistogram; release: () => void } {
  if (!shared) {
    const histogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    histogram.enable();
    shared = { histogram, holders: 0 };
  }
  const held = shared;
  held.holders++;
  return {
    histogram: held.histogram,
    release: () => {
      if (--held.holders === 0) {
        held.histogram.disable();
        shared = null;
      }
    },
  };
}
