/**
 * Operator REST under `/api/v1/plugins/mcp-passthrough/` (HMAC, scope `admin`), in the host envelope. Shapes:
 * docs/mcp-passthrough.md ("Operator REST"). Tokens never appear in any answer but key-create's, once.
 */
import { ApiError, formatMinor, type PluginContext } from '../../sdk/index.js';
import { topupMemo } from './billing.js';
import { customerEndpoint, mcpClientConfig, OPENAI_PATH } from './client-config.js';
import { modelView, SETTING_NAMES, type OperatorConfig } from './config.js';
import type { Health } from './health.js';
import type { Keys } from './keys.js';
import { iso } from './keys.js';
import { limitsView } from './limits.js';
import type { Sessions } from './mcp/sessions.js';
import { operatorUsageView, topupView, usageDayView } from './present.js';
import { configResponse, configuredResponse, keyCreatedResponse, keyLimitsResponse, keyRevokedResponse, keysResponse, statusResponse, usageResponse, usageSummaryResponse } from './schemas.js';
import type { McpStore, UsageFilter } from './store.js';
import { dayRange } from '../../sdk/dates.js';
import type { PresetRegistry } from './upstream/presets.js';

const ADMIN = { scope: 'admin' } as const;
/** The per-key limit fields of key-create and key-update (limits.ts checks them). */
const LIMIT_PROPERTIES = { requests_per_minute: {}, tokens_per_minute: {}, parallel_calls: {}, sessions: {}, budget: {}, allowed_models: {} };
export const USAGE_DEFAULT = 50;
export const USAGE_MAX = 500;
const SUMMARY_MAX = 1000;

export interface OperatorDeps {
  ctx: PluginContext;
  store: McpStore;
  config: OperatorConfig;
  keys: Keys;
  sessions: Sessions;
  presets: PresetRegistry;
  health: Health;
  /** The federation's state for `status`: learned offers and the sellers they come from. */
  federation: () => Record<string, unknown>;
  /** Asks the contacts for their offers now rather than at the next scheduled refresh. */
  refreshOffers: () => void;
}

/**
 * Whether a configuration change makes the learned offers worth asking for at once: remote routing turned on (the
 * node is about to resell them), another settlement currency (other contacts to ask), or a changed own catalogue
 * (what the node buys from others depends on what it serves itself).
 */
function changesOffers(changed: readonly string[], config: OperatorConfig): boolean {
  return changed.some((c) => (c === 'set.remote_routing' ? config.settings().remoteRouting : c === 'set.currency' || c === 'active' || c.startsWith('provider.')));
}

function providerSummaries(config: OperatorConfig, health: Health): Record<string, unknown>[] {
  const models = config.models();
  return config.providers().map((p) => {
    const own = models.filter((m) => m.providerId === p.id);
    return {
      id: p.id,
      preset: p.preset,
      label: p.label,
      endpoint: p.endpoint,
      has_token: p.tokenEnc !== null,
      model_count: own.length,
      enabled_models: own.filter((m) => m.enabled).map((m) => m.id),
      // Per enabled model: a model may be down on a provider while its others answer (health.ts).
      health: Object.fromEntries(own.filter((m) => m.enabled).map((m) => [m.id, health.view(`${p.id}/${m.id}`)])),
    };
  });
}

