/**
 * Brazilian tax ids used as Pix keys: CPF (11 digits, people) and CNPJ (14 digits, companies), each ending
 * in two mod-11 check digits. Punctuation (529.982.247-25, 11.222.333/0001-81) is removed first.
 */
import { fail, pass } from '../common/check.js';
import { stripSeparators } from '../common/text.js';
/** Mod-11 check digit over `digits` with the given weights; remainders 0 and 1 give 0. */
function mod11Digit(digits, weights) {
    const sum = digits.reduce((total, digit, index) => total + digit * (weights[index] ?? 0), 0);
    const remainder = sum % 11;
    return remainder < 2 ? 0 : 11 - remainder;
}
function checkDigits(input, length, label, weights1, weights2) {
    const value = stripSeparators(input);
    if (!/^\d+$/.test(value))
        return fail('invalid_format', `a ${label} contains digits only`);
    if (value.length !== length)
        return fail('invalid_length', `a ${label} has ${length} digits`);
    // Repeated digits (000.000.000-00, 111...) pass the arithmetic but are never issued.
    if (/^(\d)\1+$/.test(value))
        return fail('invalid_value', `a ${label} cannot repeat one digit`);
    const digits = [...value].map(Number);
    const first = mod11Digit(digits.slice(0, length - 2), weights1);
    const second = mod11Digit([...digits.slice(0, length - 2), first], weights2);
    if (digits[length - 2] !== first || digits[length - 1] !== second)
        return fail('invalid_checksum', `${label} check digits do not match`);
    return pass(value);
}
export function checkCpf(input) {
    return checkDigits(input, 11, 'CPF', [10, 9, 8, 7, 6, 5, 4, 3, 2], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
}
export function checkCnpj(input) {
    return checkDigits(input, 14, 'CNPJ', [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
}
//# sourceMappingURL=brazil-tax-id.js.map