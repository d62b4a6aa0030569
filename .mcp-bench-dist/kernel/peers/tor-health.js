/**
 * Per-onion circuit health: consecutive Tor failures toward one onion address put it in a cooldown during which
 * requests to it fail fast with `tor_cooldown` (no network), so an offline hidden service does not cost a full
 * Tor timeout on every message.
 *
 *   - Each failure increments the onion's counter; any success deletes it.
 *   - At `maxFailures` consecutive failures the onion cools down for `cooldownSeconds`.
 *   - When the cooldown is over the next request is let through as a probe (half-open): if it fails, the onion
 *     cools down again at once; if it succeeds, the counter is gone.
 *
 * Settings are read on every use through the getter, so changes apply immediately.
 */
import { TransportError } from './transport.js';
/** Entries kept at most; the oldest is dropped beyond this (one entry per failing onion). */
const MAX_TRACKED = 10_000;
export class TorHealth {
    #settings;
    #now;
    #state = new Map();
    constructor(settings, now = Date.now) {
        this.#settings = settings;
        this.#now = now;
    }
    /** Throws `tor_cooldown` while the onion is cooling down. */
    check(onion) {
        const state = this.#state.get(onion);
        if (!state || state.coolingUntil === null)
            return;
        const now = this.#now();
        if (now < state.coolingUntil) {
            const left = Math.ceil((state.coolingUntil - now) / 1000);
            throw new TransportError('tor_cooldown', `${onion}: ${state.failures} consecutive Tor failures, cooling down for ${left} s more`);
        }
    }
    recordSuccess(onion) {
        this.#state.delete(onion);
    }
    recordFailure(onion) {
        const { maxFailures, cooldownSeconds } = this.#settings();
        const now = this.#now();
        const state = this.#state.get(onion) ?? { failures: 0, coolingUntil: null };
        this.#state.delete(onion); // re-insert: the Map's order is then least recently failed first
        const probeFailed = state.coolingUntil !== null && now >= state.coolingUntil;
        state.failures += 1;
        if (probeFailed || state.failures >= Math.max(1, maxFailures))
            state.coolingUntil = now + cooldownSeconds * 1000;
        this.#state.set(onion, state);
        if (this.#state.size > MAX_TRACKED)
            this.#state.delete(this.#state.keys().next().value);
    }
    /** A copy of the onion's state (failures 0 and no cooldown when unknown). */
    state(onion) {
        const state = this.#state.get(onion);
        return state ? { ...state } : { failures: 0, coolingUntil: null };
    }
    /** Onions currently cooling down (for status pages). */
    cooling() {
        const now = this.#now();
        return [...this.#state].filter(([, s]) => s.coolingUntil !== null && now < s.coolingUntil).map(([onion]) => onion);
    }
    reset(onion) {
        if (onion === undefined)
            this.#state.clear();
        else
            this.#state.delete(onion);
    }
}
//# sourceMappingURL=tor-health.js.map