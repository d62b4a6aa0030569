/**
 * The on-chain description of a payment that answers a request (Document 1, "approve"):
 *
 *   with a note:    "payment: " + <requester description> + " | " + <note>, or without the "payment: " prefix when
 *                   the whole would exceed 255 characters;
 *   note cap:       255 − length(requester description) − 3; a longer note is refused (payer_note_too_long);
 *   blank notes:    a note that is empty or only whitespace counts as no note;
 *   without a note: the requester's description as it is (none when it has none).
 *
 * Our decision where Document 1 is silent: with an empty requester description the description is
 * "payment: " + <note> (prefix dropped past 255). Lengths count Unicode code points.
 */
export const MAX_DESCRIPTION = 255;
const PREFIX = 'payment: ';
const SEPARATOR = ' | ';
export const length = (s) => [...s].length;
export function noteCap(requesterDescription) {
    return MAX_DESCRIPTION - length(requesterDescription ?? '') - SEPARATOR.length;
}
export function paymentDescription(requesterDescription, payerNote) {
    const desc = requesterDescription ?? '';
    const note = payerNote === undefined || payerNote === null || payerNote.trim() === '' ? null : payerNote;
    if (note === null)
        return { ok: true, description: desc === '' ? null : desc, note: null };
    const cap = noteCap(requesterDescription);
    if (length(note) > cap) {
        const message = cap <= 0
            ? `The requester's description (${length(desc)} characters) leaves no room for a payer note (descriptions are limited to ${MAX_DESCRIPTION} characters)`
            : `payer_note may be at most ${cap} characters here (${MAX_DESCRIPTION} minus the requester's description of ${length(desc)} characters minus 3)`;
        return { ok: false, cap: Math.max(cap, 0), message };
    }
    const body = desc === '' ? note : `${desc}${SEPARATOR}${note}`;
    const full = `${PREFIX}${body}`;
    return { ok: true, description: length(full) > MAX_DESCRIPTION ? body : full, note };
}
//# sourceMappingURL=note.js.map