import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../sdk/index.js';
import { ApiError } from '../errors.js';

const bodyAjv = new Ajv({ allErrors: false, strict: false });
const queryAjv = new Ajv({ allErrors: false, strict: false, coerceTypes: true, useDefaults: true });

export type Validator = (value: unknown) => void;

function fieldOf(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties') return String(err.params.additionalProperty);
  return err.instancePath.split('/').filter(Boolean)[0] ?? '';
}

/** Compiles a route schema into a check that throws the spec's error codes. */
export function compileValidator(
  schema: JsonSchema,
  where: 'body' | 'query',
  errorCodes: Record<string, string> = {},
  fallbackCode = 'validation_error',
): Validator {
  const validate: ValidateFunction = (where === 'body' ? bodyAjv : queryAjv).compile(schema);
  return (value) => {
    if (validate(value)) return;
    const err = validate.errors![0]!;
    if (err.keyword === 'required') {
      const field = String(err.params.missingProperty);
      throw new ApiError('missing_field', 400, `Missing required field: ${field}`, { field });
    }
    const field = fieldOf(err);
    const code = errorCodes[field] ?? fallbackCode;
    const message = field ? `Invalid ${field}: ${err.message ?? 'invalid value'}` : `Invalid ${where}: ${err.message ?? 'invalid value'}`;
    throw new ApiError(code, 400, message, field ? { field } : undefined);
  };
}