export function configView(config: OperatorConfig): Record<string, unknown> {
  const s = config.settings();
  const models = config.models();
  return {
    settings: {
      mode: s.mode,
      currency: s.currency,
      max_output_tokens: String(s.maxOutputTokens),
      allowed_origins: s.allowedOrigins.join(','),
      failover: s.failover ? 'on' : 'off',
      retries: String(s.retries),
      cooldown_seconds: String(s.cooldownMs / 1000),
      remote_routing: s.remoteRouting ? 'on' : 'off',
      max_hops: String(s.maxHops),
      max_price_per_call: s.maxPricePerCall === null ? '' : formatMinor(s.maxPricePerCall),
      max_spend_per_day: s.maxSpendPerDay === null ? '' : formatMinor(s.maxSpendPerDay),
      resale_markup_pct: formatMinor(s.resaleMarkupPct),
      requests_per_minute: String(s.keyLimits.requestsPerMinute),
      tokens_per_minute: String(s.keyLimits.tokensPerMinute),
      parallel_calls: String(s.keyLimits.parallelCalls),
      sessions_per_key: String(s.keyLimits.sessions),
      budget_soft_limit_pct: String(s.budgetSoftLimitPct),
      balancing: s.balancing,
    },
    setting_names: SETTING_NAMES,
    currency: s.currency,
    mode: s.mode,
    active: config.active(),
    providers: config.providers().map((p) => ({
      id: p.id,
      preset: p.preset,
      endpoint: p.endpoint,
      label: p.label,
      has_token: p.tokenEnc !== null,
      models: models.filter((m) => m.providerId === p.id).map(modelView),
      created_at: iso(p.createdAt),
      updated_at: iso(p.updatedAt),
    })),
  };
}

