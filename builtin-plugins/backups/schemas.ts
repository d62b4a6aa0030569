/** The answers of the backup routes as JSON schemas (`RouteDefinition.response`), Document 1's "Backups" fields. */
import { arrayOf, booleanSchema, dateTimeSchema, integerSchema, nullable, objectOf, optional, stringSchema } from '../../sdk/schema.js';

const message = { message: stringSchema };
const fileSchema = objectOf({ filename: stringSchema, size: integerSchema, size_human: stringSchema, created_at: dateTimeSchema });

export const statusResponse = objectOf({
  enabled: booleanSchema,
  backup_count: integerSchema,
  retention_count: integerSchema,
  last_backup: nullable(dateTimeSchema),
  last_backup_file: nullable(stringSchema),
  backup_directory: stringSchema,
  next_scheduled: nullable(dateTimeSchema),
});
export const listResponse = objectOf({ backups: arrayOf(fileSchema), count: integerSchema });
export const createdResponse = objectOf({ ...message, filename: stringSchema, size: integerSchema, path: stringSchema });
export const verifyResponse = objectOf({
  filename: stringSchema,
  valid: booleanSchema,
  version: nullable({ type: ['integer', 'string'] }),
  created_at: nullable(dateTimeSchema),
  reason: optional(stringSchema),
});
export const removedResponse = objectOf({ ...message, filename: stringSchema });
export const toggledResponse = objectOf({ ...message, enabled: booleanSchema });
export const cleanupResponse = objectOf({ ...message, deleted_count: integerSchema, deleted_files: arrayOf(stringSchema) });
