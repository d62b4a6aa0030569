import type { PluginContext, SettingsMechanism } from '../../sdk/index.js';
import { ApiError } from '../../sdk/index.js';
import { arrayOf, objectOf, stringSchema } from '../../sdk/schema.js';
import { READ_ONLY_SETTINGS } from './settings-catalog.js';

/**
 * GET/PUT /system/settings and POST /system/settings/reset. The registry (kernel) validates types, ranges
 * and cross-setting rules, and applies all-or-nothing; this layer maps REST names, refuses what an API
 * client may not change (read-only and environment-controlled settings) and stamps analytics consent. A browser
 * session changes a security setting, or resets them all, only after a fresh confirmation.
 */

const WRITE = { scope: 'system:write' } as const;
const READ = { scope: 'system:read' } as const;

const viewFields = {
  settings: { type: 'object' },
  overridden: arrayOf(stringSchema),
  read_only: arrayOf(stringSchema),
  categories: { type: 'object', additionalProperties: arrayOf(stringSchema) },
};
const viewResponse = objectOf(viewFields);

function snakeValues(settings: SettingsMechanism, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [settings.toSnake(k), v]));
}

function settingsView(settings: SettingsMechanism): Record<string, unknown> {
  const categories: Record<string, string[]> = {};
  for (const def of settings.definitions()) (categories[def.category] ??= []).push(settings.toSnake(def.key));
  return {
    settings: snakeValues(settings, settings.values()),
    overridden: settings.overridden().map((k) => settings.toSnake(k)),
    read_only: [...READ_ONLY_SETTINGS].map((k) => settings.toSnake(k)),
    categories,
  };
}

export function registerSettingsRoutes(ctx: PluginContext): void {
  const settings = ctx.kernel.settings;
  let resetting = false;

  // Document 2, analytics consent: switching analytics on stamps the opt-in time; any answer (on or off)
  // means the question was asked. A reset restores the defaults instead and stamps nothing.
  ctx.settings.onChange('analyticsEnabled', (_key, value, previous) => {
    if (resetting) return;
    const stamp: Record<string, unknown> = {};
    if (value === true && previous !== true) stamp.analyticsOptInAt = new Date().toISOString();
    if (settings.values().analyticsConsentAsked !== true) stamp.analyticsConsentAsked = true;
    if (Object.keys(stamp).length) settings.update(stamp);
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/system/settings',
    access: READ,
    response: viewResponse,
    query: { type: 'object' },
    handler: () => settingsView(settings),
  });

  ctx.routes.add<Record<string, unknown>>({
    method: 'PUT',
    path: '/api/v1/system/settings',
    access: WRITE,
    response: objectOf({ message: stringSchema, updated: { type: 'object' } }),
    body: { type: 'object' },
    confirm: (req) => {
      const keys = new Set(Object.keys(req.body).map((name) => settings.fromSnake(name)));
      return settings.definitions().some((d) => d.security === true && keys.has(d.key));
    },
    handler: (req) => {
      const changes: Record<string, unknown> = {};
      const unknown: string[] = [];
      const errors: { setting: string; message: string }[] = [];
      const fromEnv = new Set(settings.overridden());
      const envName = new Map(settings.definitions().map((d) => [d.key, d.env]));
      for (const [name, value] of Object.entries(req.body)) {
        const key = settings.fromSnake(name);
        if (!key) {
          unknown.push(name);
          continue;
        }
        const snake = settings.toSnake(key);
        if (Object.hasOwn(changes, key)) errors.push({ setting: snake, message: 'is given twice (snake_case and camelCase)' });
        else if (READ_ONLY_SETTINGS.has(key)) errors.push({ setting: snake, message: 'is maintained by the node and cannot be set' });
        else if (fromEnv.has(key)) errors.push({ setting: snake, message: `is set by the environment variable ${envName.get(key)}; change it there` });
        changes[key] = value;
      }
      if (unknown.length) {
        throw new ApiError('unknown_setting', 400, `Unknown setting: ${unknown.join(', ')}`, { settings: unknown });
      }
      if (errors.length) {
        throw new ApiError('validation_error', 400, errors.map((e) => `${e.setting}: ${e.message}`).join('; '), { errors });
      }
      const before = settings.values();
      const accepted = settings.update(changes);
      // Values the node stamped in reaction (analytics consent) are part of what this request changed.
      const after = settings.values();
      for (const key of READ_ONLY_SETTINGS) if (after[key] !== before[key]) accepted[key] = after[key];
      if (Object.hasOwn(accepted, 'analyticsEnabled') && after.analyticsConsentAsked !== before.analyticsConsentAsked) {
        accepted.analyticsConsentAsked = after.analyticsConsentAsked;
      }
      ctx.log.info('settings updated', { settings: Object.keys(accepted).map((k) => settings.toSnake(k)) });
      return { message: 'Settings updated', updated: snakeValues(settings, accepted) };
    },
  });

  ctx.routes.add<{ confirm?: unknown }>({
    method: 'POST',
    path: '/api/v1/system/settings/reset',
    access: WRITE,
    response: objectOf({ message: stringSchema, ...viewFields }),
    // A reset changes the security settings too.
    confirm: true,
    body: { type: 'object' },
    handler: (req) => {
      if (req.body.confirm !== true) {
        throw new ApiError('confirmation_required', 400, 'Resetting every setting to its default needs {"confirm": true}');
      }
      resetting = true;
      try {
        settings.reset();
      } finally {
        resetting = false;
      }
      ctx.log.info('settings reset to defaults');
      return { message: 'Settings reset to defaults', ...settingsView(settings) };
    },
  });
}
