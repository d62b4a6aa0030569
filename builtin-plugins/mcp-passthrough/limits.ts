/**
 * The operator's limits on a key's calls, whichever door they come through (docs/mcp-passthrough.md, "Limits"):
 * calls started per minute, tokens used per minute and calls at once. Each is the key's own value (key-create,
 * key-update) or else the operator's default (`configure.set`); 0 lifts it. A call over a limit is refused before
 * anything is reserved, with `rate_limit_exceeded` and the whole seconds after which it would pass (`retry_after`),
 * which the doors turn into 429 and `Retry-After`.
 *
 * Counting is in memory over a sliding minute, like the host's own route limits: a restart forgets the last minute.
 * Tokens are those the call was billed for, counted when it ends; a key is refused once the minute's tokens reach its
 * limit (a call cannot know its own before it runs).
 */
import { dropExpired, formatMinor, parseDecimal } from '../../sdk/index.js';
import { ApiError } from '../../sdk/index.js';
import { ToolFailure } from './billing.js';
import { MAX_SESSIONS_PER_KEY, type Settings } from './config.js';
import type { BudgetPeriod, KeyLimits, KeyRow } from './store.js';

const MINUTE_MS = 60_000;

export interface EffectiveLimits {
  requestsPerMinute: number;
  tokensPerMinute: number;
  parallelCalls: number;
  sessions: number;
}

export function effectiveLimits(key: KeyRow, settings: Settings): EffectiveLimits {
  const own = key.limits;
  const d = settings.keyLimits;
  return {
    requestsPerMinute: own.requestsPerMinute ?? d.requestsPerMinute,
    tokensPerMinute: own.tokensPerMinute ?? d.tokensPerMinute,
    parallelCalls: own.parallelCalls ?? d.parallelCalls,
    sessions: own.sessions ?? d.sessions,
  };
}

/** A call admitted by the gate: `done` once it ended, with the tokens it was billed for. */
export interface Pass {
  done(tokens: number): void;
}

function refused(limit: string, message: string, waitMs: number): ToolFailure {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new ToolFailure('rate_limit_exceeded', `${message}; try again in ${retryAfter} s`, { limit, retry_after: retryAfter });
}

export class CallGate {
  readonly #starts = new Map<number, number[]>();
  readonly #tokens = new Map<number, { at: number; n: number }[]>();
  readonly #running = new Map<number, number>();

  constructor(private readonly now: () => number) {}

  /**
   * The refusal a call of the key would meet now, or null; nothing is counted. A door that answers with an HTTP status
   * before the call runs (the MCP door's 429) asks this first.
   */
  check(keyId: number, limits: EffectiveLimits): ToolFailure | null {
    const now = this.now();
    const since = now - MINUTE_MS;
    const running = this.#running.get(keyId) ?? 0;
    if (limits.parallelCalls > 0 && running >= limits.parallelCalls) {
      return refused('parallel_calls', `this key already runs ${running} call(s), its limit at once`, 1000);
    }
    const starts = this.#starts.get(keyId) ?? [];
    dropExpired(starts, (t) => t, since);
    this.#starts.set(keyId, starts);
    if (limits.requestsPerMinute > 0 && starts.length >= limits.requestsPerMinute) {
      return refused('requests_per_minute', `this key made ${starts.length} calls in the last minute, its limit`, starts[0]! + MINUTE_MS - now);
    }
    const tokens = this.#tokens.get(keyId) ?? [];
    dropExpired(tokens, (t) => t.at, since);
    if (!tokens.length) this.#tokens.delete(keyId);
    if (limits.tokensPerMinute > 0) {
      let used = tokens.reduce((sum, t) => sum + t.n, 0);
      if (used >= limits.tokensPerMinute) {
        // The wait: until enough of the minute's tokens have left the window to go under the limit.
        let i = 0;
        while (used >= limits.tokensPerMinute) used -= tokens[i++]!.n;
        return refused('tokens_per_minute', `this key used ${tokens.reduce((s, t) => s + t.n, 0)} tokens in the last minute, its limit is ${limits.tokensPerMinute}`, tokens[i - 1]!.at + MINUTE_MS - now);
      }
    }
    return null;
  }

