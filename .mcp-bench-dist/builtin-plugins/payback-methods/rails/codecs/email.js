/**
 * Email addresses as payment aliases accept them: a dot-atom local part (no quoted strings, no comments) and
 * a DNS host name with a letter TLD. Stricter than RFC 5322 on purpose: providers reject the exotic forms.
 */
import { fail, pass } from '../common/check.js';
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export function isHostName(host) {
    const labels = host.split('.');
    const tld = labels[labels.length - 1] ?? '';
    return host.length <= 253 && labels.length >= 2 && labels.every((label) => LABEL.test(label)) && /^[a-z]{2,63}$/.test(tld);
}
/** Returns the address with its domain lower-cased (domains are case-insensitive, local parts in theory not). */
export function checkEmail(input, maxLength = 254) {
    const at = input.lastIndexOf('@');
    if (at <= 0)
        return fail('invalid_format', 'is not an email address');
    const local = input.slice(0, at);
    const domain = input.slice(at + 1).toLowerCase();
    if (!LOCAL_PART.test(local) || !isHostName(domain))
        return fail('invalid_format', 'is not an email address');
    if (local.length > 64 || input.length > maxLength)
        return fail('too_long', `an email address has at most ${maxLength} characters`);
    return pass(`${local}@${domain}`);
}
//# sourceMappingURL=email.js.map