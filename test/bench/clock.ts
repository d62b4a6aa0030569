/**
 * Epoch milliseconds with a sub-millisecond fraction. Date.now() counts whole milliseconds, too coarse for a figure
 * whose target is 2 ms; performance.now() alone is relative to each thread's start. Their sum compares across the
 * threads and processes of one machine.
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** A duration in milliseconds, as the benchmarks print it. */
export const ms = (v: number): string => v.toFixed(2);
