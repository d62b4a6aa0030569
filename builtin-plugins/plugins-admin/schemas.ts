/**
 * The answers of the plugin routes as JSON schemas (`RouteDefinition.response`): Document 1's "Plugin" resource and
 * our shapes where it says "not shown" (docs/api/keys-and-plugins.md).
 */
import { arrayOf, booleanSchema, integerSchema, nullable, objectOf, optional, pageFields, stringSchema } from '../../sdk/schema.js';

const message = { message: stringSchema };
const signature = objectOf({
  status: { enum: ['trusted', 'untrusted', 'unsigned', 'invalid'] },
  signer: nullable(stringSchema),
  public_key: nullable(stringSchema),
  reason: nullable(stringSchema),
});
const limits = objectOf({ memory_mb: integerSchema, cpu_ms: integerSchema, store_kb: integerSchema, store_keys: integerSchema });
const sandbox = objectOf({
  entry: stringSchema,
  permissions: arrayOf(stringSchema),
  scopes: arrayOf(stringSchema),
  public_route_limits: arrayOf(objectOf({ path: stringSchema, method: stringSchema, rate_per_minute: integerSchema, max_body_bytes: integerSchema })),
  contributes: { type: 'object', additionalProperties: arrayOf(stringSchema) },
  signature,
  development_mode: booleanSchema,
  limits,
  store: objectOf({ bytes: integerSchema, keys: integerSchema }),
  settings: { type: 'object' },
  failures: integerSchema,
  isolate: { enum: ['running', 'restarting', 'stopped'] },
});
const pluginSchema = objectOf({
  name: stringSchema,
  version: stringSchema,
  enabled: booleanSchema,
  status: { enum: ['active', 'disabled', 'failed', 'restart_pending'] },
  license: nullable(stringSchema),
  author: nullable(stringSchema),
  homepage: nullable(stringSchema),
  has_changelog: booleanSchema,
  description: nullable(stringSchema),
  builtin: booleanSchema,
  essential: booleanSchema,
  public_routes: arrayOf(stringSchema),
  public_routes_enabled: booleanSchema,
  error: nullable(stringSchema),
  sandbox: optional(sandbox),
  restart_required: booleanSchema,
  public_routes_served: booleanSchema,
});

export const listResponse = objectOf({ plugins: arrayOf(pluginSchema), ...pageFields, public_routes_ceiling: { enum: ['allow', 'deny'] } });
export const pluginResponse = objectOf({ plugin: pluginSchema });
/** A development reload: the plugin as it runs now and how long the swap took. */
export const devLoadedResponse = objectOf({ plugin: pluginSchema, reload_ms: integerSchema });
/** Enable and disable; enabling a sandboxed plugin also tells what it may reach. */
export const toggledResponse = objectOf({
  plugin: stringSchema,
  enabled: booleanSchema,
  status: stringSchema,
  restart_required: booleanSchema,
  ...message,
  public_routes_gated: optional({ const: true }),
  public_routes_message: optional(stringSchema),
  permissions: optional(arrayOf(stringSchema)),
  signature: optional(signature),
  permissions_message: optional(stringSchema),
});
export const publicRoutesResponse = objectOf({ plugin: stringSchema, public_routes_enabled: booleanSchema, public_routes: arrayOf(stringSchema), served: booleanSchema, ...message });
export const limitsResponse = objectOf({ plugin: stringSchema, limits, restart_required: { const: true }, ...message });
export const settingsResponse = objectOf({ plugin: stringSchema, settings: { type: 'object' }, ...message });
export const deletedResponse = objectOf({ plugin: stringSchema, deleted: { const: true }, ...message });
