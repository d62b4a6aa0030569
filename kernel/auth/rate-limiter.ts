import { dropExpired } from '../../sdk/sliding-window.js';

/**
 * A sliding one-minute window per key: the exact count of requests in the last 60 s, so request 101 of a
 * 100-per-minute key is refused however the requests are spread. Memory is bounded by each key's limit, and keys
 * idle for a whole window are swept (once per window), so ids that come and go (client addresses) do not pile up.
 */
export class SlidingWindowLimiter {
  #hits = new Map<string, number[]>();
  #nextSweep = 0;

  constructor(private readonly windowMs = 60_000) {}

  /** Ids currently tracked. */
  get size(): number {
    return this.#hits.size;
  }

  /** Records a hit and returns 0, or returns the seconds to wait (Retry-After) without recording. */
  take(id: string, limit: number, now: number): number {
    if (now >= this.#nextSweep) this.#sweep(now);
    let hits = this.#hits.get(id);
    if (!hits) this.#hits.set(id, (hits = []));
    dropExpired(hits, (t) => t, now - this.windowMs);
    if (hits.length >= limit) return Math.max(1, Math.ceil((hits[0]! + this.windowMs - now) / 1000));
    hits.push(now);
    return 0;
  }

  /** Takes back the hit `take` just recorded for `id` (call before anything else can take for it). */
  refund(id: string): void {
    this.#hits.get(id)?.pop();
  }

  forget(id: string): void {
    this.#hits.delete(id);
  }

  #sweep(now: number): void {
    const cutoff = now - this.windowMs;
    for (const [id, hits] of this.#hits) if ((hits.at(-1) ?? -Infinity) <= cutoff) this.#hits.delete(id);
    this.#nextSweep = now + this.windowMs;
  }
}
