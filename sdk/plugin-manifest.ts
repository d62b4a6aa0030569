/**
 * The check of a third-party plugin's plugin.json, one for the node (install, enable, start) and for the author's
 * tools (node-cli plugin build), so that what the build accepts the node accepts.
 */
import type { SandboxManifest, SandboxPublicRouteManifest, SandboxSettingManifest } from './sandbox.js';

/** Why a manifest (or a part of one) is refused; the message names the field. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/**
 * Import specifiers that resolve to the sdk module, the one import of a sandboxed plugin: `.../sdk/sandbox.js` as
 * TypeScript leaves it, or without `.js` (`wallet-node/sdk/sandbox`).
 */
export const SDK_SPECIFIER = /(^|\/)sdk\/sandbox(\.js)?$/;

export const PLUGIN_NAME = /^[a-z0-9][a-z0-9-_]{0,63}$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,31}$/;
/** A plain file beside plugin.json: the installed layout is flat, so nothing can point outside the plugin's folder. */
const ENTRY = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\.m?js$/;
const SEGMENT = /^(?:[a-z0-9][a-z0-9_-]{0,63}|:[a-z_][a-z0-9_]{0,31})$/;
const PERMISSION = /^[a-z][a-z0-9_]{0,31}(?:\.[a-z][a-z0-9_]{0,31}){1,3}$/;
const POINT = /^[a-z][a-z0-9_]{0,63}$/;
const CONTRIBUTION_ID = /^[a-z][a-z0-9_]{0,63}$/;
const SETTING_KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
const SETTING_TYPES = ['boolean', 'integer', 'number', 'string', 'enum'] as const;
const FIELDS = new Set([
  'name', 'version', 'description', 'author', 'license', 'homepage', 'entry', 'scopes', 'permissions', 'public_routes',
  'contributes', 'settings', 'limits', 'has_changelog',
]);
/** Fields only builtin (trusted, in-process) plugins have; a third-party manifest naming one is refused. */
const BUILTIN_ONLY = new Set(['requires', 'provides', 'essential', 'enabled_by_default']);

/**
 * Actions of `/api/v1/plugins/<name>/...` the plugin admin routes own (the empty one would be `/api/v1/plugins/<name>`
 * itself). Kept in step with RESERVED_PLUGIN_ACTIONS of context.ts, which adds nothing a third party could use.
 */
export const RESERVED_ACTIONS: ReadonlySet<string> = new Set(['', 'enable', 'disable', 'public-routes', 'settings', 'limits']);

/** A third-party manifest after validation, with defaults filled in. */
export interface ThirdPartyManifest extends Required<Pick<SandboxManifest, 'name' | 'version' | 'entry'>> {
  description: string | null;
  author: string | null;
  license: string | null;
  homepage: string | null;
  has_changelog: boolean;
  scopes: string[];
  permissions: string[];
  public_routes: SandboxPublicRouteManifest[];
  contributes: Record<string, string[]>;
  settings: SandboxSettingManifest[];
  limits: { memory_mb?: number; cpu_ms?: number; store_kb?: number };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionalText(m: Record<string, unknown>, key: string, max: number): string | null {
  const v = m[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > max || /[\u0000-\u001f\u007f]/.test(v)) {
    throw new ManifestError(`${key} must be a string of at most ${max} characters without control characters`);
  }
  return v;
}

function list(m: Record<string, unknown>, key: string, max: number): unknown[] {
  const v = m[key];
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > max) throw new ManifestError(`${key} must be a list of at most ${max} entries`);
  return v;
}

function int(v: unknown, field: string, min: number, max: number): number {
  if (!Number.isInteger(v) || (v as number) < min || (v as number) > max) {
    throw new ManifestError(`${field} must be an integer from ${min} to ${max}`);
  }
  return v as number;
}

/** Whether a route path (an action with `:params`) is well formed and stays in the plugin's namespace. */
export function checkActionPath(path: unknown, field: string): string {
  if (typeof path !== 'string' || path.length > 256) throw new ManifestError(`${field} must be a string of at most 256 characters`);
  const segments = path.split('/');
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s))) {
    throw new ManifestError(`${field} "${path}" must be 1-8 segments of a-z, 0-9, - and _ (parameters as :name), without a leading /`);
  }
  if (segments[0]!.startsWith(':') || RESERVED_ACTIONS.has(segments[0]!)) {
    throw new ManifestError(`${field} "${path}" must start with an action of its own (not a parameter, not ${[...RESERVED_ACTIONS].filter(Boolean).join(', ')})`);
  }
  return path;
}

