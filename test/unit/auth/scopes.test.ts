import { describe, expect, it } from 'vitest';
import systemManifest from '../../../builtin-plugins/system/plugin.json' with { type: 'json' };
import { grants } from '../../../kernel/auth/scopes.js';

/** Document 1's scopes: the system plugin registers them (the kernel only knows admin). */
const CORE_SCOPES = [...systemManifest.scopes, 'admin'];

describe('grants', () => {
  it('grants an exact scope and nothing else', () => {
    expect(grants(['wallet:read'], 'wallet:read')).toBe(true);
    expect(grants(['wallet:read'], 'wallet:send')).toBe(false);
    expect(grants(['wallet:read'], 'contacts:read')).toBe(false);
    expect(grants(['wallet:read'], 'admin')).toBe(false);
    expect(grants([], 'wallet:read')).toBe(false);
  });

  it('lets <category>:* grant both verbs of its category only', () => {
    for (const category of ['wallet', 'contacts', 'system', 'backup', 'payback']) {
      const held = [`${category}:*`];
      const verbs = CORE_SCOPES.filter((s) => s.startsWith(`${category}:`) && !s.endsWith(':*'));
      expect(verbs).toHaveLength(2);
      for (const v of verbs) expect(grants(held, v)).toBe(true);
      expect(grants(held, `${category}:*`)).toBe(true);
      expect(grants(held, 'admin')).toBe(false);
    }
    expect(grants(['wallet:*'], 'contacts:read')).toBe(false);
    expect(grants(['wallet:*'], 'wallets:read')).toBe(false);
  });

  it('does not let a verb grant the wildcard or another verb', () => {
    expect(grants(['wallet:read', 'wallet:send'], 'wallet:*')).toBe(false);
    expect(grants(['wallet:read'], 'wallet:read:extra')).toBe(false);
  });

  it('lets admin grant everything, including plugin scopes', () => {
    for (const scope of [...CORE_SCOPES, 'myplugin:read', 'anything']) expect(grants(['admin'], scope)).toBe(true);
    expect(grants(['admin'], ['x', 'y'])).toBe(true);
  });

  it('accepts any one of several required scopes', () => {
    expect(grants(['system:write'], ['system:write', 'admin'])).toBe(true);
    expect(grants(['system:read'], ['system:write', 'admin'])).toBe(false);
    expect(grants(['backup:*'], ['wallet:send', 'backup:write'])).toBe(true);
    expect(grants(['wallet:read'], [])).toBe(false);
  });

  it('applies the category wildcard to plugin scopes too, but knows no plugin-wide wildcard', () => {
    expect(grants(['myplugin:*'], 'myplugin:read')).toBe(true);
    expect(grants(['*'], 'wallet:read')).toBe(false);
    expect(grants(['all'], 'wallet:read')).toBe(false);
    expect(grants(['plugins:*'], 'myplugin:read')).toBe(false);
  });

  it('does not treat a scope without a category as a wildcard target', () => {
    expect(grants([':*'], ':read')).toBe(false);
    expect(grants(['admin:*'], 'admin')).toBe(false);
  });

  it('lists the core scopes of Document 1 without the removed all synonym', () => {
    expect([...CORE_SCOPES].sort()).toEqual(
      [
        'wallet:read', 'wallet:send', 'wallet:*', 'contacts:read', 'contacts:write', 'contacts:*',
        'system:read', 'system:write', 'system:*', 'backup:read', 'backup:write', 'backup:*',
        'payback:read', 'payback:write', 'payback:*', 'admin',
      ].sort(),
    );
    expect(CORE_SCOPES).not.toContain('all');
  });
});