export function registerOperatorRoutes(deps: OperatorDeps): void {
  const { ctx, store, config, keys, sessions, presets, refreshOffers } = deps;

  ctx.routes.plugin({
    method: 'GET',
    path: 'status',
    response: statusResponse,
    access: ADMIN,
    handler: () => {
      const s = config.settings();
      return {
        active: config.active(),
        mode: s.mode,
        currency: s.currency,
        providers: providerSummaries(config, deps.health),
        presets: presets.list().map((p) => ({ id: p.id, label: p.label, default_endpoint: p.defaultEndpoint, requires_token: p.requiresToken })),
        key_count: store.activeKeyCount(),
        sessions: sessions.count(),
        public_routes_served: ctx.kernel.plugins.get(ctx.name)?.public_routes_enabled === true && ctx.kernel.plugins.publicRoutesAllowed(),
        federation: deps.federation(),
      };
    },
  });

  ctx.routes.plugin({ method: 'GET', path: 'config', access: ADMIN, response: configResponse, handler: () => configView(config) });

  ctx.routes.plugin<{ set?: unknown; provider?: unknown; active?: unknown }>({
    method: 'POST',
    path: 'configure',
    response: configuredResponse,
    access: ADMIN,
    body: { type: 'object', properties: { set: {}, provider: {}, active: {} }, additionalProperties: false },
    maxBodyBytes: 1024 * 1024,
    handler: (req) => {
      if (req.body.set === undefined && req.body.provider === undefined && req.body.active === undefined) {
        throw new ApiError('validation_error', 400, 'configure needs at least one of set, provider, active', { field: 'body' });
      }
      const result = config.configure(req.body);
      if (changesOffers(result.changed, config)) refreshOffers();
      return { ...configView(config), changed: result.changed, warnings: result.warnings };
    },
  });

  ctx.routes.plugin({
    method: 'GET',
    path: 'keys',
    response: keysResponse,
    access: ADMIN,
    handler: () => ({ keys: store.keys().map((k) => keys.view(k)) }),
  });

  ctx.routes.plugin<Record<string, unknown>>({
    method: 'POST',
    path: 'key-create',
    response: keyCreatedResponse,
    access: ADMIN,
    body: {
      type: 'object',
      properties: { label: {}, contact: {}, registered_pubkey: {}, ttl: {}, currency: {}, funding: {}, ...LIMIT_PROPERTIES },
      additionalProperties: false,
    },
    fallbackCode: 'validation_error',
    handler: (req) => {
      const minted = keys.create(req.body);
      const view = keys.view(minted.key);
      const endpoint = customerEndpoint(ctx.kernel.node.addresses);
      return {
        key_id: minted.key.id,
        token: minted.token,
        endpoint,
        client_config: endpoint ? mcpClientConfig(endpoint, minted.token) : null,
        openai_base_url: customerEndpoint(ctx.kernel.node.addresses, OPENAI_PATH),
        label: minted.key.label,
        contact: view.contact,
        funding: {
          mode: minted.key.funding,
          currency: minted.key.currency,
          deposit_memo: topupMemo(minted.key.id),
          contact: minted.key.contactHash,
        },
        currency: minted.key.currency,
        registered_pubkey: minted.key.registeredPubkey,
        limits: view.limits,
        expires_at: view.expires_at,
        created_at: view.created_at,
        warnings: minted.warnings,
        note: 'The token is shown once; only its hash is stored.',
      };
    },
  });

  ctx.routes.plugin<Record<string, unknown> & { id: number }>({
    method: 'POST',
    path: 'key-update',
    access: ADMIN,
    body: { type: 'object', properties: { id: { type: 'integer', minimum: 1 }, ...LIMIT_PROPERTIES }, required: ['id'], additionalProperties: false },
    fallbackCode: 'validation_error',
    response: keyLimitsResponse,
    handler: (req) => {
      const key = keys.update(req.body.id, req.body);
      return { key_id: key.id, limits: limitsView(key, config.settings()) };
    },
  });

  ctx.routes.plugin<{ id: number }>({
    method: 'POST',
    path: 'key-revoke',
    response: keyRevokedResponse,
    access: ADMIN,
    body: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'], additionalProperties: false },
    handler: async (req) => {
      const { key, warnings } = keys.revoke(req.body.id);
      await sessions.endKey(key.id, 'the key was revoked');
      return { id: key.id, revoked: true, revoked_at: iso(key.revokedAt), warnings };
    },
  });

  ctx.routes.plugin<unknown, UsageQuery>({
    method: 'GET',
    path: 'usage',
    response: usageResponse,
    access: ADMIN,
    query: usageQuery({ limit: { type: 'integer', minimum: 1, maximum: USAGE_MAX }, offset: { type: 'integer', minimum: 0 } }),
    handler: (req) => {
      const limit = req.query.limit ?? USAGE_DEFAULT;
      const offset = req.query.offset ?? 0;
      const filter = usageFilter(req.query);
      const page = store.usagePage({ ...filter, limit, offset });
      return {
        limit,
        offset,
        total: page.total,
        key_id: filter.keyId ?? null,
        usage: page.rows.map(operatorUsageView),
        topups: store.topups(limit, filter.keyId).map(topupView),
      };
    },
  });

  // Spend and tokens per day, key and model (the GUI's inference charts): groups, not rows, paged.
  ctx.routes.plugin<unknown, UsageQuery>({
    method: 'GET',
    path: 'usage-summary',
    access: ADMIN,
    query: usageQuery({ limit: { type: 'integer', minimum: 1, maximum: SUMMARY_MAX }, offset: { type: 'integer', minimum: 0 } }),
    response: usageSummaryResponse,
    handler: (req) => {
      const limit = req.query.limit ?? SUMMARY_MAX;
      const offset = req.query.offset ?? 0;
      const { rows, total } = store.usageByDay({ ...usageFilter(req.query), limit, offset });
      return { days: rows.map(usageDayView), pagination: { total, limit, offset } };
    },
  });

  /** The filters both usage routes take; a key that does not exist is 404, not an empty list. */
  function usageFilter(q: UsageQuery): UsageFilter {
    if (q.key_id !== undefined && !store.key(q.key_id)) throw new ApiError('key_not_found', 404, `no key ${q.key_id}`);
    return { ...(q.key_id !== undefined ? { keyId: q.key_id } : {}), ...(q.model ? { model: q.model } : {}), ...dayRange(q) };
  }
}

interface UsageQuery {
  limit?: number;
  offset?: number;
  key_id?: number;
  model?: string;
  from?: string;
  to?: string;
}

const usageQuery = (paging: Record<string, unknown>) => ({
  type: 'object',
  properties: { ...paging, key_id: { type: 'integer', minimum: 1 }, model: { type: 'string', minLength: 1, maxLength: 200 }, from: { type: 'string' }, to: { type: 'string' } },
  additionalProperties: false,
});
