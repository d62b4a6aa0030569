/**
 * BIC / SWIFT codes (ISO 9362): 4-letter institution, 2-letter country, 2-character location, optional
 * 3-character branch. Shape and country come from `ibantools`; the checks before it only give finer codes.
 */
import { extractBIC, validateBIC, ValidationErrorsBIC } from 'ibantools';
import { fail, pass } from '../common/check.js';
export function checkBic(input) {
    const bic = input.replace(/\s/g, '').toUpperCase();
    if (!/^[A-Z0-9]+$/.test(bic))
        return fail('invalid_format', 'a BIC contains letters and digits only');
    if (bic.length !== 8 && bic.length !== 11)
        return fail('invalid_length', 'a BIC has 8 or 11 characters');
    const errors = validateBIC(bic).errorCodes;
    if (errors.includes(ValidationErrorsBIC.WrongBICFormat)) {
        return fail('invalid_format', 'a BIC starts with a 4-letter institution code and a 2-letter country code');
    }
    if (errors.length > 0)
        return fail('invalid_value', `${bic.slice(4, 6)} is not a country code`);
    // A location code ending in 0 marks a test BIC that the live network never routes to.
    if (extractBIC(bic).testBIC)
        return fail('invalid_value', 'this is a test BIC (location code ends in 0)');
    return pass(bic);
}
//# sourceMappingURL=bic.js.map