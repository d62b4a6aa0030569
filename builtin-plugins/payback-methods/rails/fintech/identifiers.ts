/** Identifier checks of payment apps: handles, tags and national phone ranges. */

import { fail, pass, type Check } from '../common/check.js';
import { checkEmail } from '../codecs/email.js';
import { checkE164, checkNationalPhone, NANP } from '../codecs/phone.js';

export interface HandleRule {
  /** Leading sigil users type and apps display (`@`, `$`); stripped for storage. */
  sigil?: string;
  chars: RegExp;
  /** Words for `chars` in error messages ("letters and digits"). */
  allowed: string;
  min: number;
  max: number;
  description: string;
  needsLetter?: boolean;
  lowerCase?: boolean;
}

export function checkHandle(input: string, rule: HandleRule): Check<string> {
  const bare = rule.sigil && input.startsWith(rule.sigil) ? input.slice(rule.sigil.length) : input;
  if (!rule.chars.test(bare)) return fail('invalid_format', `${rule.description} uses ${rule.allowed} only`);
  if (bare.length < rule.min || bare.length > rule.max) {
    return fail('invalid_length', `${rule.description} has ${rule.min} to ${rule.max} characters`);
  }
  if (rule.needsLetter && !/[A-Za-z]/.test(bare)) return fail('invalid_format', `${rule.description} contains at least one letter`);
  return pass(rule.lowerCase ? bare.toLowerCase() : bare);
}

export const email = (value: string): Check<string> => checkEmail(value);
export const anyPhone = (value: string): Check<string> => checkE164(value);
export const northAmericanPhone = (value: string): Check<string> =>
  checkNationalPhone(value, NANP, 'a North American number (+1 and 10 digits)');

/** Brazilian mobile numbers: +55, two-digit area code (no zeros), 9 and eight digits. */
export const brazilianMobile = (value: string): Check<string> =>
  checkNationalPhone(value, /^\+55[1-9]{2}9\d{8}$/, 'a Brazilian mobile number (+55, area code, 9 digits starting with 9)');

export const mexicanPhone = (value: string): Check<string> =>
  checkNationalPhone(value, /^\+52\d{10}$/, 'a Mexican number (+52 and 10 digits)');
