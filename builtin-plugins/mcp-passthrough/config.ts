/**
 * The operator's configuration: settings (`configure.set`), providers with their model rows, and the active
 * provider and model. `configure` validates the whole resulting state first and then writes it in one transaction,
 * so a request either applies completely or changes nothing. Merge rules (Document 2):
 *
 *   - `provider.id` names an existing provider (its supplied fields replace the stored ones, the others stay) or a
 *     new one (`preset` required; `endpoint` defaults to the preset's);
 *   - a supplied `models` array replaces the provider's whole collection: rows are taken as given, omitted fields
 *     take their defaults (new rows are disabled unless `enabled: true`);
 *   - an omitted or empty `token` keeps the stored one; `clear_token: true` removes it and wins over a token given
 *     in the same request;
 *   - `active.provider` must exist after the change; `active.model` must be a row of that provider (never created
 *     by naming it, but it may be one supplied in the same request). Without `active.model` the current model stays
 *     when the provider has it, else none is active.
 */
import { ApiError, formatMinor, lookup, parseDecimal, type Minor, type NodeInfo } from '../../sdk/index.js';
import { normalizeOrigin } from './origins.js';
import type { TokenCipher } from './secrets.js';
import type { McpStore, ModelRow, PricingMode, ProviderRow } from './store.js';
import type { PresetRegistry } from './upstream/presets.js';
import { ownAddressIn } from './upstream/self.js';

export type Mode = 'pilot' | 'open';

/** Output allowance ceiling and default of Document 2 ("Other plugin limits"). */
export const MAX_OUTPUT_CAP = 32768;
export const DEFAULT_OUTPUT_ALLOWANCE = 1024;
export const MAX_ORIGINS_PER_KEY = 3;
export const DEFAULT_RETRIES = 1;
export const DEFAULT_COOLDOWN_SECONDS = 30;
const MAX_DEFAULT_ORIGINS = 20;
const MAX_MODELS_PER_PROVIDER = 500;
/** Rates above this (per million tokens or per gigabyte) are refused as typing mistakes. */
const MAX_RATE = 10n ** 12n * 100_000_000n;

export interface Settings {
  mode: Mode;
  currency: string;
  maxOutputTokens: number;
  allowedOrigins: string[];
  failover: boolean;
  /** Further attempts on a provider that failed before output, with backoff, before failing over. */
  retries: number;
  /** How long a provider that failed repeatedly is skipped before one call probes it (health.ts). */
  cooldownMs: number;
  /** Whether calls may be resold to sellers learned from contacts (off unless the operator turns it on). */
  remoteRouting: boolean;
  /** The discovery horizon this node routes within (1 to 3 hops). */
  maxHops: number;
  /** The most one resold call may be estimated to cost this node; null: no ceiling. */
  maxPricePerCall: Minor | null;
  /** The most resold calls may cost this node per UTC day; null: no ceiling. */
  maxSpendPerDay: Minor | null;
  /** Markup in percent on the seller's rates when this node resells an offer. */
  resaleMarkupPct: Minor;
  /** Defaults of the per-key limits (limits.ts); 0 lifts a limit. */
  keyLimits: { requestsPerMinute: number; tokensPerMinute: number; parallelCalls: number; sessions: number };
  /** The share of a key's budget at which the soft-limit event fires, in percent. */
  budgetSoftLimitPct: number;
  /** How providers of the same model share calls: in the operator's order, or the least busy first. */
  balancing: Balancing;
}

export type Balancing = 'ordered' | 'least_busy';

/**
 * Shipped defaults of the per-key limits: none beyond the doors' own (a node upgraded keeps serving as before) and one
 * session per key (Document 2). docs/mcp-passthrough.md suggests values for a small seller.
 */
export const DEFAULT_KEY_LIMITS = { requestsPerMinute: 0, tokensPerMinute: 0, parallelCalls: 0, sessions: 1 } as const;
export const MAX_SESSIONS_PER_KEY = 1000;
export const DEFAULT_BUDGET_SOFT_LIMIT_PCT = 80;

/** Document 2: the directory horizon. */
export const MAX_HOPS = 3;

export interface Active {
  provider: string | null;
  model: string | null;
}

