/** Byte helpers shared by the crypto modules. */

/** Bytes or text; text is taken as UTF-8. */
export type BytesLike = Uint8Array | string;

/** A Buffer view over the same memory (no copy), or the UTF-8 bytes of a string. */
export function toBuffer(data: BytesLike): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (Buffer.isBuffer(data)) return data;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Decodes base64url and refuses anything that does not re-encode to the same text.
 *
 * Node's decoder silently skips characters outside the alphabet and ignores trailing bits, so without
 * the round-trip check two different strings could decode to the same bytes; on the wire that would
 * make "the same" sealed message have several spellings.
 */
export function decodeBase64urlStrict(text: unknown): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
