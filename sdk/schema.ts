/**
 * Small builders for the JSON schemas of route answers (`RouteDefinition.response`): they document a route in the
 * OpenAPI document and, on a node in test mode, every answer is checked against them. Objects allow fields beyond
 * those listed (an answer may grow), but every listed field is required unless marked `optional`.
 */
import type { JsonSchema } from './routes.js';

/** A decimal amount on the REST wire: a trimmed decimal string, at most 8 decimals (`"5"`, `"-0.1"`). */
export const amountSchema: JsonSchema = { type: 'string', pattern: '^-?\\d+(\\.\\d{1,8})?$' };
export const stringSchema: JsonSchema = { type: 'string' };
export const integerSchema: JsonSchema = { type: 'integer' };
export const numberSchema: JsonSchema = { type: 'number' };
export const booleanSchema: JsonSchema = { type: 'boolean' };
export const dateTimeSchema: JsonSchema = { type: 'string', format: 'date-time' };
export const anySchema: JsonSchema = {};
/** The `data` of a route that answers with a message only. */
export const nullSchema: JsonSchema = { type: 'null' };

/** `schema` or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/** A field an object may leave out. */
export interface Optional {
  optional: JsonSchema;
}
export const optional = (schema: JsonSchema): Optional => ({ optional: schema });

/** An object with these fields: each required, unless wrapped in `optional(...)`. */
export function objectOf(fields: Record<string, JsonSchema | Optional>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    if ('optional' in f && Object.keys(f).length === 1) properties[name] = (f as Optional).optional;
    else {
      properties[name] = f as JsonSchema;
      required.push(name);
    }
  }
  return { type: 'object', required, properties };
}

/** The `pagination` block of paged listings (sdk/paging.ts). */
export const paginationSchema: JsonSchema = objectOf({ total: integerSchema, limit: integerSchema, offset: integerSchema });

/** The `data` of a route that never answers success (a disabled action kept for its error code). */
export const noSuccessSchema: JsonSchema = { not: {}, description: 'This route never succeeds; see its error answers' };

/** The fields `pageOf` (sdk/paging.ts) adds beside a page's rows: `count` on the page, `total`, `limit`, `offset`. */
export const pageFields = { count: integerSchema, total: integerSchema, limit: integerSchema, offset: integerSchema };
