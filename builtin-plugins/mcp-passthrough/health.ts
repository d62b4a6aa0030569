/**
 * Health of the places a call can run (providers, and sellers by their candidate name), as a circuit breaker:
 * `healthy` until FAILURE_THRESHOLD failures in a row, then `cooling` (skipped by every call) for the operator's
 * cooldown; after it, `half_open`: the next call that reaches it is its probe (`probing`, skipped by the others
 * meanwhile); the probe's success makes it healthy again, its failure starts a cooldown twice as long (at most
 * MAX_COOLDOWN_FACTOR times the setting). In memory: a restart forgets health, and the first calls find out again.
 *
 * It also counts the attempts running at each place, for least-busy balancing (inference.ts).
 *
 * Only failures that say something about the place count: it could not be reached, it answered 5xx, 429, 401 or 403,
 * its stream broke, the deadline passed. A 400 is about the call, a cancellation about the customer.
 */
import type { CallFailure } from './upstream/call.js';

export const FAILURE_THRESHOLD = 3;
const MAX_COOLDOWN_FACTOR = 8;

export type HealthState = 'healthy' | 'cooling' | 'half_open' | 'probing';

interface Entry {
  failures: number;
  coolUntil: number | null;
  factor: number;
  probing: boolean;
  lastError: string | null;
  lastFailureAt: number | null;
}

export interface HealthView {
  state: HealthState;
  /** Attempts running there now (what least-busy balancing compares). */
  in_flight: number;
  consecutive_failures: number;
  cool_until: string | null;
  last_error: string | null;
  last_failure_at: string | null;
}

/** Whether a failure is the place's, not the call's or the customer's. */
export function countsAgainst(f: CallFailure): boolean {
  if (f.code === 'cancelled') return false;
  if (f.status === undefined) return true;
  return f.status >= 500 || [401, 403, 408, 429].includes(f.status);
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export class Health {
  readonly #entries = new Map<string, Entry>();
  readonly #running = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly cooldownMs: () => number,
  ) {}

  state(name: string): HealthState {
    const e = this.#entries.get(name);
    if (!e || e.coolUntil === null) return 'healthy';
    if (e.probing) return 'probing';
    return this.now() < e.coolUntil ? 'cooling' : 'half_open';
  }

  /** Whether a call skips this place now (cooling, or its probe is running). */
  skipped(name: string): boolean {
    const s = this.state(name);
    return s === 'cooling' || s === 'probing';
  }

  /** Before an attempt: false when the place may not be tried (another call took its probe a moment ago). */
  begin(name: string): boolean {
    const s = this.state(name);
    if (s === 'cooling' || s === 'probing') return false;
    if (s === 'half_open') this.#entries.get(name)!.probing = true;
    this.#running.set(name, this.running(name) + 1);
    return true;
  }

  /** Attempts begun and not yet ended there. */
  running(name: string): number {
    return this.#running.get(name) ?? 0;
  }

  #ended(name: string): void {
    const left = this.running(name) - 1;
    if (left > 0) this.#running.set(name, left);
    else this.#running.delete(name);
  }

  succeeded(name: string): void {
    this.#ended(name);
    this.#entries.delete(name);
  }

  failed(name: string, failure: CallFailure): void {
    this.#ended(name);
    const e = this.#entries.get(name) ?? { failures: 0, coolUntil: null, factor: 1, probing: false, lastError: null, lastFailureAt: null };
    const probe = e.probing;
    e.failures++;
    e.probing = false;
    e.lastError = `${failure.code}${failure.status !== undefined ? ` ${failure.status}` : ''}: ${failure.message}`;
    e.lastFailureAt = this.now();
    if (probe) e.factor = Math.min(e.factor * 2, MAX_COOLDOWN_FACTOR);
    if (probe || e.failures >= FAILURE_THRESHOLD) e.coolUntil = this.now() + this.cooldownMs() * e.factor;
    this.#entries.set(name, e);
  }

  /** After an attempt that ended without a verdict on the place (cancelled, a call error): a probe slot is freed. */
  released(name: string): void {
    this.#ended(name);
    const e = this.#entries.get(name);
    if (e) e.probing = false;
  }

  view(name: string): HealthView {
    const e = this.#entries.get(name);
    return {
      state: this.state(name),
      in_flight: this.running(name),
      consecutive_failures: e?.failures ?? 0,
      cool_until: iso(e?.coolUntil ?? null),
      last_error: e?.lastError ?? null,
      last_failure_at: iso(e?.lastFailureAt ?? null),
    };
  }
}
