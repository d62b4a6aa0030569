/**
 * Argentine account keys: CBU (bank accounts) and CVU (payment-provider accounts, first three digits 000).
 * 22 digits in two blocks, each ending in a check digit with weights 7,1,3,9 repeated: block one is bank
 * and branch (7 digits + check), block two the account (13 digits + check).
 */
import { fail, pass } from '../common/check.js';
import { stripSeparators } from '../common/text.js';
const WEIGHTS = [7, 1, 3, 9];
function blockValid(block, weights) {
    const digits = [...block].map(Number);
    const check = digits.pop();
    const sum = digits.reduce((total, digit, index) => total + digit * (weights[index % weights.length] ?? 0), 0);
    return (10 - (sum % 10)) % 10 === check;
}
function checkKey(input, label) {
    const key = stripSeparators(input);
    if (!/^\d+$/.test(key))
        return fail('invalid_format', `a ${label} contains digits only`);
    if (key.length !== 22)
        return fail('invalid_length', `a ${label} has 22 digits`);
    const issuedByProvider = key.startsWith('000');
    if (label === 'CVU' && !issuedByProvider)
        return fail('invalid_value', 'a CVU starts with 000 (use cbu for bank accounts)');
    if (label === 'CBU' && issuedByProvider)
        return fail('invalid_value', 'a number starting with 000 is a CVU');
    // Block two is weighted from the right-aligned pattern 3,9,7,1 (the same cycle, shifted by its length).
    if (!blockValid(key.slice(0, 8), WEIGHTS) || !blockValid(key.slice(8), [3, 9, 7, 1])) {
        return fail('invalid_checksum', `${label} check digits do not match`);
    }
    return pass(key);
}
export function checkCbu(input) {
    return checkKey(input, 'CBU');
}
export function checkCvu(input) {
    return checkKey(input, 'CVU');
}
//# sourceMappingURL=argentina-cbu.js.map