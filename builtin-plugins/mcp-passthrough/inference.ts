/**
 * Routing and running a billed chat completion.
 *
 * Candidates: every enabled row of the requested model (or of the active model when the call names none) on any
 * provider, the active provider first, then the others in the order they were added. A candidate is rejected when
 * its row is disabled, its preset is unknown, or its preset needs a token that is missing or no longer opens. Then
 * the sellers learned from contacts that offer the model (federation/sellers.ts), with their own rejections (remote
 * routing off, beyond the hops, above a price ceiling...). The call's `routing` ranks them: `local_first` (the
 * default: providers, then sellers cheapest first), `cheapest_advertised` (all by estimated charge), `manual` (the
 * operator's order: providers, then sellers nearest first); it can only add rejections, never lift one.
 *
 * A call: admission (keys.ts), then the reservation of the most it can cost on any candidate (billing.ts), then the
 * candidates in order until one answers; a candidate that fails before producing any output hands over to the next
 * (failover, unless the operator switched it off), one that fails after producing output ends the call. One
 * deadline (125 s) covers the whole call. Then the charge is settled from what the upstream reported, or estimated
 * and flagged when it reported nothing; a call that produced no output is not charged.
 */
import { randomUUID } from 'node:crypto';
import { formatMinor, type Minor } from '../../sdk/index.js';
import { Billing, ToolFailure, type Funds } from './billing.js';
import type { Budgets } from './budget.js';
import { MAX_OUTPUT_CAP, sameCurrency, type OperatorConfig, type Settings } from './config.js';
import { offerRates } from './federation/offers.js';
import type { ResoldOutcome } from './federation/resale.js';
import type { OfferRow } from './federation/store.js';
import { countsAgainst, type Health } from './health.js';
import type { Keys } from './keys.js';
import {
  charge,
  costRates,
  customerRates,
  estimateInputTokens,
  estimateTokens,
  inputTokenBound,
  ratesView,
  responseBytesBound,
  type Rates,
} from './pricing.js';
import type { KeyRow, ModelRow, ProviderRow, UsageRow } from './store.js';
import { callUpstream, emptyOutcome, type CallOptions, type CallOutcome, type UpstreamAgents } from './upstream/call.js';
import type { ChatMessage, Generation, GenerationOption, ProviderPreset, ToolCall, ToolCallDelta } from './upstream/protocol.js';
import type { PresetRegistry } from './upstream/presets.js';
import type { InferenceMetrics } from './metrics.js';

/** Document 2: the plugin pool request timeout. */
export const REQUEST_TIMEOUT_MS = 125_000;
export const DEFAULT_ESTIMATED_INPUT = 500;

interface CandidateBase {
  /** What the customer pays per unit on this candidate. */
  rates: Rates;
  /** The most output this candidate allows (model allowance, else the operator's, capped at 32768). */
  allowance: number;
  rejections: string[];
  /** Resale hops between this node and where the call runs (0: a provider of this node). */
  hops: number;
}

export interface ProviderCandidate extends CandidateBase {
  kind: 'provider';
  provider: ProviderRow;
  preset: ProviderPreset | null;
  model: ModelRow;
}

export interface SellerCandidate extends CandidateBase {
  kind: 'seller';
  offer: OfferRow;
}

export type Candidate = ProviderCandidate | SellerCandidate;

/** The provider id, or `seller:<first 16 hex of its key hash>`. */
export const candidateName = (c: Candidate): string => (c.kind === 'provider' ? c.provider.id : `seller:${c.offer.sellerHash.slice(0, 16)}`);
const modelOf = (c: Candidate): string => (c.kind === 'provider' ? c.model.id : c.offer.model);
/** What health is kept for: a model where it runs (one model of a provider may be down while the others answer). */
const deployment = (c: Candidate): string => `${candidateName(c)}/${modelOf(c)}`;

/** First pause before a retry; each further one doubles. */
const RETRY_BACKOFF_MS = 100;

/** Waits `ms`, or less when a signal aborts. */
function pause(ms: number, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of signals) s.addEventListener('abort', done, { once: true });
  });
}

