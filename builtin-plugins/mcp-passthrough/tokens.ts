/**
 * Customer bearer tokens: `mcp_` and 43 base64url characters (32 random bytes). Only the SHA-256 of a token is
 * stored; a presented token is hashed and looked up by that hash, then the stored and computed hashes are compared
 * in constant time, so neither the lookup nor the comparison leaks how much of a guess was right.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'mcp_';
const TOKEN_SHAPE = /^mcp_[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The last four characters, shown in key listings so an operator can tell keys apart. */
export function tokenHint(token: string): string {
  return token.slice(-4);
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The token of an `Authorization: Bearer <token>` header when it has the shape of ours; null otherwise. */
export function bearerToken(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return m && TOKEN_SHAPE.test(m[1]!) ? m[1]! : null;
}