/** Names `configure.set` accepts, each with its parser (string in, canonical string out, or an error message). */
const SETTING_PARSERS: Record<string, (value: string) => string | { error: string }> = {
  mode: (v) => (['pilot', 'open'].includes(v.trim().toLowerCase()) ? v.trim().toLowerCase() : { error: 'mode must be pilot or open' }),
  currency: (v) => (CURRENCY.test(v.trim()) ? canonicalCurrency(v.trim()) : { error: 'currency must be 3 to 10 letters or digits' }),
  max_output_tokens: (v) => {
    const n = Number(v.trim());
    return /^\d+$/.test(v.trim()) && n >= 1 && n <= MAX_OUTPUT_CAP ? String(n) : { error: `max_output_tokens must be an integer from 1 to ${MAX_OUTPUT_CAP}` };
  },
  allowed_origins: (v) => {
    const items = v.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length > MAX_DEFAULT_ORIGINS) return { error: `allowed_origins holds at most ${MAX_DEFAULT_ORIGINS} origins` };
    const out: string[] = [];
    for (const item of items) {
      const o = normalizeOrigin(item);
      if (!o) return { error: `"${item}" is not an origin (scheme://host[:port])` };
      if (!out.includes(o)) out.push(o);
    }
    return out.join(',');
  },
  failover: (v) => onOff(v, 'failover'),
  retries: (v) => (/^[0-5]$/.test(v.trim()) ? v.trim() : { error: 'retries must be an integer from 0 to 5' }),
  cooldown_seconds: (v) => {
    const n = Number(v.trim());
    return /^\d+$/.test(v.trim()) && n >= 1 && n <= 3600 ? String(n) : { error: 'cooldown_seconds must be an integer from 1 to 3600' };
  },
  // The federation's operator limits (docs/mcp-passthrough.md, "Federation"): a call's `routing` can only lower them.
  remote_routing: (v) => onOff(v, 'remote_routing'),
  max_hops: (v) => (/^[1-3]$/.test(v.trim()) ? v.trim() : { error: `max_hops must be 1, 2 or ${MAX_HOPS}` }),
  max_price_per_call: (v) => optionalAmount(v, 'max_price_per_call'),
  max_spend_per_day: (v) => optionalAmount(v, 'max_spend_per_day'),
  resale_markup_pct: (v) => optionalAmount(v, 'resale_markup_pct') || '0',
  requests_per_minute: (v) => whole(v, 'requests_per_minute', 0, 1_000_000),
  tokens_per_minute: (v) => whole(v, 'tokens_per_minute', 0, 1_000_000_000),
  parallel_calls: (v) => whole(v, 'parallel_calls', 0, 10_000),
  sessions_per_key: (v) => whole(v, 'sessions_per_key', 1, MAX_SESSIONS_PER_KEY),
  budget_soft_limit_pct: (v) => whole(v, 'budget_soft_limit_pct', 1, 100),
  balancing: (v) => (['ordered', 'least_busy'].includes(v.trim()) ? v.trim() : { error: 'balancing must be ordered or least_busy' }),
};

function whole(v: string, name: string, min: number, max: number): string | { error: string } {
  const n = Number(v.trim());
  return /^\d+$/.test(v.trim()) && n >= min && n <= max ? String(n) : { error: `${name} must be an integer from ${min} to ${max}` };
}

function onOff(v: string, name: string): string | { error: string } {
  const t = v.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(t)) return 'on';
  if (['off', 'false', '0', 'no'].includes(t)) return 'off';
  return { error: `${name} must be on or off` };
}

/** A decimal amount (canonical text), or '' for none. */
function optionalAmount(v: string, name: string): string | { error: string } {
  if (!v.trim()) return '';
  const r = parseDecimal(v.trim());
  return r.ok ? formatMinor(r.value) : { error: `${name} must be a decimal of at least 0 with at most 8 decimals, or empty for none` };
}

export const SETTING_NAMES = Object.keys(SETTING_PARSERS);

function amountOrNull(text: string | undefined): Minor | null {
  if (!text) return null;
  const r = parseDecimal(text);
  return r.ok ? r.value : null;
}

const CURRENCY = /^[A-Za-z0-9]{3,10}$/;
const FIAT = new Set(['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'NZD', 'CNY', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'INR', 'BRL', 'MXN', 'ZAR']);

/** Document 2 currency rule: case preserved except recognized fiat codes (upper-cased). */
export function canonicalCurrency(code: string): string {
  return FIAT.has(code.toUpperCase()) ? code.toUpperCase() : code;
}

export const sameCurrency = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

function invalid(field: string, message: string, code = 'validation_error'): ApiError {
  return new ApiError(code, 400, message, { field });
}

function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max || CONTROL.test(value)) {
    throw invalid(field, `${field} must be a text of 1 to ${max} characters`);
  }
  return value.trim();
}

