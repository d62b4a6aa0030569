/** The answers of the analytics plugin's routes as JSON schemas (`RouteDefinition.response`). */
import { arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, stringSchema } from '../../sdk/schema.js';

const count = integerSchema;

export const statusResponse = objectOf({
  enabled: booleanSchema,
  decided_by_environment: booleanSchema,
  consent_asked: booleanSchema,
  consent_pending: booleanSchema,
  opt_in_at: nullable(stringSchema),
  collector: nullable(stringSchema),
  node_setup_sent_at: nullable(dateTimeSchema),
  last_submitted: nullable(dateTimeSchema),
  last_event: nullable(stringSchema),
  last_attempt: nullable(objectOf({ at: dateTimeSchema, event: stringSchema, ok: booleanSchema, error: nullable(stringSchema) })),
  heartbeat_installed: booleanSchema,
  next_heartbeat_at: nullable(dateTimeSchema),
});

/** The usage heartbeat of Document 2 ("Analytics payloads"), on the wire. */
const volume = objectOf({
  currency: stringSchema,
  sent_count: count,
  sent_whole: integerSchema,
  sent_frac: integerSchema,
  received_count: count,
  received_whole: integerSchema,
  received_frac: integerSchema,
  relay_count: count,
  relay_whole: integerSchema,
  relay_frac: integerSchema,
});
export const previewResponse = objectOf({
  enabled: booleanSchema,
  window: objectOf({ from: nullable(dateTimeSchema), to: nullable(dateTimeSchema) }),
  payload: objectOf({
    event: { const: 'usage_heartbeat' },
    analytics_id: stringSchema,
    version: stringSchema,
    timestamp: dateTimeSchema,
    period_days: integerSchema,
    metrics: objectOf({
      tx_sent_count: count,
      tx_received_count: count,
      tx_p2p_count: count,
      tx_contact_count: count,
      contact_count: count,
      days_active: count,
      volume_by_currency: arrayOf(volume),
    }),
  }),
});
