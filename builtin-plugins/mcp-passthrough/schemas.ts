/**
 * The answers of the operator routes under `/api/v1/plugins/mcp-passthrough/` as JSON schemas
 * (`RouteDefinition.response`), docs/mcp-passthrough.md ("Operator REST"). The customer routes under `/p/` answer
 * plain JSON or streams of their own (`produces`), not the host envelope.
 */
import { amountSchema, arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, paginationSchema, stringSchema } from '../../sdk/schema.js';

const when = nullable(dateTimeSchema);
const strings = arrayOf(stringSchema);
/** A decimal as the operator typed it (a price per million tokens, a markup percent). */
const decimal = { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' };

const health = objectOf({
  state: { enum: ['healthy', 'cooling', 'half_open', 'probing'] },
  in_flight: integerSchema,
  consecutive_failures: integerSchema,
  cool_until: when,
  last_error: nullable(stringSchema),
  last_failure_at: when,
});
const active = objectOf({ provider: nullable(stringSchema), model: nullable(stringSchema) });
const federation = objectOf({
  offer_count: integerSchema,
  owed_calls: integerSchema,
  sellers: strings,
  offers: arrayOf(
    objectOf({
      seller: stringSchema,
      origin: stringSchema,
      tor_address: nullable(stringSchema),
      model: stringSchema,
      hops: integerSchema,
      currency: stringSchema,
      in_price_per_1m: decimal,
      out_price_per_1m: decimal,
      xfer_price_per_gb: decimal,
      fetched_at: dateTimeSchema,
    }),
  ),
});

export const statusResponse = objectOf({
  active,
  mode: { enum: ['pilot', 'open'] },
  currency: stringSchema,
  providers: arrayOf(
    objectOf({
      id: stringSchema,
      preset: stringSchema,
      label: stringSchema,
      endpoint: stringSchema,
      has_token: booleanSchema,
      model_count: integerSchema,
      enabled_models: strings,
      health: { type: 'object', additionalProperties: health },
    }),
  ),
  presets: arrayOf(objectOf({ id: stringSchema, label: stringSchema, default_endpoint: nullable(stringSchema), requires_token: booleanSchema })),
  key_count: integerSchema,
  sessions: integerSchema,
  public_routes_served: booleanSchema,
  federation,
});

const model = objectOf({
  id: stringSchema,
  label: stringSchema,
  enabled: booleanSchema,
  pricing_mode: { enum: ['markup', 'manual'] },
  markup_pct: decimal,
  cost_in_per_1m: decimal,
  cost_out_per_1m: decimal,
  cost_xfer_per_gb: decimal,
  cost_currency: nullable(stringSchema),
  manual_in_per_1m: decimal,
  manual_out_per_1m: decimal,
  manual_xfer_per_gb: decimal,
  max_output_tokens: nullable(integerSchema),
});
/** The operator's settings as text, the way `configure.set` takes them (docs/mcp-passthrough.md). */
const configFields = {
  settings: { type: 'object', additionalProperties: stringSchema },
  setting_names: strings,
  currency: stringSchema,
  mode: { enum: ['pilot', 'open'] },
  active,
  providers: arrayOf(
    objectOf({
      id: stringSchema,
      preset: stringSchema,
      endpoint: stringSchema,
      label: stringSchema,
      has_token: booleanSchema,
      models: arrayOf(model),
      created_at: dateTimeSchema,
      updated_at: dateTimeSchema,
    }),
  ),
};
export const configResponse = objectOf(configFields);
export const configuredResponse = objectOf({ ...configFields, changed: strings, warnings: strings });

const contact = nullable(objectOf({ pubkey_hash: stringSchema, name: nullable(stringSchema), status: stringSchema }));
const nullableInt = nullable(integerSchema);
/** A key's own limits (null: the operator's default) and the ones in force (limits.ts, limitsView). */
const limits = objectOf({
  requests_per_minute: nullableInt,
  tokens_per_minute: nullableInt,
  parallel_calls: nullableInt,
  sessions: nullableInt,
  budget: nullable(objectOf({ amount: amountSchema, period: { enum: ['day', 'week', 'month'] } })),
  allowed_models: nullable(strings),
  effective: objectOf({ requests_per_minute: integerSchema, tokens_per_minute: integerSchema, parallel_calls: integerSchema, sessions: integerSchema }),
});
export const keyLimitsResponse = objectOf({ key_id: integerSchema, limits });
const keyFields = {
  key_id: integerSchema,
  label: stringSchema,
  kind: { enum: ['operator', 'bootstrap'] },
  status: { enum: ['active', 'expired', 'revoked'] },
  revoked: booleanSchema,
  token_hint: stringSchema,
  contact,
  funding: { enum: ['prepaid', 'credit'] },
  deposit_memo: stringSchema,
  registered_pubkey: nullable(stringSchema),
  currency: stringSchema,
  balance: amountSchema,
  debt: amountSchema,
  allowed_origins: strings,
  created_at: dateTimeSchema,
  expires_at: when,
  last_used_at: when,
  revoked_at: when,
  limits,
};
export const keysResponse = objectOf({ keys: arrayOf(objectOf(keyFields)) });
/** The token appears here once; only its hash is stored. */
export const keyCreatedResponse = objectOf({
  key_id: integerSchema,
  token: stringSchema,
  endpoint: nullable(stringSchema),
  client_config: nullable(objectOf({ mcpServers: { type: 'object' } })),
  openai_base_url: nullable(stringSchema),
  label: stringSchema,
  contact,
  funding: objectOf({ mode: { enum: ['prepaid', 'credit'] }, currency: stringSchema, deposit_memo: stringSchema, contact: nullable(stringSchema) }),
  currency: stringSchema,
  registered_pubkey: nullable(stringSchema),
  expires_at: when,
  created_at: dateTimeSchema,
  limits,
  warnings: strings,
  note: stringSchema,
});
export const keyRevokedResponse = objectOf({ id: integerSchema, revoked: { const: true }, revoked_at: dateTimeSchema, warnings: strings });

const usage = objectOf({
  usage_id: integerSchema,
  call_id: stringSchema,
  tool: stringSchema,
  status: { enum: ['ok', 'cancelled', 'error'] },
  model: stringSchema,
  provider: nullable(stringSchema),
  route: stringSchema,
  hops: integerSchema,
  input_tokens: integerSchema,
  output_tokens: integerSchema,
  transfer_bytes: integerSchema,
  estimated: booleanSchema,
  charge: amountSchema,
  from_balance: amountSchema,
  from_credit: amountSchema,
  currency: stringSchema,
  error: nullable(stringSchema),
  started_at: dateTimeSchema,
  finished_at: dateTimeSchema,
  key_id: integerSchema,
  seller_hash: nullable(stringSchema),
  cost: amountSchema,
  cost_currency: nullable(stringSchema),
});
const topup = objectOf({
  topup_id: integerSchema,
  txid: stringSchema,
  key_id: nullable(integerSchema),
  contact_hash: stringSchema,
  amount: amountSchema,
  currency: stringSchema,
  to_debt: amountSchema,
  to_balance: amountSchema,
  status: { enum: ['credited', 'unmatched'] },
  reason: nullable(stringSchema),
  at: dateTimeSchema,
});
export const usageResponse = objectOf({
  limit: integerSchema,
  offset: integerSchema,
  total: integerSchema,
  key_id: nullable(integerSchema),
  usage: arrayOf(usage),
  topups: arrayOf(topup),
});

export const usageSummaryResponse = objectOf({
  days: arrayOf(
    objectOf({
      day: stringSchema,
      key_id: integerSchema,
      model: stringSchema,
      currency: stringSchema,
      calls: integerSchema,
      input_tokens: integerSchema,
      output_tokens: integerSchema,
      charge: amountSchema,
    }),
  ),
  pagination: paginationSchema,
});
