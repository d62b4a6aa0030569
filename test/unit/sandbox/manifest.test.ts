import { describe, expect, it } from 'vitest';
import { checkActionPath, coerceSetting, parseManifest, settingProblem } from '../../../sdk/plugin-manifest.js';

const base = { name: 'demo', version: '1.0.0' };
const parse = (extra: Record<string, unknown>) => parseManifest(JSON.stringify({ ...base, ...extra }));

describe('third-party plugin.json', () => {
  it('fills the defaults of a minimal manifest', () => {
    expect(parse({})).toEqual({
      name: 'demo',
      version: '1.0.0',
      entry: 'index.js',
      description: null,
      author: null,
      license: null,
      homepage: null,
      has_changelog: false,
      scopes: [],
      permissions: [],
      public_routes: [],
      contributes: {},
      settings: [],
      limits: {},
    });
  });

  it.each([
    [{ name: 'Demo' }, /name must match/],
    [{ version: '' }, /version/],
    [{ entry: '../index.js' }, /entry must be a \.js or \.mjs file beside plugin\.json/],
    [{ entry: 'dist/index.js' }, /entry must be/],
    [{ requires: ['ledger'] }, /requires is for builtin plugins only/],
    [{ essential: true }, /essential is for builtin plugins only/],
    [{ colour: 'red' }, /unknown field colour/],
    [{ scopes: ['wallet:read'] }, /scopes\[0\] must be "demo:<verb>"/],
    [{ permissions: ['contacts'] }, /permissions\[0\] must name a gateway operation/],
    [{ public_routes: [{ path: 'a', method: 'GET', rate_per_minute: 0, max_body_bytes: 0 }] }, /rate_per_minute must be an integer from 1 to 6000/],
    [{ public_routes: [{ path: 'a', method: 'GET', rate_per_minute: 1, max_body_bytes: 2_000_000 }] }, /max_body_bytes must be an integer from 0 to 1048576/],
    [{ public_routes: [{ path: 'a', method: 'TRACE', rate_per_minute: 1, max_body_bytes: 0 }] }, /method must be one of/],
    [{ public_routes: [{ path: '../x', method: 'GET', rate_per_minute: 1, max_body_bytes: 0 }] }, /must be 1-8 segments/],
    [{ contributes: { payback_rail: [] } }, /contributes\.payback_rail must list 1-16 ids/],
    [{ contributes: { payback_rail: ['Bad Id'] } }, /must list 1-16 ids/],
    [{ limits: { threads: 2 } }, /limits\.threads is not a limit/],
    [{ settings: [{ key: 'n', type: 'integer', default: 'x', description: '' }] }, /settings\[0\]\.default: expected a number/],
    [{ settings: [{ key: 'e', type: 'enum', default: 'c', options: ['a', 'b'], description: '' }] }, /default: expected one of a, b/],
  ])('refuses %j', (extra, message) => {
    expect(() => parse(extra)).toThrow(message);
  });

  it('refuses text that is not a JSON object', () => {
    expect(() => parseManifest('nope')).toThrow(/not JSON/);
    expect(() => parseManifest('[]')).toThrow(/must hold an object/);
  });
});

describe('route paths of a plugin namespace', () => {
  it.each(['status', 'notes/:id', 'a-b_c/9/:x_y'])('accepts %s', (path) => {
    expect(checkActionPath(path, 'route')).toBe(path);
  });

  it.each(['', '/status', 'status/', '../wallet', 'a/../b', ':id', 'enable', 'disable', 'public-routes', 'settings', 'limits', 'A', 'a b', 'a/%2e%2e'])(
    'refuses %j',
    (path) => {
      expect(() => checkActionPath(path, 'route')).toThrow();
    },
  );
});

describe('setting values', () => {
  const times = { key: 'times', type: 'integer' as const, default: 1, min: 1, max: 5, description: '' };
  const flag = { key: 'on', type: 'boolean' as const, default: false, description: '' };

  it('reads what an operator types in the setting type, then checks it', () => {
    expect(coerceSetting(times, '3')).toBe(3);
    expect(settingProblem(times, coerceSetting(times, '9'))).toBe('at most 5');
    expect(settingProblem(times, 2.5)).toBe('expected an integer');
    expect(coerceSetting(flag, 'true')).toBe(true);
    expect(settingProblem(flag, coerceSetting(flag, 'yes'))).toBe('expected true or false');
  });
});
