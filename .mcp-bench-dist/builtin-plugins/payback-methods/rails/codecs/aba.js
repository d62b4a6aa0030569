/** US ABA routing transit numbers: nine digits with the 3-7-1 weighted checksum. */
import { fail, pass } from '../common/check.js';
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];
/**
 * The first two digits name a Federal Reserve district: 00 (US government), 01-12 (banks), 21-32 (thrifts),
 * 61-72 (electronic transactions) and 80 (traveller's cheques). Anything else is not a routing number even
 * when the checksum happens to work.
 */
function validPrefix(prefix) {
    return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
}
export function checkRoutingNumber(input) {
    const digits = input.replace(/\s/g, '');
    if (!/^\d+$/.test(digits))
        return fail('invalid_format', 'a routing number contains digits only');
    if (digits.length !== 9)
        return fail('invalid_length', 'a routing number has 9 digits');
    if (/^0+$/.test(digits) || !validPrefix(Number(digits.slice(0, 2)))) {
        return fail('invalid_value', 'not a Federal Reserve routing prefix');
    }
    const sum = [...digits].reduce((total, digit, index) => total + Number(digit) * (WEIGHTS[index] ?? 0), 0);
    if (sum % 10 !== 0)
        return fail('invalid_checksum', 'routing number checksum does not match');
    return pass(digits);
}
//# sourceMappingURL=aba.js.map