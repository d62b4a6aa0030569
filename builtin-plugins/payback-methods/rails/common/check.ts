/**
 * The outcome of checking one value: either the normalised value or a stable error code with a message.
 * Codecs return this instead of throwing so a rail can report every failing field in one pass.
 */

/** Stable machine codes a rail puts in `RailFieldError.code`; clients branch on these, so never rename one. */
export type ErrorCode =
  | 'required'
  | 'invalid_type'
  | 'invalid_format'
  | 'invalid_length'
  | 'invalid_checksum'
  | 'invalid_value'
  | 'wrong_network'
  | 'unsupported_currency'
  | 'not_allowed'
  | 'too_long'
  | 'unknown_field';

export type Check<T = string> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string };

export function pass<T>(value: T): Check<T> {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string): { ok: false; code: ErrorCode; message: string } {
  return { ok: false, code, message };
}
