/** Small string helpers shared by rails and codecs. */
import { fail, pass } from './check.js';
/** Separators people type inside account numbers and phone numbers; removed before digit checks. */
export function stripSeparators(value) {
    return value.replace(/[\s.\-()/]/g, '');
}
// C0 controls and DEL; tab, newline and carriage return are only tolerated where multi-line text makes sense.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const LINE_BREAKS = /[\t\n\r]/;
// Bidirectional overrides can make a stored name or memo display as different text than it holds.
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
export function utf8Length(value) {
    return new TextEncoder().encode(value).length;
}
/** Free text (names, memos, notes): bounded length and no control characters that break display or logs. */
export function checkFreeText(value, rule) {
    if (CONTROL.test(value) || BIDI_CONTROLS.test(value) || (!rule.multiline && LINE_BREAKS.test(value))) {
        return fail('invalid_format', 'contains control characters');
    }
    if ([...value].length > rule.maxLength) {
        return fail('too_long', `at most ${rule.maxLength} characters`);
    }
    if (rule.maxBytes !== undefined && utf8Length(value) > rule.maxBytes) {
        return fail('too_long', `at most ${rule.maxBytes} bytes in UTF-8`);
    }
    return pass(value);
}
export function asString(value) {
    return typeof value === 'string' ? value.trim() : undefined;
}
export function isPlainObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
//# sourceMappingURL=text.js.map