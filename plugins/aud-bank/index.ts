/**
 * An example third-party plugin: the payback rail `au_bank`, an Australian bank account reached by BECS Direct
 * Entry or the NPP (a BSB and an account number), in Australian dollars. It is written against `sdk/` alone and
 * runs sandboxed; payback-methods calls it exactly like its 29 core rails (POST /api/v1/payback-methods with
 * `"type": "au_bank"`). Rules: docs/plugins.md, "The example rail".
 */
import { definePlugin, type PaybackRail, type RailFieldError, type RailFields } from 'wallet-node/sdk/sandbox';

const FIELDS = ['account_name', 'bsb', 'account_number', 'reference'] as const;
/** BECS Direct Entry field widths: the account title is 32 characters, the lodgement reference 18. */
const NAME_MAX = 32;
const REFERENCE_MAX = 18;
/** Printable ASCII: what BECS files carry. */
const BECS_TEXT = /^[\x20-\x7e]+$/;

type Checked = { ok: true; value: string } | { ok: false; error: RailFieldError };

const fail = (field: string, code: string, message: string): Checked => ({ ok: false, error: { field, code, message } });

/** Blank strings count as absent (forms send empty optional inputs); values are trimmed. */
function text(fields: RailFields, field: string, required: boolean): Checked | null {
  const raw = fields[field];
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return required ? fail(field, 'required', `${field} is required`) : null;
  }
  if (typeof raw !== 'string') return fail(field, 'invalid_type', `${field} must be a string`);
  return { ok: true, value: raw.trim() };
}

/** A BSB: six digits, written 062000, 062-000 or 062 000; stored as 062-000, the way Australian banks print it. */
export function checkBsb(input: string): Checked {
  if (!/^\d{3}[- ]?\d{3}$/.test(input)) return fail('bsb', 'invalid_format', 'a BSB is 6 digits, optionally as 062-000');
  const digits = input.replace(/[- ]/g, '');
  if (/^0+$/.test(digits)) return fail('bsb', 'invalid_value', 'BSB 000-000 does not exist');
  return { ok: true, value: `${digits.slice(0, 3)}-${digits.slice(3)}` };
}

/** An account number: 5 to 9 digits (the BECS account field is 9 wide), spaces and dashes ignored. */
export function checkAccountNumber(input: string): Checked {
  const digits = input.replace(/[- ]/g, '');
  if (!/^\d+$/.test(digits)) return fail('account_number', 'invalid_format', 'an account number contains digits only');
  if (digits.length < 5 || digits.length > 9) return fail('account_number', 'invalid_length', 'an Australian account number has 5 to 9 digits');
  if (/^0+$/.test(digits)) return fail('account_number', 'invalid_value', 'an account number is not all zeros');
  return { ok: true, value: digits };
}

function checkBecsText(field: string, input: string, max: number): Checked {
  if (!BECS_TEXT.test(input)) return fail(field, 'invalid_format', `${field} takes printable ASCII only (BECS)`);
  if (input.length > max) return fail(field, 'too_long', `${field} is at most ${max} characters`);
  return { ok: true, value: input };
}

/** Runs every check once: validate reports the errors, normalize keeps the cleaned values. */
function read(input: RailFields, currency: string): { errors: RailFieldError[]; values: RailFields } {
  const errors: RailFieldError[] = [];
  const values: RailFields = {};
  // Any JSON may arrive (the shared rail vectors send null, numbers, arrays): no object is no field at all.
  const fields: RailFields = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
  if (fields !== input) errors.push({ field: '', code: 'invalid_type', message: 'the fields are an object' });
  if (currency.toUpperCase() !== 'AUD') errors.push({ field: 'currency', code: 'unsupported_currency', message: 'au_bank settles in AUD only' });
  for (const key of Object.keys(fields)) {
    if (!(FIELDS as readonly string[]).includes(key)) errors.push({ field: key, code: 'unknown_field', message: `au_bank has no field ${key}` });
  }
  const take = (field: string, required: boolean, check: (v: string) => Checked): void => {
    const got = text(fields, field, required);
    const checked = got && got.ok ? check(got.value) : got;
    if (checked && !checked.ok) errors.push(checked.error);
    else if (checked) values[field] = checked.value;
  };
  take('account_name', true, (v) => checkBecsText('account_name', v, NAME_MAX));
  take('bsb', true, checkBsb);
  take('account_number', true, checkAccountNumber);
  take('reference', false, (v) => checkBecsText('reference', v, REFERENCE_MAX));
  return { errors, values };
}

/** `J. Citizen`: the initial of the first name and the last name. */
function shortName(name: string): string {
  const parts = name.trim().split(/\s+/);
  return parts.length > 1 ? `${parts[0]!.charAt(0)}. ${parts[parts.length - 1]}` : parts[0]!;
}

export const auBank: PaybackRail = {
  id: 'au_bank',
  catalog: () => ({
    id: 'au_bank',
    label: 'Australian bank account (BSB and account number)',
    fields: [
      { name: 'account_name', label: 'Account name', type: 'string', required: true, sensitive: false, max_length: NAME_MAX },
      { name: 'bsb', label: 'BSB', type: 'string', required: true, sensitive: false, max_length: 7 },
      { name: 'account_number', label: 'Account number', type: 'string', required: true, sensitive: true, max_length: 11 },
      { name: 'reference', label: 'Reference', type: 'string', required: false, sensitive: false, max_length: REFERENCE_MAX },
    ],
    currencies: ['AUD'],
  }),
  validate: (fields, currency) => read(fields, currency).errors,
  normalize: (fields, currency) => read(fields, currency).values,
  mask: (fields) => {
    const account = typeof fields.account_number === 'string' ? fields.account_number : '';
    // At most the last four digits, and never more than half of the number.
    const shown = account.slice(account.length - Math.min(4, Math.floor(account.length / 2)));
    const name = typeof fields.account_name === 'string' && fields.account_name ? ` (${shortName(fields.account_name)})` : '';
    return `AU BSB ${String(fields.bsb ?? '')} •••• ${shown}${name}`;
  },
  precision: () => ({ min_unit: 1, exponent: 2 }),
};

export default definePlugin({
  setup(ctx) {
    ctx.contribute('payback_rail', auBank);
  },
});