function checkSettings(raw: unknown[]): SandboxSettingManifest[] {
  const seen = new Set<string>();
  return raw.map((s, i) => {
    const f = `settings[${i}]`;
    if (!isObject(s)) throw new ManifestError(`${f} must be an object`);
    if (typeof s.key !== 'string' || !SETTING_KEY.test(s.key)) throw new ManifestError(`${f}.key must match ${SETTING_KEY.source}`);
    if (seen.has(s.key)) throw new ManifestError(`${f}.key "${s.key}" is declared twice`);
    seen.add(s.key);
    if (!SETTING_TYPES.includes(s.type as never)) throw new ManifestError(`${f}.type must be one of ${SETTING_TYPES.join(', ')}`);
    const def: SandboxSettingManifest = {
      key: s.key,
      type: s.type as SandboxSettingManifest['type'],
      default: null,
      description: optionalText(s, 'description', 256) ?? '',
    };
    if (s.min !== undefined) def.min = typeof s.min === 'number' && Number.isFinite(s.min) ? s.min : int(NaN, `${f}.min`, 0, 0);
    if (s.max !== undefined) def.max = typeof s.max === 'number' && Number.isFinite(s.max) ? s.max : int(NaN, `${f}.max`, 0, 0);
    if (def.type === 'enum') {
      if (!Array.isArray(s.options) || s.options.length === 0 || s.options.length > 64 || !s.options.every((o) => typeof o === 'string' && o.length <= 64)) {
        throw new ManifestError(`${f}.options must list 1-64 strings`);
      }
      def.options = [...(s.options as string[])];
    }
    const problem = settingProblem(def, s.default);
    if (problem) throw new ManifestError(`${f}.default: ${problem}`);
    def.default = s.default as SandboxSettingManifest['default'];
    return def;
  });
}

/**
 * A value as an operator types it (`times=3`, `enabled=true`) in the setting's own type; anything else unchanged
 * (the check that follows refuses it).
 */