/** A failure before output worth another attempt on the same place: it was busy or briefly away, not refusing. */
const retryable = (o: CallOutcome): boolean =>
  o.failure !== null && o.text.length === 0 && o.deltas === 0 && o.failure.code !== 'upstream_timeout' && countsAgainst(o.failure) && o.failure.status !== 401 && o.failure.status !== 403;

/** Sellers of a model (federation/sellers.ts): their candidates, and how a call reaches and pays one. */
export interface SellerSource {
  /** Candidates for a model (every model: null). */
  candidates(model: string | null, settings: Settings): SellerCandidate[];
  call(c: SellerCandidate, call: { messages: readonly ChatMessage[]; maxOutputTokens: number; generation: Generation }, options: CallOptions): Promise<ResoldOutcome>;
  /**
   * Inside the transaction that settles the call here: records what this node owes the seller for it, so that a stop
   * before `pay` leaves the debt to be paid later (from the seller's own record of the call), not forgotten.
   */
  owe(c: SellerCandidate, outcome: ResoldOutcome): void;
  /** After the call is settled here: pay the seller what it charged (what is owed and unpaid is paid later). */
  pay(c: SellerCandidate, outcome: ResoldOutcome): void;
  /** What resold calls cost this node today (for the daily ceiling). */
  spentToday(): Minor;
}

export interface Selection {
  model: string | null;
  candidates: Candidate[];
  /** Why no candidate exists at all (no model named and none active, or no row of that name). */
  problem: { code: string; message: string } | null;
}

export interface CompletionArgs {
  messages: ChatMessage[];
  model?: string | undefined;
  maxOutputTokens?: number | undefined;
  routing?: Routing | undefined;
  /** Tools, sampling and format options, passed to upstreams that take them. */
  generation?: Generation | undefined;
}

/** A call's `routing` argument, parsed (customer.ts). */
export interface Routing {
  policy?: 'local_first' | 'cheapest_advertised' | 'manual' | undefined;
  remoteAllowed?: boolean | undefined;
  maxHops?: number | undefined;
  maxPrice?: Minor | undefined;
}

export interface CompletionIo {
  tool: string;
  callId?: string;
  cancel: AbortSignal;
  /** Present when the caller streams deltas (a progress token): the upstream is then called with `stream: true`. */
  onDelta?: (text: string) => void;
  /** With `onDelta`: pieces of tool calls as they come. */
  onToolCall?: (delta: ToolCallDelta) => void;
}

export interface CompletionResult {
  output: string;
  toolCalls: ToolCall[];
  model: string;
  provider: string;
  finishReason: string | null;
  usage: UsageRow;
  key: KeyRow;
  failovers: number;
  maxOutputTokens: number;
  route: { kind: 'local' | 'seller'; hops: number; seller: string | null };
  /** Set when the call ended in a failure after it had produced output (billed as produced). */
  failure: { code: string; message: string } | null;
}

const UNSUPPORTED = 'unsupported_';

/** Whether the key's allow-list (none: every model) lets it call `model`. */
export const modelAllowed = (key: KeyRow, model: string | null): boolean => !key.limits.allowedModels || (model !== null && key.limits.allowedModels.includes(model));

/** A provider whose wire format cannot carry an option the call asks for is no route for it (sellers check their own). */
function unsupportedBy(c: Candidate, generation: Generation): Candidate {
  if (c.kind !== 'provider' || !c.preset?.protocol.unsupported) return c;
  const missing = (Object.keys(generation) as GenerationOption[]).filter((k) => c.preset!.protocol.unsupported!.includes(k));
  return missing.length ? { ...c, rejections: [...c.rejections, ...missing.map((k) => `${UNSUPPORTED}${k}`)] } : c;
}

/** The outcome of a place that could not be tried: a failure before output, so the call goes on to the next. */
function skippedOutcome(): CallOutcome {
  return { ...emptyOutcome(), failure: { code: 'upstream_unreachable', message: 'the provider is cooling down after repeated failures' } };
}

export class Inference {
  /**
   * What resold calls running now may still cost this node (each at its worst case): the daily ceiling counts it beside
   * what finished calls cost, so calls started together cannot pass the ceiling together.
   */
  #sellerInFlight: Minor = 0n;

