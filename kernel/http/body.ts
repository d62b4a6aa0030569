import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.js';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

const tooLarge = (limit: number): ApiError =>
  new ApiError('payload_too_large', 413, `Request body exceeds the limit of ${limit} bytes for this route`);

/**
 * Reads the exact body bytes (the HMAC covers them verbatim), refusing early on Content-Length and again
 * while streaming, so an oversized body is never buffered whole.
 */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(buf);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json', 400, 'Request body is not valid JSON');
  }
}
