/**
 * Singapore Unique Entity Numbers, in the three shapes ACRA issues: businesses `nnnnnnnnX` (9), local
 * companies `yyyynnnnnX` (10, year of registration) and other entities `TyyPQnnnnX` (10: R/S/T for the 1800s,
 * 1900s, 2000s, two digits of year, a two-letter entity type, four digits). ACRA publishes no check-letter
 * algorithm for all shapes, so only the shape and the year are checked.
 */
import { fail, pass } from '../common/check.js';
export function checkUen(input, now = new Date()) {
    const uen = input.toUpperCase();
    if (!/^[A-Z0-9]+$/.test(uen))
        return fail('invalid_format', 'a UEN contains letters and digits only');
    if (uen.length !== 9 && uen.length !== 10)
        return fail('invalid_length', 'a UEN has 9 or 10 characters');
    const year = now.getUTCFullYear();
    if (/^\d{8}[A-Z]$/.test(uen))
        return pass(uen);
    if (/^\d{9}[A-Z]$/.test(uen)) {
        const registered = Number(uen.slice(0, 4));
        return registered >= 1800 && registered <= year ? pass(uen) : fail('invalid_value', 'registration year is out of range');
    }
    const other = /^([RST])(\d{2})[A-Z]{2}\d{4}[A-Z]$/.exec(uen);
    if (other) {
        const century = { R: 1800, S: 1900, T: 2000 }[other[1]];
        return century + Number(other[2]) <= year ? pass(uen) : fail('invalid_value', 'registration year is in the future');
    }
    return fail('invalid_format', 'is not one of the UEN shapes nnnnnnnnX, yyyynnnnnX or TyyPQnnnnX');
}
//# sourceMappingURL=uen.js.map