import type { Logger } from '../../sdk/index.js';
import { ApiError } from '../errors.js';
import { isLoopback } from '../net/proxies.js';

export interface FailureLimits {
  /** Failed authentications one address may make in a window; the one that reaches this number blocks it. */
  maxAttempts: number;
  windowSeconds: number;
  blockSeconds: number;
}

interface Tracked {
  /** When the address's current counting window opened (its first failure since the last window or block). */
  since: number;
  failures: number;
  blockedUntil: number;
  /** Failures not written to the log since its last line about this address. */
  unlogged: number;
}

/** Addresses tracked at most: a flood from many addresses costs bounded memory (the oldest entries go first). */
const MAX_TRACKED = 100_000;
/** Log lines about failures per minute, across all addresses, so that many addresses cannot flood the log either. */
const LOG_LINES_PER_MINUTE = 60;

/**
 * Blocks a client address after repeated failed authentications (Document 2's `rateLimitMaxAttempts`,
 * `rateLimitWindowSeconds`, `rateLimitBlockSeconds`, read at every failure so a change applies at once): the
 * failure that makes `maxAttempts` within the window blocks the address for `blockSeconds`, during which every
 * REST request from it, valid or not, gets 429 `rate_limit_exceeded` with Retry-After. Other addresses are not
 * affected, and a blocked request is refused before it is authenticated, so it does not extend the block.
 *
 * Loopback is never blocked (as fail2ban ignores it by default): node-cli runs there, and an operator must not be
 * locked out of their own node. A reverse proxy on the same host has to be listed in `trustedProxies`, or its
 * clients all look like loopback.
 *
 * The log gets at most one line per address per window (its first failure), one when the address is blocked, and
 * in all at most LOG_LINES_PER_MINUTE lines a minute; each line counts what went unlogged before it.
 */
export class AuthFailureLimiter {
  readonly #tracked = new Map<string, Tracked>();
  #nextSweep = 0;
  #logMinute = 0;
  #logLines = 0;
  #linesDropped = 0;

  constructor(
    private readonly limits: () => FailureLimits,
    private readonly log: Logger,
  ) {}

  /** Addresses tracked now. */
  get size(): number {
    return this.#tracked.size;
  }

  /** Throws 429 while the address is blocked. */
  refuseBlocked(ip: string, now: number): void {
    const blockedUntil = this.#tracked.get(ip)?.blockedUntil ?? 0;
    if (blockedUntil <= now) return;
    const wait = Math.max(1, Math.ceil((blockedUntil - now) / 1000));
    throw new ApiError('rate_limit_exceeded', 429, `Too many failed authentications from this address. Please try again in ${wait} seconds.`, {
      retry_after: wait,
    });
  }

  /** Counts a failed authentication of `ip` (`code` is the 401's); blocks the address when it reaches the limit. */
  failed(ip: string, code: string, now: number): void {
    const { maxAttempts, windowSeconds, blockSeconds } = this.limits();
    const windowMs = windowSeconds * 1000;
    if (now >= this.#nextSweep) this.#sweep(now, windowMs);
    let t = this.#tracked.get(ip);
    if (!t) {
      if (this.#tracked.size >= MAX_TRACKED) this.#tracked.delete(this.#tracked.keys().next().value!);
      t = { since: now, failures: 0, blockedUntil: 0, unlogged: 0 };
      this.#tracked.set(ip, t);
    } else if (t.since + windowMs <= now) {
      t.since = now;
      t.failures = 0;
    }
    t.failures++;
    if (t.failures >= maxAttempts && !isLoopback(ip)) {
      t.blockedUntil = now + blockSeconds * 1000;
      this.#write(t, 'client address blocked after repeated failed authentications', {
        ip,
        failures: t.failures,
        window_seconds: windowSeconds,
        block_seconds: blockSeconds,
      }, now);
      t.since = now;
      t.failures = 0;
    } else if (t.failures === 1) {
      this.#write(t, 'authentication failed', { ip, code }, now);
    } else {
      t.unlogged++;
    }
  }

  #write(t: Tracked, message: string, fields: Record<string, unknown>, now: number): void {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.#logMinute) {
      this.#logMinute = minute;
      this.#logLines = 0;
    }
    if (this.#logLines >= LOG_LINES_PER_MINUTE) {
      this.#linesDropped++;
      t.unlogged++;
      return;
    }
    this.#logLines++;
    this.log.warn(message, {
      ...fields,
      ...(t.unlogged ? { unlogged_failures: t.unlogged } : {}),
      ...(this.#linesDropped ? { log_lines_dropped: this.#linesDropped } : {}),
    });
    t.unlogged = 0;
    this.#linesDropped = 0;
  }

  /** Forgets addresses whose window closed and whose block ended: only recent offenders are kept. */
  #sweep(now: number, windowMs: number): void {
    for (const [ip, t] of this.#tracked) {
      if (t.blockedUntil <= now && t.since + windowMs <= now) this.#tracked.delete(ip);
    }
    this.#nextSweep = now + 60_000;
  }
}
