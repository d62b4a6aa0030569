/**
 * The hop budgets of the searches and probes this node originates (a clearing's is fixed: `cycle`). Toward a
 * destination each draws its own (`hop_budget_randomized`), but none draws less than a probe that found routes there a
 * moment ago: what max-sendable said a send can reach, a send right after it reaches. Drawn afresh, the send's budget
 * fell short of the probe's one time in three on a 4-leg route, and the send failed `no_route` where the probe had
 * just found one.
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
    const seen = this.#live(keyOf(destination, currency));
    return seen ? Math.max(fresh, seen) : fresh;
  }

  /** The widest budget of a payment (maxP2pLevel), which no draw exceeds. */
  widest(): number {
    return originBudget(this.setting, false, false);
  }

  /** A debt-cycle clearing's budget: the longest cycle it may clear, the same for every clearing. */
  cycle(): number {
    return originBudget(this.setting, true);
  }

  /** A probe within `budget` legs found routes to `destination`. */
  reached(destination: string, currency: string, budget: number): void {
    const key = keyOf(destination, currency);
    const seen = this.#live(key);
    // Inserted anew, so that the map's first entry is the one remembered longest ago.
    this.#reached.delete(key);
    this.#reached.set(key, { budget: Math.max(seen ?? 0, budget), until: this.now() + REMEMBER_MS });
    if (this.#reached.size > MAX_REMEMBERED) this.#reached.delete(this.#reached.keys().next().value!);
  }

  /** The budget remembered for `key` while it is fresh; an expired one is forgotten. */
  #live(key: string): number | null {
    const seen = this.#reached.get(key);
    if (!seen) return null;
    if (seen.until > this.now()) return seen.budget;
    this.#reached.delete(key);
    return null;
  }
}

const keyOf = (destination: string, currency: string): string => `${normalizeAddress(destination) ?? destination}\n${currency.toLowerCase()}`;