  constructor(
    private readonly config: OperatorConfig,
    private readonly presets: PresetRegistry,
    private readonly keys: Keys,
    private readonly billing: Billing,
    private readonly agents: UpstreamAgents,
    private readonly timeoutMs: number,
    private readonly now: () => number,
    private readonly metrics: InferenceMetrics,
    private readonly health: Health,
    private readonly budgets: Budgets,
    private readonly sellers: SellerSource | null = null,
  ) {}

  select(requested: string | undefined): Selection {
    const active = this.config.active();
    const model = requested ?? active.model;
    if (!model) return { model: null, candidates: [], problem: { code: 'no_active_model', message: 'no model was named and none is active' } };
    const settings = this.config.settings();
    const providers = this.config.providers();
    const order = [...providers].sort((a, b) => (a.id === active.provider ? -1 : b.id === active.provider ? 1 : a.position - b.position));
    const rows = this.config.models();
    const candidates: Candidate[] = [];
    for (const provider of order) {
      const row = rows.find((m) => m.providerId === provider.id && m.id === model);
      if (!row) continue;
      const preset = this.presets.get(provider.preset);
      const rejections: string[] = [];
      if (!row.enabled) rejections.push('model_disabled');
      if (!preset) rejections.push('unknown_preset');
      else if (preset.requiresToken && (!provider.tokenEnc || this.config.token(provider) === null)) rejections.push(provider.tokenEnc ? 'token_unreadable' : 'missing_token');
      candidates.push({
        kind: 'provider',
        provider,
        preset,
        model: row,
        rates: customerRates(row),
        allowance: Math.min(row.maxOutputTokens ?? settings.maxOutputTokens, MAX_OUTPUT_CAP),
        rejections,
        hops: 0,
      });
    }
    if (this.sellers) candidates.push(...this.sellers.candidates(model, settings));
    if (!candidates.length) return { model, candidates, problem: { code: 'model_not_found', message: `no provider offers a model "${model}"` } };
    return { model, candidates, problem: null };
  }

