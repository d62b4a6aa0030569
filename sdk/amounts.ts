/**
 * Input rules for payment-shaped requests: amounts, currencies, descriptions. Each throws the spec's error code as
 * an ApiError.
 */
import { ApiError } from './replies.js';
import type { PluginContext } from './context.js';
import { MAX_AMOUNT, formatMinor, parseAmount, type Minor } from './money.js';
import { normalizeCurrency, sameCurrency } from './currency.js';

export const MAX_DESCRIPTION = 255;

/**
 * A payment amount from a JSON number or a decimal string: surrounding spaces trimmed (" 100 " is 100), exponent
 * notation accepted when it names at most 8 decimals ("1e2" is 100), minimum 0.00000001, maximum MAX_AMOUNT.
 */
export function checkAmount(input: unknown, field = 'amount'): Minor {
  const r = parseAmount(input);
  if (r.ok) return r.value;
  const why: Record<typeof r.reason, string> = {
    not_a_number: 'must be a decimal number (a JSON number or a string such as "10.5")',
    negative: 'must be greater than zero',
    zero: 'must be greater than zero (minimum 0.00000001)',
    too_precise: 'must have at most 8 decimals (minimum 0.00000001)',
    too_large: `must be at most ${formatMinor(MAX_AMOUNT)}`,
  };
  throw new ApiError('invalid_amount', 400, `${field} ${why[r.reason]}`, { field });
}

/** A well-formed code in the allowed list; returns the list's spelling. */
export function checkCurrency(ctx: PluginContext, input: unknown, field = 'currency'): string {
  const code = typeof input === 'string' ? normalizeCurrency(input) : null;
  if (!code) throw new ApiError('invalid_currency', 400, `${field} must be 3-10 letters or digits`, { field });
  const allowed = ctx.settings.get<string[]>('allowedCurrencies') ?? [];
  const match = allowed.find((c) => sameCurrency(c, code));
  if (!match) {
    throw new ApiError('invalid_currency', 400, `Currency ${code} is not in the allowed currencies (${allowed.join(', ')})`, { field });
  }
  return match;
}

/** At most 255 characters (code points); absent, empty or whitespace-only means none. */
export function checkDescription(input: unknown, field = 'description', code = 'invalid_description'): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'string') throw new ApiError(code, 400, `${field} must be a string`, { field });
  if ([...input].length > MAX_DESCRIPTION) throw new ApiError(code, 400, `${field} must be at most ${MAX_DESCRIPTION} characters`, { field });
  return input.trim() === '' ? null : input;
}
