/**
 * The answers of the system routes as JSON schemas (`RouteDefinition.response`): Document 1's "System status" and
 * retire/unretire/debug-report fields, and our shapes where it says "not shown" (docs/api/system.md).
 */
import type { JsonSchema } from '../../sdk/index.js';
import { arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, numberSchema, objectOf, optional, stringSchema } from '../../sdk/schema.js';

const message = { message: stringSchema };
const openObject: JsonSchema = { type: 'object' };
const processors = objectOf({ p2p: booleanSchema, transaction: booleanSchema, cleanup: booleanSchema });

export const updateStatusSchema = objectOf({
  available: booleanSchema,
  current_version: stringSchema,
  latest_version: nullable(stringSchema),
  last_checked: nullable(dateTimeSchema),
  source: nullable(stringSchema),
  error: nullable(stringSchema),
});

export const statusResponse = objectOf({
  status: { const: 'operational' },
  version: stringSchema,
  environment: stringSchema,
  database: { enum: ['healthy', 'unhealthy'] },
  processors,
  update: updateStatusSchema,
  analytics: objectOf({ enabled: booleanSchema, consent_pending: booleanSchema, last_submitted: nullable(dateTimeSchema), opt_in_at: nullable(stringSchema) }),
  timestamp: dateTimeSchema,
});

const lag = objectOf({ mean: numberSchema, p99: numberSchema, max: numberSchema });
export const metricsResponse = objectOf({
  uptime_seconds: integerSchema,
  started_at: dateTimeSchema,
  version: stringSchema,
  retired: booleanSchema,
  memory: objectOf({ rss: integerSchema, heap_used: integerSchema, heap_total: integerSchema, external: integerSchema }),
  event_loop_lag_ms: lag,
  http: objectOf({ requests_total: integerSchema, by_status: { type: 'object', additionalProperties: integerSchema } }),
  peer_traffic: objectOf({
    days: arrayOf(objectOf({ day: stringSchema, direction: { enum: ['in', 'out'] }, type: stringSchema, result: stringSchema, count: integerSchema })),
  }),
  jobs: objectOf({
    running: booleanSchema,
    processors,
    states: arrayOf(
      objectOf({ name: stringSchema, processor: nullable(stringSchema), running: booleanSchema, busy: booleanSchema, last_run_at: nullable(dateTimeSchema), last_error: nullable(stringSchema) }),
    ),
  }),
  /** One section per plugin that contributes metrics (`{error: 'unavailable'}` when its provider failed). */
  plugins: { type: 'object', additionalProperties: openObject },
  timestamp: dateTimeSchema,
});

const reportType = { enum: ['limited', 'full'] };
const logEntry = objectOf({ at: stringSchema, level: stringSchema, source: stringSchema, message: stringSchema, request_id: optional(stringSchema), fields: optional(openObject) });
export const debugReportResponse = objectOf({
  report: objectOf({
    report_version: { const: 1 },
    generated_at: dateTimeSchema,
    report_type: reportType,
    description: stringSchema,
    system_info: openObject,
    debug_entries: arrayOf(logEntry),
    debug_entries_count: integerSchema,
    debug_entries_trimmed: optional(integerSchema),
    node_log: objectOf({ file: stringSchema, size_bytes: integerSchema, content: stringSchema, truncated: booleanSchema }),
  }),
  report_type: reportType,
  debug_entries_count: integerSchema,
});
export const debugSubmitResponse = objectOf({ submitted: { const: true }, key: stringSchema, report_type: reportType });

export const shutdownResponse = objectOf({ ...message, processes_terminated: integerSchema, processors });
export const startResponse = objectOf({ ...message, processes_started: integerSchema, processors });
export const restartResponse = objectOf({
  ...message,
  restarted: { const: true },
  duration_ms: integerSchema,
  plugins: arrayOf(objectOf({ name: stringSchema, enabled: booleanSchema, status: stringSchema, error: nullable(stringSchema) })),
});
export const retireResponse = objectOf({ ...message, retired: { const: true }, processes_terminated: integerSchema, tor_access_warning: stringSchema });
export const unretireResponse = objectOf({ ...message, retired: { const: false } });
export const transportsResponse = objectOf({ ...message, transports: { enum: ['up', 'down'] } });
/** `results`: per sync type, what its owner's handler reports. */
export const syncResponse = objectOf({ ...message, type: stringSchema, results: { type: 'object', additionalProperties: openObject }, skipped: arrayOf(stringSchema) });
