/**
 * Phone numbers in E.164 (`+` country code and subscriber number, 15 digits at most). Spaces, dots, hyphens
 * and parentheses are removed first, so `+44 (20) 7946-0958` is read as `+442079460958`.
 */
import { fail, pass } from '../common/check.js';
import { stripSeparators } from '../common/text.js';
export function checkE164(input) {
    const phone = stripSeparators(input);
    if (!/^\+\d+$/.test(phone))
        return fail('invalid_format', 'a phone number is + followed by the country code and number');
    if (!/^\+[1-9]\d{6,14}$/.test(phone))
        return fail('invalid_length', 'an E.164 number has 7 to 15 digits');
    return pass(phone);
}
/** E.164 plus a national pattern (mobile ranges of one country), described for the error message. */
export function checkNationalPhone(input, pattern, description) {
    const generic = checkE164(input);
    if (!generic.ok)
        return generic;
    return pattern.test(generic.value) ? generic : fail('invalid_format', `must be ${description}`);
}
/** North American numbers (+1, NANP): area code and exchange both start with 2-9. */
export const NANP = /^\+1[2-9]\d{2}[2-9]\d{6}$/;
//# sourceMappingURL=phone.js.map