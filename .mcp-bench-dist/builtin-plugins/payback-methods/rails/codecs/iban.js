/**
 * IBAN (ISO 13616) through `ibantools`, which tracks the SWIFT IBAN registry: country length, the country's
 * BBAN structure, the MOD 97-10 check digits and, where a country has them, its national check digits.
 * This module only maps its verdicts to rail error codes. Spaces and hyphens are ignored and letters
 * upper-cased, because people copy IBANs in print format.
 */
import { getCountrySpecifications, isSEPACountry, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { fail, pass } from '../common/check.js';
const SPECS = getCountrySpecifications();
export function compactIban(input) {
    return input.replace(/[\s-]/g, '').toUpperCase();
}
/** Validates an IBAN and returns its compact upper-case form. */
export function checkIban(input) {
    const iban = compactIban(input);
    if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) {
        return fail('invalid_format', 'an IBAN is a country code, two check digits and up to 30 letters or digits');
    }
    const country = iban.slice(0, 2);
    // QR-IBANs (Swiss QR bills) are real account identifiers, so they are not singled out here.
    const errors = validateIBAN(iban, { allowQRIBAN: true }).errorCodes;
    if (errors.includes(ValidationErrorsIBAN.NoIBANCountry))
        return fail('invalid_value', `${country} does not use IBANs`);
    if (errors.includes(ValidationErrorsIBAN.WrongBBANLength)) {
        return fail('invalid_length', `a ${country} IBAN has ${SPECS[country]?.chars ?? 'a fixed number of'} characters`);
    }
    if (errors.includes(ValidationErrorsIBAN.WrongBBANFormat) || errors.includes(ValidationErrorsIBAN.ChecksumNotNumber)) {
        return fail('invalid_format', `does not follow the ${country} account number layout`);
    }
    // 00, 01 and 99 can satisfy the remainder yet are never issued (ISO 13616 reserves them).
    const checkDigits = iban.slice(2, 4);
    if (errors.includes(ValidationErrorsIBAN.WrongIBANChecksum) || ['00', '01', '99'].includes(checkDigits)) {
        return fail('invalid_checksum', 'check digits do not match (mod 97)');
    }
    if (errors.length > 0)
        return fail('invalid_checksum', 'national bank or account check digits do not match');
    return pass(iban);
}
/** Whether the IBAN's country belongs to the SEPA scheme (EU/EEA plus CH, GB, MC, SM, VA, AD...). */
export function isSepaIban(iban) {
    return isSEPACountry(iban.slice(0, 2));
}
//# sourceMappingURL=iban.js.map