import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../sdk/index.js';
import { lookup } from '../../sdk/lookup.js';
import { ExactNumber } from '../../sdk/money.js';
import { ApiError } from '../errors.js';

const bodyAjv = new Ajv({ allErrors: false, strict: false });
const queryAjv = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true });

bodyAjv.addKeyword({ keyword: 'exactNumber', schemaType: 'boolean', errors: false, validate: (_: boolean, data: unknown) => data instanceof ExactNumber });

export type Validator = (value: unknown) => void;

function fieldOf(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties') return String(err.params.additionalProperty);
  return err.instancePath.split('/').filter(Boolean)[0] ?? '';
}

const SUBSCHEMA = ['items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUBSCHEMA_LISTS = ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/**
 * A body schema that also takes an `ExactNumber` (a JSON number no double holds) wherever it takes both a number
 * and a string: such a field is parsed from text by its handler (an amount), which reads the exact number the same
 * way. A field typed only `number` or `integer` still refuses it, so its handler never meets one; a field the
 * schema leaves untyped reaches its handler as the object, which the amount parsers read and `typeof` checks refuse.
 */
function admitExactNumbers(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const copy: Record<string, unknown> = { ...schema };
  for (const key of SUBSCHEMA) {
    if (isObject(copy[key])) copy[key] = admitExactNumbers(copy[key]);
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(admitExactNumbers);
  }
  for (const key of SUBSCHEMA_MAPS) {
    if (isObject(copy[key])) {
      copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([name, sub]) => [name, admitExactNumbers(sub)]));
    }
  }
  const types: unknown[] = Array.isArray(copy.type) ? copy.type : [copy.type];
  return types.includes('number') && types.includes('string') ? { anyOf: [copy, { exactNumber: true }] } : copy;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Compiled validators by Ajv instance and schema text. Every node in a process (tests, simulations) and every plugin
 * restart declares the same route schemas as fresh objects, which Ajv's own cache (keyed by object) cannot match: one
 * compilation per schema text serves them all. A validator keeps no state between calls but `errors`, which is read
 * right after the call it belongs to.
 */
const validators = new WeakMap<Ajv, Map<string, ValidateFunction>>();
function compiled(ajv: Ajv, schema: JsonSchema, prepare: () => JsonSchema): ValidateFunction {
  let byText = validators.get(ajv);
  if (!byText) validators.set(ajv, (byText = new Map()));
  const text = JSON.stringify(schema);
  let validate = byText.get(text);
  if (!validate) byText.set(text, (validate = ajv.compile(prepare())));
  return validate;
}

const responseAjv = new Ajv({ allErrors: true, strict: false });
responseAjv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

/**
 * A response schema with its objects closed: a field the schema does not name is a mismatch. The OpenAPI document
 * keeps the schemas open (a client must take fields added later); the checks close them, so that an answer never
 * carries a field its document leaves out. The members of an `allOf` stay open: each describes only part of the object.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'allOf') out[k] = v;
    else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, field]) => [name, closed(field)]));
    else out[k] = closed(v);
  }
  if (isObject(out.properties) && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

/**
 * Compiles a route's response schema into a check of the `data` it answers (as JSON carries it): null when it matches,
 * else the mismatches in words. A node in test mode runs it on every answer (contract tests for free).
 */
export function compileResponseCheck(schema: JsonSchema): (data: unknown) => string | null {
  const validate = compiled(responseAjv, schema, () => closed(schema) as JsonSchema);
  return (data) => {
    if (validate(data === undefined ? null : JSON.parse(JSON.stringify(data)))) return null;
    return validate
      .errors!.map((e) =>
        e.keyword === 'additionalProperties'
          ? `data${e.instancePath} has ${String(e.params.additionalProperty)}, which the schema does not name`
          : `data${e.instancePath} ${e.message ?? 'is invalid'}`,
      )
      .join('; ');
  };
}

/** Compiles a route schema into a check that throws the spec's error codes. */
export function compileValidator(
  schema: JsonSchema,
  where: 'body' | 'query',
  errorCodes: Record<string, string> = {},
  fallbackCode = 'validation_error',
): Validator {
  const validate = where === 'body' ? compiled(bodyAjv, schema, () => admitExactNumbers(schema) as JsonSchema) : compiled(queryAjv, schema, () => schema);
  return (value) => {
    if (validate(value)) return;
    const err = validate.errors![0]!;
    if (err.keyword === 'required') {
      const field = String(err.params.missingProperty);
      throw new ApiError('missing_field', 400, `Missing required field: ${field}`, { field });
    }
    const field = fieldOf(err);
    const code = lookup(errorCodes, field) ?? fallbackCode;
    const message = field ? `Invalid ${field}: ${err.message ?? 'invalid value'}` : `Invalid ${where}: ${err.message ?? 'invalid value'}`;
    throw new ApiError(code, 400, message, field ? { field } : undefined);
  };
}