export function coerceSetting(def: SandboxSettingManifest, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if ((def.type === 'integer' || def.type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (def.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return value;
}

/** Why `value` is not a valid value of the setting, or null. Strings are at most 1024 characters. */
export function settingProblem(def: SandboxSettingManifest, value: unknown): string | null {
  switch (def.type) {
    case 'boolean':
      return typeof value === 'boolean' ? null : 'expected true or false';
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'expected a number';
      if (def.type === 'integer' && !Number.isSafeInteger(value)) return 'expected an integer';
      if (def.min !== undefined && value < def.min) return `at least ${def.min}`;
      if (def.max !== undefined && value > def.max) return `at most ${def.max}`;
      return null;
    }
    case 'string':
      return typeof value === 'string' && value.length <= 1024 ? null : 'expected a string of at most 1024 characters';
    case 'enum':
      return typeof value === 'string' && def.options!.includes(value) ? null : `expected one of ${def.options!.join(', ')}`;
  }
}

/** Parses and checks plugin.json of a third-party plugin; throws ManifestError naming the first problem. */
export function parseManifest(text: string): ThirdPartyManifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new ManifestError('plugin.json is not JSON');
  }
  if (!isObject(m)) throw new ManifestError('plugin.json must hold an object');
  for (const key of Object.keys(m)) {
    if (BUILTIN_ONLY.has(key)) throw new ManifestError(`${key} is for builtin plugins only`);
    if (!FIELDS.has(key)) throw new ManifestError(`unknown field ${key}`);
  }
  if (typeof m.name !== 'string' || !PLUGIN_NAME.test(m.name)) throw new ManifestError(`name must match ${PLUGIN_NAME.source}`);
  if (typeof m.version !== 'string' || !VERSION.test(m.version)) throw new ManifestError('version must be 1-32 letters, digits, dots, + or -');
  const name = m.name;
  const entry = m.entry === undefined ? 'index.js' : m.entry;
  if (typeof entry !== 'string' || !ENTRY.test(entry)) throw new ManifestError('entry must be a .js or .mjs file beside plugin.json');
  const homepage = optionalText(m, 'homepage', 256);
  if (homepage !== null && !/^https?:\/\/\S+$/.test(homepage)) throw new ManifestError('homepage must be an http(s) URL');

  const scopes = list(m, 'scopes', 16).map((s, i) => {
    if (typeof s !== 'string' || !new RegExp(`^${name.replace(/[-_]/g, '\\$&')}:[a-z][a-z0-9_-]{0,31}$`).test(s)) {
      throw new ManifestError(`scopes[${i}] must be "${name}:<verb>"`);
    }
    return s;
  });
  const permissions = list(m, 'permissions', 32).map((p, i) => {
    if (typeof p !== 'string' || !PERMISSION.test(p)) throw new ManifestError(`permissions[${i}] must name a gateway operation (<service>.<operation>)`);
    return p;
  });
  const routeKeys = new Set<string>();
  const public_routes = list(m, 'public_routes', 32).map((r, i) => {
    const f = `public_routes[${i}]`;
    if (!isObject(r)) throw new ManifestError(`${f} must be an object {path, method, rate_per_minute, max_body_bytes}`);
    const route: SandboxPublicRouteManifest = {
      path: checkActionPath(r.path, `${f}.path`),
      method: r.method as SandboxPublicRouteManifest['method'],
      rate_per_minute: int(r.rate_per_minute, `${f}.rate_per_minute`, 1, 6000),
      max_body_bytes: int(r.max_body_bytes, `${f}.max_body_bytes`, 0, 1_048_576),
    };
    if (!METHODS.includes(route.method)) throw new ManifestError(`${f}.method must be one of ${METHODS.join(', ')}`);
    const key = `${route.method} ${route.path}`;
    if (routeKeys.has(key)) throw new ManifestError(`${f} declares ${key} twice`);
    routeKeys.add(key);
    return route;
  });
  const contributes: Record<string, string[]> = {};
  if (m.contributes !== undefined) {
    if (!isObject(m.contributes) || Object.keys(m.contributes).length > 8) throw new ManifestError('contributes must map at most 8 extension points to lists of ids');
    for (const [point, ids] of Object.entries(m.contributes)) {
      if (!POINT.test(point)) throw new ManifestError(`contributes: "${point}" is not an extension point name`);
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 16 || !ids.every((id) => typeof id === 'string' && CONTRIBUTION_ID.test(id))) {
        throw new ManifestError(`contributes.${point} must list 1-16 ids matching ${CONTRIBUTION_ID.source}`);
      }
      if (new Set(ids).size !== ids.length) throw new ManifestError(`contributes.${point} lists an id twice`);
      contributes[point] = [...(ids as string[])];
    }
  }
  const limits: ThirdPartyManifest['limits'] = {};
  if (m.limits !== undefined) {
    if (!isObject(m.limits)) throw new ManifestError('limits must be an object');
    for (const [key, value] of Object.entries(m.limits)) {
      if (key !== 'memory_mb' && key !== 'cpu_ms' && key !== 'store_kb') throw new ManifestError(`limits.${key} is not a limit (memory_mb, cpu_ms, store_kb)`);
      limits[key] = int(value, `limits.${key}`, 1, 1_000_000);
    }
  }
  if (m.has_changelog !== undefined && typeof m.has_changelog !== 'boolean') throw new ManifestError('has_changelog must be true or false');
  return {
    name,
    version: m.version,
    entry,
    description: optionalText(m, 'description', 512),
    author: optionalText(m, 'author', 256),
    license: optionalText(m, 'license', 64),
    homepage,
    has_changelog: m.has_changelog === true,
    scopes,
    permissions,
    public_routes,
    contributes,
    settings: checkSettings(list(m, 'settings', 32)),
    limits,
  };
}

/** The values of the manifest's settings: the stored ones it still accepts, else the defaults. */
export function settingValues(m: ThirdPartyManifest, stored: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const def of m.settings) {
    const value = stored[def.key];
    // A stored value the current manifest no longer accepts (an upgrade changed the setting) falls back to the default.
    values[def.key] = value !== undefined && settingProblem(def, value) === null ? value : def.default;
  }
  return values;
}
