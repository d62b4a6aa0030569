/**
 * Text that other people wrote (peers' descriptions and names, clients' labels, error messages relayed from peers)
 * must not be able to act on the terminal or the eye of whoever reads it. Two tools share one definition of the
 * dangerous characters: input rules refuse them (`hasUnsafeText`), and the command line shows them as escapes
 * (`escapeUnsafeText`) when they arrive anyway (older data, peers, fields no rule covers).
 *
 * Unsafe are the Unicode categories
 * - Cc, controls: C0 (ESC starts cursor moves, colours and title changes; BEL ends an OSC; CR overwrites a line),
 *   DEL and C1 (0x9b is a one-byte CSI, 0x9d a one-byte OSC on terminals that honour 8-bit controls);
 * - Cf, format characters: bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069), marks
 *   (U+200E/200F, U+061C), zero-width characters (U+200B-200D, U+2060, U+FEFF), tag characters (U+E0000-E007F)
 *   and the other invisible ones, which reorder text or hide part of it;
 * - Zl and Zp, U+2028 and U+2029, which some viewers treat as line breaks.
 */
const UNSAFE_CLASS = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]';
const UNSAFE_TEST = new RegExp(UNSAFE_CLASS, 'u');
const UNSAFE_ALL = new RegExp(UNSAFE_CLASS, 'gu');
/** Whether the text holds a control, format (bidirectional, zero-width...) or line/paragraph separator character. */
export function hasUnsafeText(text) {
    return UNSAFE_TEST.test(text);
}
/** `\x1b` for code points up to 0xff, `\u202e` up to 0xffff, `\u{e0041}` beyond: the spelling of JavaScript and JSON. */
export function escapeCodePoint(ch) {
    const cp = ch.codePointAt(0);
    if (cp <= 0xff)
        return `\\x${cp.toString(16).padStart(2, '0')}`;
    if (cp <= 0xffff)
        return `\\u${cp.toString(16).padStart(4, '0')}`;
    return `\\u{${cp.toString(16)}}`;
}
/**
 * The text with every unsafe character replaced by its visible escape (ESC becomes the four characters `\x1b`,
 * U+202E becomes `\u202e`), or by what `escape` makes of it. A backslash is left as it is: text that already
 * reads `\x1b` can do no harm, and the small ambiguity is the lesser evil than doubling every backslash of a path
 * or a note.
 */
export function escapeUnsafeText(text, escape = escapeCodePoint) {
    return text.replace(UNSAFE_ALL, escape);
}
/**
 * The text with every unsafe character removed, for text shown where an escape would only be noise (a spreadsheet
 * cell of an export, say). Removing can change what a reader sees of signed text: keep the original beside it.
 */
export function stripUnsafeText(text) {
    return text.replace(UNSAFE_ALL, '');
}
/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never cutting a character in two. */
export function clampUtf8(text, maxBytes) {
    // At most 3 bytes per UTF-16 unit (a surrogate pair makes 4 bytes from 2 units): short text needs no counting.
    if (text.length * 3 <= maxBytes)
        return text;
    let bytes = 0;
    let end = 0;
    for (const ch of text) {
        const cp = ch.codePointAt(0);
        const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (bytes + size > maxBytes)
            break;
        bytes += size;
        end += ch.length;
    }
    return text.slice(0, end);
}
//# sourceMappingURL=text.js.map