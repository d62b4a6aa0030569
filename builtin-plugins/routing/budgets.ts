/**
 * The hop budget of this node's own searches and probes toward one destination. Each draws its own
 * (`hop_budget_randomized`), but none draws less than a probe that found routes there a moment ago: what
 * max-sendable said a send can reach, a send right after it reaches. Drawn afresh, the send's budget fell short of
 * the probe's one time in three on a 4-leg route, and the send failed `no_route` where the probe had just found one.
 */
import { normalizeAddress } from '../../sdk/address.js';
import { originBudget } from './protocol.js';

/** How long a probe's reach is remembered: the time to read max-sendable's answer and send. */
const REMEMBER_MS = 10 * 60_000;
/** Destinations remembered at most (the oldest go first). */
const MAX_REMEMBERED = 1000;

export class OriginBudgets {
  readonly #reached = new Map<string, { budget: number; until: number }>();

  constructor(
    private readonly setting: (key: string) => unknown,
    private readonly now: () => number,
  ) {}

  /** A payment's or a probe's budget toward `destination`: a fresh draw, raised to a recent probe's that found routes. */
  draw(destination: string, currency: string): number {
    const fresh = originBudget(this.setting, false);
    const key = keyOf(destination, currency);
    const seen = this.#reached.get(key);
    if (seen && seen.until <= this.now()) this.#reached.delete(key);
    return seen && seen.until > this.now() ? Math.max(fresh, seen.budget) : fresh;
  }

  /** A probe within `budget` legs found routes to `destination`. */
  reached(destination: string, currency: string, budget: number): void {
    const key = keyOf(destination, currency);
    const seen = this.#reached.get(key);
    const until = this.now() + REMEMBER_MS;
    this.#reached.delete(key);
    this.#reached.set(key, { budget: seen && seen.until > this.now() ? Math.max(seen.budget, budget) : budget, until });
    if (this.#reached.size > MAX_REMEMBERED) this.#reached.delete(this.#reached.keys().next().value!);
  }
}

const keyOf = (destination: string, currency: string): string => `${normalizeAddress(destination) ?? destination}\n${currency.toLowerCase()}`;
