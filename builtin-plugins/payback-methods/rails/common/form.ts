/**
 * Reads a rail's raw `fields` object once and produces both the error list (for `validate`) and the cleaned
 * values (for `normalize`). Keeping both in one pass guarantees that what validate accepted is exactly what
 * normalize stores.
 */

import type { RailFieldError } from '../../../../sdk/payback-rail.js';
import { fail as failed, pass, type Check, type ErrorCode } from './check.js';
import { checkFreeText, isPlainObject, type FreeTextRule } from './text.js';

export interface StringOptions {
  required: boolean;
  check?: (value: string) => Check<string>;
}

export interface TextOptions extends FreeTextRule {
  required: boolean;
}

export interface IntegerOptions {
  required: boolean;
  min: bigint;
  max: bigint;
  /** uint64 values exceed JavaScript's safe integers, so those are stored as decimal strings. */
  storeAs: 'number' | 'string';
}

export class FieldReader {
  readonly errors: RailFieldError[] = [];
  readonly normalized: Record<string, unknown> = {};
  private readonly source: Readonly<Record<string, unknown>>;

  constructor(fields: unknown) {
    if (isPlainObject(fields)) {
      this.source = fields;
    } else {
      this.source = {};
      this.fail('fields', 'invalid_type', 'fields must be an object');
    }
  }

  /** Records an error; a field keeps only its first error so clients get one message per input. */
  fail(field: string, code: ErrorCode, message: string): void {
    if (!this.hasError(field)) this.errors.push({ field, code, message });
  }

  hasError(field: string): boolean {
    return this.errors.some((error) => error.field === field);
  }

  raw(name: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.source, name) ? this.source[name] : undefined;
  }

  /** Blank strings count as absent: forms submit empty inputs for untouched optional fields. */
  present(name: string): boolean {
    const value = this.raw(name);
    if (value === undefined || value === null) return false;
    return typeof value !== 'string' || value.trim() !== '';
  }

  string(name: string, options: StringOptions): string | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      if (options.required) this.fail(name, 'required', `${name} is required`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(name, 'invalid_type', `${name} must be a string`);
      return undefined;
    }
    const result = options.check ? options.check(value.trim()) : pass(value.trim());
    if (!result.ok) {
      this.fail(name, result.code, `${name}: ${result.message}`);
      return undefined;
    }
    this.normalized[name] = result.value;
    return result.value;
  }

  text(name: string, options: TextOptions): string | undefined {
    return this.string(name, { required: options.required, check: (value) => checkFreeText(value, options) });
  }

  choice<T extends string>(name: string, options: readonly T[], required: boolean): T | undefined {
    const value = this.string(name, {
      required,
      check: (candidate) =>
        (options as readonly string[]).includes(candidate)
          ? pass(candidate)
          : failed('invalid_value', `must be one of ${options.join(', ')}`),
    });
    return value as T | undefined;
  }

  integer(name: string, options: IntegerOptions): bigint | undefined {
    const value = this.raw(name);
    if (!this.present(name)) {
      if (options.required) this.fail(name, 'required', `${name} is required`);
      return undefined;
    }
    let parsed: bigint;
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) {
        this.fail(name, 'invalid_format', `${name} must be a whole number`);
        return undefined;
      }
      parsed = BigInt(value);
    } else if (typeof value === 'string') {
      const digits = value.trim();
      if (!/^\d{1,20}$/.test(digits)) {
        this.fail(name, 'invalid_format', `${name} must contain digits only`);
        return undefined;
      }
      parsed = BigInt(digits);
    } else {
      this.fail(name, 'invalid_type', `${name} must be an integer or a string of digits`);
      return undefined;
    }
    if (parsed < options.min || parsed > options.max) {
      this.fail(name, 'invalid_value', `${name} must be between ${options.min} and ${options.max}`);
      return undefined;
    }
    this.normalized[name] = options.storeAs === 'number' ? Number(parsed) : parsed.toString();
    return parsed;
  }

  /** A field that this combination of inputs does not permit (a token contract on a native asset). */
  forbid(name: string, reason: string): void {
    if (this.present(name)) this.fail(name, 'not_allowed', `${name} is not allowed ${reason}`);
  }

  /** Extra keys are refused so typos (`ibna`) and stale client fields surface instead of being stored. */
  only(allowed: readonly string[]): void {
    for (const key of Object.keys(this.source)) {
      if (!allowed.includes(key)) this.fail(key, 'unknown_field', `${key} is not a field of this rail`);
    }
  }

  currencyError(message: string): void {
    this.fail('currency', 'unsupported_currency', message);
  }

  /** Keeps a value the rail read by other means (arrays, nested rows) in the normalised output. */
  keep(name: string, value: unknown): void {
    this.normalized[name] = value;
  }
}
