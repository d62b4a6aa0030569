/** Identifier checks of payment apps: handles, tags and national phone ranges. */
import { fail, pass } from '../common/check.js';
import { checkEmail } from '../codecs/email.js';
import { checkE164, checkNationalPhone, NANP } from '../codecs/phone.js';
export function checkHandle(input, rule) {
    const bare = rule.sigil && input.startsWith(rule.sigil) ? input.slice(rule.sigil.length) : input;
    if (!rule.chars.test(bare))
        return fail('invalid_format', `${rule.description} uses ${rule.allowed} only`);
    if (bare.length < rule.min || bare.length > rule.max) {
        return fail('invalid_length', `${rule.description} has ${rule.min} to ${rule.max} characters`);
    }
    if (rule.needsLetter && !/[A-Za-z]/.test(bare))
        return fail('invalid_format', `${rule.description} contains at least one letter`);
    return pass(rule.lowerCase ? bare.toLowerCase() : bare);
}
export const email = (value) => checkEmail(value);
export const anyPhone = (value) => checkE164(value);
export const northAmericanPhone = (value) => checkNationalPhone(value, NANP, 'a North American number (+1 and 10 digits)');
/** Brazilian mobile numbers: +55, two-digit area code (no zeros), 9 and eight digits. */
export const brazilianMobile = (value) => checkNationalPhone(value, /^\+55[1-9]{2}9\d{8}$/, 'a Brazilian mobile number (+55, area code, 9 digits starting with 9)');
export const mexicanPhone = (value) => checkNationalPhone(value, /^\+52\d{10}$/, 'a Mexican number (+52 and 10 digits)');
//# sourceMappingURL=identifiers.js.map