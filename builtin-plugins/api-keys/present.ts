import type { ApiKeyRecord } from '../../sdk/index.js';
import { arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, stringSchema } from '../../sdk/schema.js';

/** A key as every key route shows it: the stored record (never the secret) plus whether it has expired. */
export interface KeyView extends ApiKeyRecord {
  expired: boolean;
}

export const SECRET_WARNING = 'Save this secret now: it will not be shown again.';

export function keyView(record: ApiKeyRecord, now: number): KeyView {
  const expiresAt = record.expires_at ? Date.parse(record.expires_at) : null;
  return {
    key_id: record.key_id,
    name: record.name,
    permissions: [...record.permissions],
    rate_limit_per_minute: record.rate_limit_per_minute,
    enabled: record.enabled,
    expired: expiresAt !== null && expiresAt <= now,
    created_at: record.created_at,
    last_used_at: record.last_used_at,
    expires_at: record.expires_at,
  };
}

const keyFields = {
  key_id: stringSchema,
  name: stringSchema,
  permissions: arrayOf(stringSchema),
  rate_limit_per_minute: nullable(integerSchema),
  enabled: booleanSchema,
  created_at: dateTimeSchema,
  expires_at: nullable(dateTimeSchema),
};
/** The answers of the key routes, as JSON schemas (`RouteDefinition.response`). */
export const keySchema = objectOf({ ...keyFields, expired: booleanSchema, last_used_at: nullable(dateTimeSchema) });
export const keyListResponse = objectOf({ keys: arrayOf(keySchema), count: integerSchema, total: integerSchema, limit: integerSchema, offset: integerSchema });
export const keyResponse = objectOf({ key: keySchema });
export const createdKeyResponse = objectOf({ ...keyFields, secret: stringSchema, warning: stringSchema });
export const deletedKeyResponse = objectOf({ message: stringSchema, key_id: stringSchema });
export const toggledKeyResponse = objectOf({ message: stringSchema, key: keySchema });
