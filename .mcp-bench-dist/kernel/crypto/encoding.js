/** Byte helpers shared by the crypto modules. */
/** A Buffer view over the same memory (no copy), or the UTF-8 bytes of a string. */
export function toBuffer(data) {
    if (typeof data === 'string')
        return Buffer.from(data, 'utf8');
    if (Buffer.isBuffer(data))
        return data;
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
/**
 * Decodes base64url and refuses anything that does not re-encode to the same text.
 *
 * Node's decoder silently skips characters outside the alphabet and ignores trailing bits, so without
 * the round-trip check two different strings could decode to the same bytes; on the wire that would
 * make "the same" sealed message have several spellings.
 */
export function decodeBase64urlStrict(text) {
    if (typeof text !== 'string')
        return undefined;
    const bytes = Buffer.from(text, 'base64url');
    return bytes.toString('base64url') === text ? bytes : undefined;
}
//# sourceMappingURL=encoding.js.map