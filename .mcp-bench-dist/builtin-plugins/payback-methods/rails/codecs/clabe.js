/** Mexican CLABE: 18 digits (bank, city, account) whose last digit is a weighted mod-10 check (3, 7, 1). */
import { fail, pass } from '../common/check.js';
import { stripSeparators } from '../common/text.js';
const WEIGHTS = [3, 7, 1];
export function checkClabe(input) {
    const clabe = stripSeparators(input);
    if (!/^\d+$/.test(clabe))
        return fail('invalid_format', 'a CLABE contains digits only');
    if (clabe.length !== 18)
        return fail('invalid_length', 'a CLABE has 18 digits');
    const digits = [...clabe].map(Number);
    const sum = digits.slice(0, 17).reduce((total, digit, index) => total + ((digit * (WEIGHTS[index % 3] ?? 0)) % 10), 0);
    if ((10 - (sum % 10)) % 10 !== digits[17])
        return fail('invalid_checksum', 'CLABE check digit does not match');
    return pass(clabe);
}
//# sourceMappingURL=clabe.js.map