/**
 * Input rules of the contacts plugin (Document 1, "Contacts"): names, addresses, hashes, currency codes, fees,
 * credit limits and descriptions. Every check throws the spec's error code as an `ApiError` (400) or returns the
 * canonical value.
 */
import { Decimal } from 'decimal.js';
import { ApiError } from '../../sdk/index.js';
import { ExactNumber } from '../../sdk/money.js';
import { hasUnsafeText } from '../../sdk/text.js';
import { MAX_CREDIT, formatMinor, parseDecimal, type Minor } from '../../sdk/money.js';
import { normalizeAddress } from '../../sdk/address.js';
import { normalizeCurrency, sameCurrency } from '../../sdk/currency.js';

export const NAME_RULE = /^[A-Za-z0-9 _-]{2,50}$/;
export const HASH_RULE = /^[0-9a-fA-F]{64}$/;
export const MAX_DESCRIPTION = 255;
/** Fee percentages keep at most this many decimals (the same precision as amounts). */
export const FEE_DECIMALS = 8;

const bad = (code: string, message: string, field?: string): ApiError =>
  new ApiError(code, 400, message, field ? { field } : undefined);

/**
 * 2-50 characters: letters, digits, spaces, dashes, underscores; not blank. Returns the trimmed name. Control,
 * bidirectional and zero-width characters are refused before trimming: trim() silently drops a BOM, a tab or a
 * line separator at the edges, and a name that arrived with them was not typed by a person.
 */
export function checkName(input: unknown, field = 'name'): string {
  if (typeof input !== 'string') throw bad('invalid_name', `${field} must be a string of 2-50 characters`, field);
  if (hasUnsafeText(input)) throw bad('invalid_name', `${field} must not contain control, bidirectional or zero-width characters`, field);
  const name = input.trim();
  if (!NAME_RULE.test(name)) {
    throw bad('invalid_name', `${field} must be 2-50 characters: letters, digits, spaces, dashes or underscores`, field);
  }
  return name;
}

/** http(s)://host[:port] or a v3 onion; returns the canonical form. */
export function checkAddress(input: unknown, field = 'address'): string {
  const normalized = typeof input === 'string' ? normalizeAddress(input) : null;
  if (!normalized) {
    throw bad('invalid_address', `${field} must be an http://host[:port], https://host[:port] or v3 .onion address`, field);
  }
  return normalized;
}

export type AddressKind = 'http' | 'https' | 'tor';

export const kindOf = (normalized: string): AddressKind =>
  normalized.startsWith('https://') ? 'https' : normalized.startsWith('http://') ? 'http' : 'tor';

/** 64 hex characters; returns it lower-cased. */
export function checkHash(input: unknown, field = 'hash'): string {
  if (typeof input !== 'string' || !HASH_RULE.test(input)) {
    throw bad('invalid_hash', `${field} must be a 64-character hex public key hash`, field);
  }
  return input.toLowerCase();
}

/** A well-formed code in its stored form (fiat upper-cased, tokens as typed); not checked against the allowed list. */
export function checkCurrencyCode(input: unknown, field = 'currency'): string {
  const code = typeof input === 'string' ? normalizeCurrency(input) : null;
  if (!code) throw bad('invalid_currency', `${field} must be 3-10 letters or digits`, field);
  return code;
}

/** The allowed-list entry matching a code case-insensitively, or null. */
export function allowedMatch(code: string, allowed: readonly string[]): string | null {
  return allowed.find((c) => sameCurrency(c, code)) ?? null;
}

/** A well-formed code that is in the allowed list; returns the list's spelling. */
export function checkAllowedCurrency(input: unknown, allowed: readonly string[], field = 'currency'): string {
  const code = checkCurrencyCode(input, field);
  const match = allowedMatch(code, allowed);
  if (!match) {
    throw bad('invalid_currency', `Currency ${code} is not in the allowed currencies (${allowed.join(', ')})`, field);
  }
  return match;
}

/** 0-100 with at most 8 decimals, as a JSON number or a numeric string; returns the canonical decimal text. */
export function checkFee(input: unknown, field = 'fee_percent'): string {
  let d: Decimal;
  try {
    // One rule for numbers and strings alike (docs/decisions.md, exact numbers): exponents allowed, the value decides.
    const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input instanceof ExactNumber ? input.text : input;
    if (typeof text === 'string' && /^\s*\+?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i.test(text)) d = new Decimal(text.trim());
    else throw new Error('not a number');
  } catch {
    throw bad('invalid_fee', `${field} must be a number from 0 to 100`, field);
  }
  if (d.isNegative() || d.gt(100)) throw bad('invalid_fee', `${field} must be between 0 and 100`, field);
  if (d.decimalPlaces() > FEE_DECIMALS) throw bad('invalid_fee', `${field} must have at most ${FEE_DECIMALS} decimals`, field);
  return d.toFixed();
}

/** >= 0, at most 8 decimals, at most MAX_CREDIT; JSON number or decimal string. */
export function checkCredit(input: unknown, field = 'credit_limit'): Minor {
  const r = parseDecimal(input);
  if (!r.ok) {
    const why =
      r.reason === 'negative'
        ? 'must not be negative'
        : r.reason === 'too_precise'
          ? 'must have at most 8 decimals'
          : 'must be a decimal number';
    throw bad('invalid_credit', `${field} ${why}`, field);
  }
  if (r.value > MAX_CREDIT) throw bad('invalid_credit', `${field} must be at most ${formatMinor(MAX_CREDIT)}`, field);
  return r.value;
}

/** At most 255 characters; empty or whitespace-only means none. */
export function checkDescription(input: unknown, field = 'description'): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'string') throw bad('invalid_description', `${field} must be a string`, field);
  if ([...input].length > MAX_DESCRIPTION) throw bad('invalid_description', `${field} must be at most ${MAX_DESCRIPTION} characters`, field);
  return input.trim() === '' ? null : input;
}

/** A decimal the settings store holds as text or number (defaultCreditLimit) as minor units; 0 when unusable. */
export function settingCredit(value: unknown): Minor {
  const r = parseDecimal(value);
  return r.ok && r.value <= MAX_CREDIT ? r.value : 0n;
}
