/**
 * Singapore NRIC / FIN: prefix S, T (citizens and PRs), F, G (foreigners) or M (foreigners from 2022),
 * seven digits and a check letter. Weights 2,7,6,5,4,3,2; T and G add 4, M adds 3; the remainder mod 11
 * picks the letter from the table of its series.
 */
import { fail, pass } from '../common/check.js';
const WEIGHTS = [2, 7, 6, 5, 4, 3, 2];
const TABLES = {
    S: 'JZIHGFEDCBA',
    T: 'JZIHGFEDCBA',
    F: 'XWUTRQPNMLK',
    G: 'XWUTRQPNMLK',
    M: 'XWUTRQPNJLK',
};
const OFFSETS = { S: 0, T: 4, F: 0, G: 4, M: 3 };
export function checkNric(input) {
    const nric = input.toUpperCase();
    if (!/^[STFGM]\d{7}[A-Z]$/.test(nric))
        return fail('invalid_format', 'an NRIC/FIN is S, T, F, G or M, 7 digits and a letter');
    const prefix = nric.charAt(0);
    const sum = [...nric.slice(1, 8)].reduce((total, digit, index) => total + Number(digit) * (WEIGHTS[index] ?? 0), 0);
    const expected = (TABLES[prefix] ?? '').charAt((sum + (OFFSETS[prefix] ?? 0)) % 11);
    if (nric.charAt(8) !== expected)
        return fail('invalid_checksum', 'check letter does not match');
    return pass(nric);
}
//# sourceMappingURL=nric.js.map