function decimalText(value: unknown, field: string): string {
  const r = parseDecimal(value);
  if (!r.ok) throw invalid(field, `${field} must be a decimal string of at least 0 with at most 8 decimals`);
  if (r.value > MAX_RATE) throw invalid(field, `${field} is too large`);
  return formatMinor(r.value);
}

function endpointOf(value: unknown, field: string): string {
  const raw = text(value, field, 2048);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(field, `${field} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, `${field} must be an http or https URL`);
  // A credential in the URL would be stored and shown in the clear: the token field is the place for it.
  if (url.username || url.password) throw invalid(field, `${field} must not carry a user name or password; use token`);
  if (url.search || url.hash) throw invalid(field, `${field} must not carry a query or fragment`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MODEL_FIELDS = new Set([
  'id',
  'label',
  'enabled',
  'pricing_mode',
  'markup_pct',
  'cost_in_per_1m',
  'cost_out_per_1m',
  'cost_xfer_per_gb',
  'cost_currency',
  'manual_in_per_1m',
  'manual_out_per_1m',
  'manual_xfer_per_gb',
  'max_output_tokens',
]);

function modelOf(providerId: string, raw: unknown, i: number): ModelRow {
  const at = `provider.models[${i}]`;
  if (!isObject(raw)) throw invalid(at, `${at} must be an object`);
  for (const k of Object.keys(raw)) if (!MODEL_FIELDS.has(k)) throw invalid(`${at}.${k}`, `${at}.${k} is not a model field`);
  const id = text(raw.id, `${at}.id`, 200);
  const rateOf = (k: string): string => (raw[k] === undefined || raw[k] === null ? '0' : decimalText(raw[k], `${at}.${k}`));
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') throw invalid(`${at}.enabled`, `${at}.enabled must be a boolean`);
  const mode = raw.pricing_mode ?? 'markup';
  if (mode !== 'markup' && mode !== 'manual') throw invalid(`${at}.pricing_mode`, `${at}.pricing_mode must be markup or manual`);
  let costCurrency: string | null = null;
  if (raw.cost_currency !== undefined && raw.cost_currency !== null && raw.cost_currency !== '') {
    if (typeof raw.cost_currency !== 'string' || !CURRENCY.test(raw.cost_currency)) {
      throw invalid(`${at}.cost_currency`, `${at}.cost_currency must be 3 to 10 letters or digits`);
    }
    costCurrency = canonicalCurrency(raw.cost_currency);
  }
  let maxOut: number | null = null;
  if (raw.max_output_tokens !== undefined && raw.max_output_tokens !== null) {
    const n = raw.max_output_tokens;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_OUTPUT_CAP) {
      throw invalid(`${at}.max_output_tokens`, `${at}.max_output_tokens must be an integer from 1 to ${MAX_OUTPUT_CAP}`);
    }
    maxOut = n;
  }
  return {
    providerId,
    id,
    label: raw.label === undefined || raw.label === null ? id : text(raw.label, `${at}.label`, 200),
    enabled: raw.enabled === true,
    pricingMode: mode as PricingMode,
    markupPct: rateOf('markup_pct'),
    costInPer1m: rateOf('cost_in_per_1m'),
    costOutPer1m: rateOf('cost_out_per_1m'),
    costXferPerGb: rateOf('cost_xfer_per_gb'),
    costCurrency,
    manualInPer1m: rateOf('manual_in_per_1m'),
    manualOutPer1m: rateOf('manual_out_per_1m'),
    manualXferPerGb: rateOf('manual_xfer_per_gb'),
    maxOutputTokens: maxOut,
  };
}

export function modelView(m: ModelRow): Record<string, unknown> {
  return {
    id: m.id,
    label: m.label,
    enabled: m.enabled,
    pricing_mode: m.pricingMode,
    markup_pct: m.markupPct,
    cost_in_per_1m: m.costInPer1m,
    cost_out_per_1m: m.costOutPer1m,
    cost_xfer_per_gb: m.costXferPerGb,
    cost_currency: m.costCurrency,
    manual_in_per_1m: m.manualInPer1m,
    manual_out_per_1m: m.manualOutPer1m,
    manual_xfer_per_gb: m.manualXferPerGb,
    max_output_tokens: m.maxOutputTokens,
  };
}

export interface ConfigureInput {
  set?: unknown;
  provider?: unknown;
  active?: unknown;
}

export interface ConfigureResult {
  changed: string[];
  warnings: string[];
}

/** Reads and changes the operator configuration; the single writer of mcp_config, mcp_providers and mcp_models. */
export class OperatorConfig {
  constructor(
    private readonly store: McpStore,
    private readonly tx: <T>(fn: () => T) => T,
    private readonly cipher: TokenCipher,
    private readonly presets: PresetRegistry,
    private readonly nodeCurrency: () => string,
    private readonly now: () => number,
    /** This node's addresses and listener: an upstream must not be the node itself. */
    private readonly ownNode: () => Pick<NodeInfo, 'addresses' | 'listener'>,
  ) {}

  /** Reads are served from memory: this class is the only writer, and drops the copy when it writes. */
  #cache: { config: Map<string, string>; providers: ProviderRow[]; models: ModelRow[] } | null = null;

  #state(): { config: Map<string, string>; providers: ProviderRow[]; models: ModelRow[] } {
    this.#cache ??= { config: this.store.config(), providers: this.store.providers(), models: this.store.models() };
    return this.#cache;
  }

  /** settings() as last built, with the configuration and node currency it was built from (every call reads it, often). */
  #settings: { config: Map<string, string>; nodeCurrency: string; value: Readonly<Settings> } | null = null;

  settings(): Readonly<Settings> {
    const config = this.#state().config;
    const nodeCurrency = this.nodeCurrency();
    const kept = this.#settings;
    if (kept && kept.config === config && kept.nodeCurrency === nodeCurrency) return kept.value;
    const value = Object.freeze(settingsOf(config, nodeCurrency));
    this.#settings = { config, nodeCurrency, value };
    return value;
  }

  active(): Active {
    const c = this.#state().config;
    return { provider: c.get('active_provider') || null, model: c.get('active_model') || null };
  }

  providers(): readonly ProviderRow[] {
    return this.#state().providers;
  }

  models(): readonly ModelRow[] {
    return this.#state().models;
  }

  /** The stored token of a provider, decrypted; null when none is stored or it no longer opens. */
  token(provider: ProviderRow): string | null {
    return provider.tokenEnc ? this.cipher.open(provider.id, provider.tokenEnc) : null;
  }

  configure(input: ConfigureInput): ConfigureResult {
    const changed: string[] = [];
    const warnings: string[] = [];
    const now = this.now();

    // 1. Settings.
    const settingChanges = new Map<string, string>();
    if (input.set !== undefined) {
      if (!isObject(input.set)) throw invalid('set', 'set must be an object of setting names to string values');
      for (const [name, value] of Object.entries(input.set)) {
        const parse = lookup(SETTING_PARSERS, name);
        if (!parse) throw invalid(`set.${name}`, `unknown setting "${name}"; known: ${SETTING_NAMES.join(', ')}`, 'unknown_setting');
        if (typeof value !== 'string') throw invalid(`set.${name}`, `set.${name} must be a string`);
        const parsed = parse(value);
        if (typeof parsed !== 'string') throw invalid(`set.${name}`, parsed.error, 'invalid_setting');
        settingChanges.set(name, parsed);
      }
    }

    // 2. Provider.
    let providerWrite: { row: ProviderRow; isNew: boolean; models: ModelRow[] | null } | null = null;
    if (input.provider !== undefined) {
      const p = input.provider;
      if (!isObject(p)) throw invalid('provider', 'provider must be an object');
      const known = new Set(['id', 'preset', 'endpoint', 'label', 'token', 'clear_token', 'models']);
      for (const k of Object.keys(p)) if (!known.has(k)) throw invalid(`provider.${k}`, `provider.${k} is not a provider field`);
      if (typeof p.id !== 'string' || !PROVIDER_ID.test(p.id)) {
        throw invalid('provider.id', 'provider.id must be 1 to 64 lower-case letters, digits, dots, dashes or underscores');
      }
      const existing = this.store.provider(p.id);
      let presetId = existing?.preset;
      if (p.preset !== undefined) {
        if (typeof p.preset !== 'string' || !this.presets.get(p.preset)) {
          throw invalid('provider.preset', `provider.preset must be one of ${this.presets.list().map((x) => x.id).join(', ')}`, 'unknown_preset');
        }
        presetId = p.preset;
      }
      if (!presetId) throw invalid('provider.preset', 'a new provider needs a preset', 'missing_field');
      const preset = this.presets.get(presetId)!;
      let endpoint = existing?.endpoint;
      if (p.endpoint !== undefined) endpoint = endpointOf(p.endpoint, 'provider.endpoint');
      else if (!existing || p.preset !== undefined) endpoint = endpoint ?? preset.defaultEndpoint ?? undefined;
      if (!endpoint) throw invalid('provider.endpoint', `preset ${preset.id} has no default endpoint: give provider.endpoint`, 'missing_field');
      const self = ownAddressIn(endpoint, this.ownNode());
      if (self) {
        throw invalid(
          'provider.endpoint',
          `provider.endpoint ${endpoint} is this node itself (${self}): give the address of the model server (llama.cpp: llama-server --port 8081)`,
          'endpoint_is_self',
        );
      }
      const label = p.label !== undefined ? text(p.label, 'provider.label', 100) : (existing?.label ?? preset.label);
      if (p.clear_token !== undefined && typeof p.clear_token !== 'boolean') throw invalid('provider.clear_token', 'provider.clear_token must be a boolean');
      if (p.token !== undefined && p.token !== null && (typeof p.token !== 'string' || p.token.length > 8192 || CONTROL.test(p.token))) {
        throw invalid('provider.token', 'provider.token must be a text of at most 8192 characters');
      }
      let tokenEnc = existing?.tokenEnc ?? null;
      if (p.clear_token === true) tokenEnc = null;
      else if (typeof p.token === 'string' && p.token.trim() !== '') tokenEnc = this.cipher.seal(p.id, p.token.trim());
      let models: ModelRow[] | null = null;
      if (p.models !== undefined) {
        if (!Array.isArray(p.models)) throw invalid('provider.models', 'provider.models must be an array');
        if (p.models.length > MAX_MODELS_PER_PROVIDER) throw invalid('provider.models', `provider.models holds at most ${MAX_MODELS_PER_PROVIDER} rows`);
        models = p.models.map((m, i) => modelOf(p.id as string, m, i));
        const ids = new Set<string>();
        for (const m of models) {
          if (ids.has(m.id)) throw invalid('provider.models', `model "${m.id}" appears twice`);
          ids.add(m.id);
        }
      }
      providerWrite = {
        row: {
          id: p.id,
          preset: presetId,
          endpoint,
          label,
          tokenEnc,
          position: existing?.position ?? 0,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        },
        isNew: !existing,
        models,
      };
      if (preset.requiresToken && !tokenEnc) warnings.push(`provider ${p.id} (${preset.id}) has no token: it serves no call until one is stored`);
    }

    // The state after the change, for the checks that span it.
    const providerIds = new Set(this.store.providers().map((r) => r.id));
    if (providerWrite) providerIds.add(providerWrite.row.id);
    const modelsAfter = (providerId: string): ModelRow[] =>
      providerWrite && providerWrite.row.id === providerId && providerWrite.models ? providerWrite.models : this.store.models().filter((m) => m.providerId === providerId);
    const currencyAfter = settingChanges.get('currency') ?? this.settings().currency;

    // 3. Active.
    let activeAfter = this.active();
    if (input.active !== undefined) {
      const a = input.active;
      if (!isObject(a)) throw invalid('active', 'active must be an object with provider and optional model');
      if (typeof a.provider !== 'string' || !providerIds.has(a.provider)) {
        throw new ApiError('provider_not_found', 404, `no provider "${String(a.provider)}"`, { field: 'active.provider' });
      }
      const rows = modelsAfter(a.provider);
      let model: string | null;
      if (a.model !== undefined && a.model !== null) {
        if (typeof a.model !== 'string' || !rows.some((m) => m.id === a.model)) {
          throw new ApiError('model_not_found', 404, `provider ${a.provider} has no model "${String(a.model)}"`, { field: 'active.model' });
        }
        model = a.model;
      } else {
        model = activeAfter.model && rows.some((m) => m.id === activeAfter.model) ? activeAfter.model : null;
      }
      activeAfter = { provider: a.provider, model };
    } else if (activeAfter.provider && activeAfter.model && !modelsAfter(activeAfter.provider).some((m) => m.id === activeAfter.model)) {
      warnings.push(`the active model ${activeAfter.model} is no longer a row of provider ${activeAfter.provider}: no model is active`);
      activeAfter = { provider: activeAfter.provider, model: null };
    }
    if (!activeAfter.provider && providerWrite?.isNew) {
      // The first provider becomes the active one: a node with one provider needs no extra step.
      activeAfter = { provider: providerWrite.row.id, model: activeAfter.model };
    }

    // 4. Rules spanning the whole state.
    if (!sameCurrency(currencyAfter, this.settings().currency)) {
      // Balances are in the old currency and nothing converts them: they would be stranded.
      const funded = this.store.keys().filter((k) => k.revokedAt === null && (k.balance !== 0n || k.debt !== 0n));
      if (funded.length) {
        throw new ApiError('currency_in_use', 409, `${funded.length} active key(s) hold a balance or debt in ${this.settings().currency}`, {
          field: 'set.currency',
        });
      }
    }
    for (const id of providerIds) {
      for (const m of modelsAfter(id)) {
        if (m.pricingMode === 'markup' && m.costCurrency && !sameCurrency(m.costCurrency, currencyAfter)) {
          throw new ApiError(
            'currency_mismatch',
            400,
            `model ${m.id} of provider ${id} is priced by markup over costs in ${m.costCurrency}, not the settlement currency ${currencyAfter}; use manual pricing`,
            { field: 'provider.models' },
          );
        }
      }
    }
    if (providerWrite?.models) {
      for (const m of providerWrite.models) {
        const r = m.pricingMode === 'manual' ? [m.manualInPer1m, m.manualOutPer1m] : [m.costInPer1m, m.costOutPer1m];
        if (m.enabled && r.every((x) => x === '0')) warnings.push(`model ${m.id} is enabled with no price: its calls are free`);
      }
    }
    const activeModelRow = activeAfter.provider && activeAfter.model ? modelsAfter(activeAfter.provider).find((m) => m.id === activeAfter.model) : null;
    if (activeModelRow && !activeModelRow.enabled) warnings.push(`the active model ${activeModelRow.id} is disabled: calls without a model fail until it is enabled`);

    // 5. Write.
    this.#cache = null;
    this.tx(() => {
      for (const [name, value] of settingChanges) {
        this.store.setConfig(name, value);
        changed.push(`set.${name}`);
      }
      if (providerWrite) {
        if (providerWrite.isNew) this.store.insertProvider(providerWrite.row);
        else this.store.updateProvider(providerWrite.row);
        if (providerWrite.models) this.store.replaceModels(providerWrite.row.id, providerWrite.models);
        changed.push(`provider.${providerWrite.row.id}`);
      }
      const before = this.active();
      if (before.provider !== activeAfter.provider || before.model !== activeAfter.model) {
        this.store.setConfig('active_provider', activeAfter.provider ?? '');
        this.store.setConfig('active_model', activeAfter.model ?? '');
        changed.push('active');
      }
    });
    this.#cache = null;
    return { changed, warnings };
  }
}

/** The plugin's settings from its stored configuration (`mcp_config`) and the node's currency. */
function settingsOf(c: ReadonlyMap<string, string>, nodeCurrency: string): Settings {
  return {
    mode: (c.get('mode') as Mode | undefined) ?? 'pilot',
    currency: c.get('currency') ?? canonicalCurrency(nodeCurrency),
    maxOutputTokens: Number(c.get('max_output_tokens') ?? DEFAULT_OUTPUT_ALLOWANCE),
    allowedOrigins: (c.get('allowed_origins') ?? '').split(',').filter(Boolean),
    failover: (c.get('failover') ?? 'on') === 'on',
    retries: Number(c.get('retries') ?? DEFAULT_RETRIES),
    cooldownMs: Number(c.get('cooldown_seconds') ?? DEFAULT_COOLDOWN_SECONDS) * 1000,
    remoteRouting: c.get('remote_routing') === 'on',
    maxHops: Number(c.get('max_hops') ?? MAX_HOPS),
    maxPricePerCall: amountOrNull(c.get('max_price_per_call')),
    maxSpendPerDay: amountOrNull(c.get('max_spend_per_day')),
    resaleMarkupPct: amountOrNull(c.get('resale_markup_pct')) ?? 0n,
    keyLimits: {
      requestsPerMinute: Number(c.get('requests_per_minute') ?? DEFAULT_KEY_LIMITS.requestsPerMinute),
      tokensPerMinute: Number(c.get('tokens_per_minute') ?? DEFAULT_KEY_LIMITS.tokensPerMinute),
      parallelCalls: Number(c.get('parallel_calls') ?? DEFAULT_KEY_LIMITS.parallelCalls),
      sessions: Number(c.get('sessions_per_key') ?? DEFAULT_KEY_LIMITS.sessions),
    },
    budgetSoftLimitPct: Number(c.get('budget_soft_limit_pct') ?? DEFAULT_BUDGET_SOFT_LIMIT_PCT),
    balancing: (c.get('balancing') as Balancing | undefined) ?? 'ordered',
  };
}
