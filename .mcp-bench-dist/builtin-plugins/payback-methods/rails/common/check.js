/**
 * The outcome of checking one value: either the normalised value or a stable error code with a message.
 * Codecs return this instead of throwing so a rail can report every failing field in one pass.
 */
export function pass(value) {
    return { ok: true, value };
}
export function fail(code, message) {
    return { ok: false, code, message };
}
//# sourceMappingURL=check.js.map