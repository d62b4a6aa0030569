/**
 * Masked summaries. The rule: a sensitive value shows at most its last four characters, and never more than
 * half of itself, so a short value is never revealed whole. Public blockchain addresses may show their first
 * and last four characters, which is what wallets display and is enough to spot a swapped address.
 */
import { asString } from './text.js';
export const BULLETS = '••••';
function visibleTail(value, limit) {
    const chars = [...value];
    const count = Math.min(limit, Math.floor(chars.length / 2));
    return chars.slice(chars.length - count).join('');
}
/** `•••• 3000` for account numbers, phone numbers, handles and other private identifiers. */
export function maskTail(value) {
    const text = asString(value);
    if (!text)
        return BULLETS;
    const tail = visibleTail(text, 4);
    return tail ? `${BULLETS} ${tail}` : BULLETS;
}
/** `1A1z…vfNa` (`0xd8dA…6045` for hex) for blockchain addresses; short inputs fall back to the tail rule. */
export function maskAddress(value) {
    const text = asString(value);
    if (!text)
        return BULLETS;
    const chars = [...text];
    if (chars.length < 16)
        return maskTail(text);
    const head = text.startsWith('0x') ? 6 : 4;
    return `${chars.slice(0, head).join('')}…${chars.slice(-4).join('')}`;
}
/** `J. Doe`: enough to recognise the payee without copying a full legal name into every listing. */
export function shortName(value) {
    const text = asString(value);
    if (!text)
        return undefined;
    const words = text.split(/\s+/);
    const last = words[words.length - 1] ?? '';
    const short = words.length > 1 ? `${(words[0] ?? '').charAt(0)}. ${last}` : last;
    return [...short].length > 24 ? `${[...short].slice(0, 23).join('')}…` : short;
}
/** Joins a rail label, the masked identifier and an optional payee name: `SEPA •••• 3000 (J. Doe)`. */
export function summary(label, masked, name) {
    const payee = shortName(name);
    return payee ? `${label} ${masked} (${payee})` : `${label} ${masked}`;
}
//# sourceMappingURL=mask.js.map