  /**
   * The call's routing applied to a selection: every limit it lowers adds rejections (a request never lifts one),
   * and its policy orders the candidates. `estimate` is what a candidate's call is estimated to cost at `rates`: the
   * customer's rates give its price (ranking, `max_price`), a seller's own rates what this node would owe it (the
   * operator's ceilings).
   */
  #route(selection: Selection, routing: Routing, estimate: (rates: Rates, c: Candidate) => Minor): Candidate[] {
    const settings = this.config.settings();
    const spent = this.sellers && settings.maxSpendPerDay !== null ? this.sellers.spentToday() + this.#sellerInFlight : 0n;
    const ranked = selection.candidates.map((c, order) => {
      const rejections = [...c.rejections];
      if (this.health.skipped(deployment(c))) rejections.push('cooling_down');
      const price = estimate(c.rates, c);
      if (routing.maxPrice !== undefined && price > routing.maxPrice) rejections.push('above_max_price');
      if (c.kind === 'seller') {
        const cost = estimate(offerRates(c.offer), c);
        if (routing.remoteAllowed === false) rejections.push('remote_not_allowed');
        if (routing.maxHops !== undefined && c.hops > routing.maxHops) rejections.push('beyond_max_hops');
        if (settings.maxPricePerCall !== null && cost > settings.maxPricePerCall) rejections.push('above_operator_ceiling');
        if (settings.maxSpendPerDay !== null && spent + cost > settings.maxSpendPerDay) rejections.push('daily_ceiling_reached');
      }
      return { c: { ...c, rejections } as Candidate, price, order };
    });
    const policy = routing.policy ?? 'local_first';
    // Providers of the model share its calls: the one with the fewest attempts running first (ties: the operator's order).
    const leastBusy = settings.balancing === 'least_busy';
    const local = (x: { c: Candidate }): number => (x.c.kind === 'provider' ? 0 : 1);
    ranked.sort((a, b) => {
      if (policy === 'cheapest_advertised') return a.price === b.price ? local(a) - local(b) || a.order - b.order : a.price < b.price ? -1 : 1;
      if (local(a) !== local(b)) return local(a) - local(b);
      if (a.c.kind === 'provider') return (leastBusy ? this.health.running(deployment(a.c)) - this.health.running(deployment(b.c)) : 0) || a.order - b.order;
      if (policy === 'manual') return a.c.hops - b.c.hops || a.order - b.order;
      return a.price === b.price ? a.c.hops - b.c.hops || a.order - b.order : a.price < b.price ? -1 : 1;
    });
    return ranked.map((r) => r.c);
  }

  /** The dry run of route.explain and route.status: no prompt, no credential, no payment. */
  explain(key: KeyRow, args: { model?: string | undefined; estimatedInputTokens?: number | undefined; maxOutputTokens?: number | undefined }) {
    const selection = this.select(args.model);
    const admission = this.keys.admission(key);
    const funds = this.billing.funds(key);
    const input = args.estimatedInputTokens ?? DEFAULT_ESTIMATED_INPUT;
    const currency = this.config.settings().currency;
    const currencyProblem = sameCurrency(key.currency, currency) ? null : 'currency_mismatch';
    const outputOf = (c: Candidate): number => Math.min(args.maxOutputTokens ?? c.allowance, c.allowance);
    const estimate = (rates: Rates, c: Candidate): Minor => charge(rates, { inputTokens: input, outputTokens: outputOf(c), transferBytes: 0 });
    const candidates = this.#route(selection, {}, estimate).map((c) => {
      const output = outputOf(c);
      const estimated = estimate(c.rates, c);
      const rejections = [...c.rejections];
      if (admission) rejections.push('admission_refused');
      if (!modelAllowed(key, selection.model)) rejections.push('model_not_allowed');
      if (currencyProblem) rejections.push(currencyProblem);
      if (!c.rejections.length && estimated > funds.available) rejections.push('insufficient_funds');
      return {
        kind: c.kind,
        provider: candidateName(c),
        preset: c.kind === 'provider' ? c.provider.preset : null,
        model: modelOf(c),
        hops: c.hops,
        seller: c.kind === 'seller' ? { pubkey_hash: c.offer.sellerHash, origin: c.offer.origin, tor_address: c.offer.torAddress } : null,
        ...ratesView(c.rates),
        max_output_tokens: output,
        estimated_charge: formatMinor(estimated),
        ready: rejections.length === 0,
        rejections,
        health: this.health.view(deployment(c)),
      };
    });
    const best = candidates.find((c) => c.ready) ?? null;
    return {
      model: selection.model,
      currency,
      estimated_input_tokens: input,
      admission: admission ? { ok: false, reason: admission } : { ok: true, reason: null },
      available: formatMinor(funds.available),
      problem: selection.problem,
      candidates,
      best,
    };
  }

  async complete(key: KeyRow, args: CompletionArgs, io: CompletionIo): Promise<CompletionResult> {
    const admission = this.keys.admission(key);
    if (admission) throw new ToolFailure('admission_refused', admission, { retry: 'diagnostics and balance.check still work with this key' });
    const settings = this.config.settings();
    if (!sameCurrency(key.currency, settings.currency)) {
      throw new ToolFailure('currency_mismatch', `this key holds ${key.currency}; the node now settles in ${settings.currency}`);
    }
    const selection = this.select(args.model);
    if (selection.problem) throw new ToolFailure(selection.problem.code, selection.problem.message);
    if (!modelAllowed(key, selection.model)) {
      throw new ToolFailure('model_not_allowed', `this key may not call ${selection.model}`, { allowed_models: key.limits.allowedModels });
    }
    const generation = args.generation ?? {};
    const estimatedInput = estimateInputTokens(args.messages, generation);
    const routed = this.#route(selection, args.routing ?? {}, (rates, c) =>
      charge(rates, { inputTokens: estimatedInput, outputTokens: Math.min(args.maxOutputTokens ?? c.allowance, c.allowance), transferBytes: 0 }),
    ).map((c) => unsupportedBy(c, generation));
    const ready = routed.filter((c) => c.rejections.length === 0);
    const unsupported = routed.map((c) => c.rejections.find((r) => r.startsWith(UNSUPPORTED))).filter((r) => r !== undefined);
    if (!ready.length && unsupported.length === routed.length) {
      const field = unsupported[0]!.slice(UNSUPPORTED.length);
      throw new ToolFailure('invalid_arguments', `${field} is not supported by any provider of ${selection.model}`, { field });
    }
    if (!ready.length) {
      throw new ToolFailure('no_route', `no provider can serve ${selection.model} now`, {
        rejections: routed.map((c) => ({ provider: candidateName(c), reasons: c.rejections })),
      });
    }
    const tries = settings.failover ? ready : ready.slice(0, 1);
    const wanted = args.maxOutputTokens ?? ready[0]!.allowance;
    const outputOf = (c: Candidate): number => Math.min(wanted, c.allowance);

    // The reservation covers the worst case over every candidate this call may reach.
    const inputBound = inputTokenBound(args.messages, generation);
    const requestBytes = Buffer.byteLength(JSON.stringify([args.messages, generation]), 'utf8') + 4096;
    const worst = tries.reduce<Minor>((m, c) => {
      const out = outputOf(c);
      const most = charge(c.rates, { inputTokens: inputBound, outputTokens: out, transferBytes: requestBytes + responseBytesBound(out) });
      return most > m ? most : m;
    }, 0n);
    const reservation = this.billing.reserve(key, worst, this.budgets.left(key));
    // Until the call's cost is recorded (at settle), the seller part of its worst case counts toward the daily ceiling.
    const sellerWorst = tries.reduce<Minor>((m, c) => {
      if (c.kind !== 'seller') return m;
      const out = outputOf(c);
      const most = charge(offerRates(c.offer), { inputTokens: inputBound, outputTokens: out, transferBytes: requestBytes + responseBytesBound(out) });
      return most > m ? most : m;
    }, 0n);
    this.#sellerInFlight += sellerWorst;
    let held = true;
    const releaseSellerHold = (): void => {
      if (held) this.#sellerInFlight -= sellerWorst;
      held = false;
    };

    const startedAt = this.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    let outcome: CallOutcome | ResoldOutcome | null = null;
    let used: Candidate = tries[0]!;
    let failovers = 0;
    try {
      for (const [i, c] of tries.entries()) {
        used = c;
        outcome = await this.#attempts(c, { messages: args.messages, maxOutputTokens: outputOf(c), generation }, io, deadline.signal, settings.retries);
        const produced = outcome.text.length > 0 || outcome.deltas > 0;
        const next = outcome.failure && !produced && outcome.failure.code !== 'cancelled' && outcome.failure.code !== 'upstream_timeout';
        if (!next || i === tries.length - 1) break;
        failovers++;
      }
    } catch (err) {
      this.billing.release(reservation);
      releaseSellerHold();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const o = outcome!;
    const resold = used.kind === 'seller' ? (o as ResoldOutcome) : null;
    const produced = o.text.length > 0 || o.deltas > 0;
    const estimated = o.inputTokens === null || o.outputTokens === null || resold?.sellerEstimated === true;
    const metered = {
      inputTokens: o.inputTokens ?? estimateInputTokens(args.messages, generation),
      outputTokens: o.outputTokens ?? Math.max(o.deltas, estimateTokens(o.text) + (o.toolCalls.length ? estimateTokens(JSON.stringify(o.toolCalls)) : 0)),
      transferBytes: o.requestBytes + o.responseBytes,
    };
    const billable = !o.failure || produced;
    const status = !o.failure ? 'ok' : o.failure.code === 'cancelled' ? 'cancelled' : 'error';
    const billed = billable ? charge(used.rates, metered) : 0n;
    let settled: ReturnType<Billing['settle']>;
    try {
      settled = this.billing.settle(reservation, {
        keyId: key.id,
        callId: io.callId ?? randomUUID(),
        tool: io.tool,
        status,
        model: modelOf(used),
        providerId: used.kind === 'provider' ? used.provider.id : null,
        route: used.kind === 'provider' ? 'local' : 'seller',
        hops: used.hops,
        sellerHash: used.kind === 'seller' ? used.offer.sellerHash : null,
        inputTokens: billable ? metered.inputTokens : 0,
        outputTokens: billable ? metered.outputTokens : 0,
        transferBytes: metered.transferBytes,
        estimated: billable && estimated,
        charge: billed,
        currency: key.currency,
        // A resold call costs what the seller charged (unknown when its answer never came: recorded as 0, see docs).
        cost: used.kind === 'provider' ? (billable ? charge(costRates(used.model), metered) : 0n) : (resold?.sellerCharge ?? 0n),
        costCurrency: used.kind === 'provider' ? (used.model.costCurrency ?? settings.currency) : settings.currency,
        error: o.failure ? `${o.failure.code}: ${o.failure.message}` : null,
        startedAt,
        finishedAt: this.now(),
      }, () => {
        if (used.kind === 'seller' && resold) this.sellers!.owe(used, resold);
      });
    } finally {
      releaseSellerHold();
    }
    this.budgets.charged(settled.key, billed);
    this.metrics.call({
      provider: candidateName(used),
      model: modelOf(used),
      status,
      inputTokens: billable ? metered.inputTokens : 0,
      outputTokens: billable ? metered.outputTokens : 0,
      charge: billed,
      currency: key.currency,
    });
    if (used.kind === 'seller' && resold) this.sellers!.pay(used, resold);
    if (o.failure && !produced) {
      throw new ToolFailure(o.failure.code, o.failure.message, {
        ...(o.failure.status !== undefined ? { upstream_status: o.failure.status } : {}),
        provider: candidateName(used),
        failovers,
        charge: '0',
        usage_id: settled.usage.id,
        ...(o.failure.code === 'upstream_timeout' || o.failure.code === 'upstream_unreachable' || (o.failure.status ?? 0) >= 500 || o.failure.status === 429
          ? { retry: 'the upstream is busy or down; try again later' }
          : {}),
      });
    }
    return {
      output: o.text,
      toolCalls: o.toolCalls,
      model: modelOf(used),
      provider: candidateName(used),
      finishReason: o.finishReason,
      usage: settled.usage,
      key: settled.key,
      failovers,
      maxOutputTokens: outputOf(used),
      route: { kind: used.kind === 'provider' ? 'local' : 'seller', hops: used.hops, seller: used.kind === 'seller' ? used.offer.sellerHash : null },
      failure: o.failure ? { code: o.failure.code, message: o.failure.message } : null,
    };
  }

  /**
   * One candidate's attempts: the first, then up to `retries` more after a pause (100 ms, doubling) while it fails
   * before output with a failure worth retrying and is not cooling down. Each verdict goes to the candidate's health.
   */
  async #attempts(
    c: Candidate,
    call: { messages: readonly ChatMessage[]; maxOutputTokens: number; generation: Generation },
    io: CompletionIo,
    deadline: AbortSignal,
    retries: number,
  ): Promise<CallOutcome | ResoldOutcome> {
    const name = deployment(c);
    const options = { cancel: io.cancel, deadline, ...(io.onDelta ? { onDelta: io.onDelta } : {}), ...(io.onToolCall ? { onToolCall: io.onToolCall } : {}) };
    for (let attempt = 0; ; attempt++) {
      // Another call took the probe of a place just out of its cooldown: this one goes on to the next candidate.
      if (!this.health.begin(name)) return skippedOutcome();
      const triedAt = performance.now();
      const outcome =
        c.kind === 'seller'
          ? await this.sellers!.call(c, call, options)
          : await callUpstream(
              this.agents,
              c.preset!,
              { endpoint: c.provider.endpoint, token: this.config.token(c.provider), model: c.model.id, ...call, stream: io.onDelta !== undefined },
              options,
            );
      this.metrics.attempt(candidateName(c), modelOf(c), outcome.failure?.code ?? 'ok', (performance.now() - triedAt) / 1000);
      if (!outcome.failure) this.health.succeeded(name);
      else if (countsAgainst(outcome.failure)) this.health.failed(name, outcome.failure);
      else this.health.released(name);
      if (!retryable(outcome) || attempt >= retries || this.health.skipped(name) || io.cancel.aborted || deadline.aborted) return outcome;
      await pause(RETRY_BACKOFF_MS * 2 ** attempt, [io.cancel, deadline]);
      if (io.cancel.aborted || deadline.aborted) return outcome;
    }
  }

  funds(key: KeyRow): Funds {
    return this.billing.funds(key);
  }

  /** Learned offers a call may use now under the operator's limits (chat.list_models). */
  networkOffers(): SellerCandidate[] {
    return this.sellers ? this.sellers.candidates(null, this.config.settings()).filter((c) => c.rejections.length === 0) : [];
  }
}
