import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../builtin-plugins/mcp-passthrough/secrets.js';
import { bearerToken, newToken, sameHash, tokenHash } from '../../../builtin-plugins/mcp-passthrough/tokens.js';

describe('provider token cipher', () => {
  it('opens only under the same key and provider id', () => {
    const cipher = new TokenCipher(randomBytes(32));
    const blob = cipher.seal('main', 'sk-secret');
    expect(blob).not.toContain('sk-secret');
    expect(cipher.open('main', blob)).toBe('sk-secret');
    expect(cipher.open('other', blob)).toBeNull();
    expect(new TokenCipher(randomBytes(32)).open('main', blob)).toBeNull();
    expect(cipher.open('main', 'v1.garbage')).toBeNull();
  });
});

describe('customer tokens', () => {
  it('are mcp_ and 43 base64url characters; only that shape is read from a bearer header', () => {
    const t = newToken();
    expect(t).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    expect(bearerToken(`Bearer ${t}`)).toBe(t);
    expect(bearerToken(`bearer   ${t}  `)).toBe(t);
    expect(bearerToken(t)).toBeNull();
    expect(bearerToken('Bearer mcp_short')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(sameHash(tokenHash(t), tokenHash(t))).toBe(true);
    expect(sameHash(tokenHash(t), tokenHash(newToken()))).toBe(false);
    expect(sameHash('', '')).toBe(false);
  });
});
