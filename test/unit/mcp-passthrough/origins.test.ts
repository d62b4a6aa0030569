import { describe, expect, it } from 'vitest';
import { checkOrigin, normalizeOrigin } from '../../../builtin-plugins/mcp-passthrough/origins.js';

describe('Origin rules', () => {
  it('stores origins as lower-case scheme://host[:port] and refuses anything else', () => {
    expect(normalizeOrigin(' HTTPS://App.Example:8443/ ')).toBe('https://app.example:8443');
    expect(normalizeOrigin('https://app.example:443')).toBe('https://app.example');
    for (const bad of ['app.example', 'ftp://app.example', 'https://app.example/path', 'https://u:p@app.example', 'https://app.example?x=1', '']) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it('allows an absent origin and loopback implicitly', () => {
    expect(checkOrigin(undefined, [])).toEqual({ ok: true, origin: null });
    for (const o of ['http://localhost', 'https://localhost:1', 'http://127.0.0.1:5173', 'http://127.9.9.9', 'http://[::1]:8080', 'http://app.localhost']) {
      expect(checkOrigin(o, []).ok, o).toBe(true);
    }
  });

  it('matches scheme and host name only: a configured port permits other ports', () => {
    const allowed = ['https://app.example:8443'];
    expect(checkOrigin('https://app.example', allowed).ok).toBe(true);
    expect(checkOrigin('https://APP.example:1234', allowed).ok).toBe(true);
    expect(checkOrigin('http://app.example:8443', allowed).ok).toBe(false);
    expect(checkOrigin('https://sub.app.example', allowed).ok).toBe(false);
    expect(checkOrigin('https://app.example.evil', allowed).ok).toBe(false);
    expect(checkOrigin('null', allowed).ok).toBe(false);
  });
});