  /** Admits a call of the key or throws `rate_limit_exceeded`; the pass must be ended exactly once. */
  admit(keyId: number, limits: EffectiveLimits): Pass {
    const refusal = this.check(keyId, limits);
    if (refusal) throw refusal;
    const now = this.now();
    const starts = this.#starts.get(keyId)!;
    const running = this.#running.get(keyId) ?? 0;
    starts.push(now);
    this.#starts.set(keyId, starts);
    this.#running.set(keyId, running + 1);
    let ended = false;
    return {
      done: (n) => {
        if (ended) return;
        ended = true;
        const left = (this.#running.get(keyId) ?? 1) - 1;
        if (left > 0) this.#running.set(keyId, left);
        else this.#running.delete(keyId);
        if (n <= 0) return;
        const tokens = this.#tokens.get(keyId);
        if (tokens) tokens.push({ at: this.now(), n });
        else this.#tokens.set(keyId, [{ at: this.now(), n }]);
      },
    };
  }

  /** Calls of the key running now. */
  running(keyId: number): number {
    return this.#running.get(keyId) ?? 0;
  }
}

const LIMIT_FIELDS = { requests_per_minute: 1_000_000, tokens_per_minute: 1_000_000_000, parallel_calls: 10_000, sessions: MAX_SESSIONS_PER_KEY } as const;
const PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];
const MAX_ALLOWED_MODELS = 100;

function invalid(field: string, message: string): ApiError {
  return new ApiError('validation_error', 400, message, { field });
}

/**
 * The limits of a key-create or key-update body applied over `current`: an absent field keeps its value, null returns
 * it to the operator's default (no budget, every model).
 */
export function parseKeyLimits(body: Record<string, unknown>, current: KeyLimits): KeyLimits {
  const out: KeyLimits = { ...current };
  const int = (field: keyof typeof LIMIT_FIELDS): number | null | undefined => {
    const v = body[field];
    if (v === undefined) return undefined;
    if (v === null) return null;
    const max = LIMIT_FIELDS[field];
    const min = field === 'sessions' ? 1 : 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalid(field, `${field} must be an integer from ${min} to ${max}, or null for the default`);
    return v;
  };
  const set = <K extends keyof KeyLimits>(k: K, v: KeyLimits[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  set('requestsPerMinute', int('requests_per_minute'));
  set('tokensPerMinute', int('tokens_per_minute'));
  set('parallelCalls', int('parallel_calls'));
  set('sessions', int('sessions'));
  if (body.budget !== undefined) {
    const b = body.budget;
    if (b === null) out.budget = null;
    else {
      if (typeof b !== 'object' || Array.isArray(b)) throw invalid('budget', 'budget must be {amount, period} or null');
      const { amount, period } = b as Record<string, unknown>;
      const parsed = typeof amount === 'string' ? parseDecimal(amount.trim()) : null;
      if (!parsed?.ok) throw invalid('budget.amount', 'budget.amount must be a decimal text of at least 0 with at most 8 decimals');
      if (typeof period !== 'string' || !PERIODS.includes(period as BudgetPeriod)) throw invalid('budget.period', 'budget.period must be day, week or month');
      out.budget = { amount: parsed.value, period: period as BudgetPeriod };
    }
  }
  if (body.allowed_models !== undefined) {
    const m = body.allowed_models;
    if (m === null) out.allowedModels = null;
    else {
      if (!Array.isArray(m) || m.length > MAX_ALLOWED_MODELS || m.some((x) => typeof x !== 'string' || !x.trim() || x.length > 200)) {
        throw invalid('allowed_models', `allowed_models must be an array of up to ${MAX_ALLOWED_MODELS} model names, or null for every model`);
      }
      out.allowedModels = [...new Set((m as string[]).map((x) => x.trim()))];
    }
  }
  return out;
}

/** The key's limits as the operator routes show them (own values; null: the default). */
export function limitsView(key: KeyRow, settings: Settings): Record<string, unknown> {
  const l = key.limits;
  const e = effectiveLimits(key, settings);
  return {
    requests_per_minute: l.requestsPerMinute,
    tokens_per_minute: l.tokensPerMinute,
    parallel_calls: l.parallelCalls,
    sessions: l.sessions,
    budget: l.budget ? { amount: formatMinor(l.budget.amount), period: l.budget.period } : null,
    allowed_models: l.allowedModels,
    effective: { requests_per_minute: e.requestsPerMinute, tokens_per_minute: e.tokensPerMinute, parallel_calls: e.parallelCalls, sessions: e.sessions },
  };
}
