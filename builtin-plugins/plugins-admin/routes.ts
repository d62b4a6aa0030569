import { ApiError, created } from '../../sdk/index.js';
import type { PluginBundle, PluginContext, PluginHostMechanism, PluginStatusRow } from '../../sdk/index.js';
import { PLUGIN_NAME } from '../../sdk/plugin-manifest.js';
import { pageOf, pageQuery, type PageQuery } from '../../sdk/paging.js';
import { pluginView, publicRoutesGate, publicRoutesServed, restartRequired } from './present.js';
import { deletedResponse, devLoadedResponse, limitsResponse, listResponse, pluginResponse, publicRoutesResponse, settingsResponse, toggledResponse } from './schemas.js';

const ADMIN = { scope: 'admin' } as const;
const RESTART_HINT = 'POST /api/v1/system/restart to apply.';
/** A plugin's files travel as JSON text: a 4 MiB entry, escaped, plus the manifest and signature, fits. */
const MAX_INSTALL_BODY = 10 * 1024 * 1024;
const LIMIT = { type: ['integer', 'null'] } as const;

/** What the routes receiving a plugin's files share: admin, a fresh confirmation, the bundle's schema plus `extra`. */
function bundleRoute(extra: Record<string, unknown>) {
  return {
    access: ADMIN,
    confirm: true,
    maxBodyBytes: MAX_INSTALL_BODY,
    body: {
      type: 'object',
      required: ['manifest', 'entry'],
      properties: { manifest: { type: 'string' }, entry: { type: 'string' }, signature: { type: ['string', 'null'] }, ...extra },
      additionalProperties: false,
    },
    fallbackCode: 'validation_error',
  } as const;
}

/** Looks a plugin up by its path name: 400 invalid_name for a malformed name, 404 unknown_plugin. */
function requirePlugin(host: PluginHostMechanism, name: string): PluginStatusRow {
  if (!PLUGIN_NAME.test(name)) throw new ApiError('invalid_name', 400, `Invalid plugin name: ${name}`);
  const row = host.get(name);
  if (!row) throw new ApiError('unknown_plugin', 404, `Plugin not found: ${name}`);
  return row;
}

/** The plugin routes of Document 1 ("Plugins (all admin)"); shapes documented in docs/api/keys-and-plugins.md. */
export function registerPluginRoutes(ctx: PluginContext): void {
  const host = ctx.kernel.plugins;

  ctx.routes.add<unknown, PageQuery>({
    method: 'GET',
    path: '/api/v1/plugins',
    response: listResponse,
    access: ADMIN,
    query: pageQuery(),
    handler: (req) => {
      const { rows, ...page } = pageOf(host.list(), req.query);
      return {
        plugins: rows.map((row) => pluginView(row, host)),
        ...page,
        public_routes_ceiling: host.publicRoutesAllowed() ? 'allow' : 'deny',
      };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/plugins/:name',
    response: pluginResponse,
    access: ADMIN,
    handler: (req) => ({ plugin: pluginView(requirePlugin(host, req.params.name!), host) }),
  });

  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    ctx.routes.add({
      method: 'POST',
      path: `/api/v1/plugins/:name/${verb}`,
      response: toggledResponse,
      access: ADMIN,
      confirm: enabled,
      handler: async (req) => {
        const name = req.params.name!;
        const before = requirePlugin(host, name);
        host.setEnabled(name, enabled);
        // A development node starts or stops a third-party plugin at once; elsewhere the restart applies it.
        const row = (await host.applyNow(name)) ?? host.get(name)!;
        const restart = restartRequired(row);
        if (before.enabled !== row.enabled) ctx.log.info(`plugin ${name} ${verb}d`, { by: req.auth?.keyId });
        const message = restart
          ? `Plugin ${name} ${verb}d. ${RESTART_HINT}`
          : before.enabled === enabled
            ? `Plugin ${name} is already ${verb}d.`
            : `Plugin ${name} ${verb}d; the running node already matches.`;
        const gate = enabled ? publicRoutesGate(row, host) : null;
        return {
          plugin: name,
          enabled: row.enabled,
          status: row.status,
          restart_required: restart,
          message,
          ...(gate ? { public_routes_gated: true, public_routes_message: gate } : {}),
          ...(enabled && row.sandbox ? permissionsNotice(row) : {}),
        };
      },
    });
  }

  ctx.routes.add<{ enabled: boolean }>({
    method: 'POST',
    path: '/api/v1/plugins/:name/public-routes',
    response: publicRoutesResponse,
    access: ADMIN,
    confirm: (req) => req.body.enabled === true,
    body: {
      type: 'object',
      required: ['enabled'],
      properties: { enabled: { type: 'boolean' } },
      additionalProperties: false,
    },
    errorCodes: { enabled: 'validation_error' },
    fallbackCode: 'validation_error',
    handler: (req) => {
      const name = req.params.name!;
      requirePlugin(host, name);
      const row = host.setPublicRoutes(name, req.body.enabled);
      const served = publicRoutesServed(row, host);
      const state = row.public_routes_enabled ? 'on' : 'off';
      let message: string;
      if (row.public_routes.length === 0) message = `Public-routes switch of ${name} is ${state}; the plugin declares no public routes.`;
      else if (served) message = `Public routes of ${name} are served now.`;
      else message = `Public-routes switch of ${name} is ${state}; its public routes are not served (${whyNotServed(row, host)}).`;
      if (row.public_routes.length) ctx.log.info(`plugin ${name} public routes switched ${state}`, { by: req.auth?.keyId });
      return {
        plugin: name,
        public_routes_enabled: row.public_routes_enabled,
        public_routes: row.public_routes,
        served,
        message,
      };
    },
  });

  ctx.routes.add<PluginBundle>({
    method: 'POST',
    path: '/api/v1/plugins',
    response: pluginResponse,
    ...bundleRoute({ changelog: { type: ['string', 'null'] }, replace: { type: 'boolean' } }),
    handler: (req) => {
      const row = host.install({ ...req.body, signature: req.body.signature ?? null });
      ctx.log.info(`plugin ${row.name} installed`, { by: req.auth?.keyId, version: row.version, signature: row.sandbox?.signature.status });
      return created(
        { plugin: pluginView(row, host) },
        `Plugin ${row.name} ${row.version} installed, disabled. Enable it (POST /api/v1/plugins/${row.name}/enable), then ${RESTART_HINT}`,
      );
    },
  });

  ctx.routes.add<PluginBundle>({
    method: 'POST',
    path: '/api/v1/plugins/dev',
    response: devLoadedResponse,
    ...bundleRoute({}),
    handler: async (req) => {
      const started = performance.now();
      const row = await host.devLoad({ ...req.body, signature: req.body.signature ?? null });
      ctx.log.info(`plugin ${row.name} reloaded (development)`, { by: req.auth?.keyId, version: row.version, status: row.status });
      return { plugin: pluginView(row, host), reload_ms: Math.round(performance.now() - started) };
    },
  });

  ctx.routes.add<{ memory_mb?: number | null; cpu_ms?: number | null; store_kb?: number | null }>({
    method: 'POST',
    path: '/api/v1/plugins/:name/limits',
    response: limitsResponse,
    access: ADMIN,
    body: { type: 'object', properties: { memory_mb: LIMIT, cpu_ms: LIMIT, store_kb: LIMIT }, additionalProperties: false },
    fallbackCode: 'validation_error',
    handler: (req) => {
      const name = req.params.name!;
      requirePlugin(host, name);
      const row = host.setLimits(name, req.body);
      ctx.log.info(`plugin ${name} limits changed`, { by: req.auth?.keyId, ...req.body });
      return { plugin: name, limits: row.sandbox!.limits, restart_required: true, message: `Limits of ${name} recorded. They apply when it starts next: ${RESTART_HINT}` };
    },
  });

  ctx.routes.add<Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/plugins/:name/settings',
    response: settingsResponse,
    access: ADMIN,
    body: { type: 'object' },
    fallbackCode: 'validation_error',
    handler: (req) => {
      const name = req.params.name!;
      requirePlugin(host, name);
      if (Object.keys(req.body).length === 0) throw new ApiError('no_fields', 400, 'Nothing to update: send {"<setting>": value, ...}');
      const row = host.setSettings(name, req.body);
      ctx.log.info(`plugin ${name} settings changed`, { by: req.auth?.keyId, keys: Object.keys(req.body) });
      return { plugin: name, settings: row.sandbox!.settings, message: `Settings of ${name} saved; the plugin reads them at once.` };
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/plugins/:name',
    response: deletedResponse,
    access: ADMIN,
    handler: (req) => {
      const name = req.params.name!;
      requirePlugin(host, name);
      host.remove(name);
      ctx.log.info(`plugin ${name} deleted`, { by: req.auth?.keyId });
      return { plugin: name, deleted: true, message: `Plugin ${name} deleted.` };
    },
  });
}

/** What a third-party plugin may reach, told at enable so the operator weighs it (docs/plugins.md). */
function permissionsNotice(row: PluginStatusRow): Record<string, unknown> {
  const s = row.sandbox!;
  const reach = s.permissions.length ? s.permissions.join(', ') : 'no core service';
  const contributes = Object.entries(s.contributes).map(([point, ids]) => `${point} ${ids.join(', ')}`);
  return {
    permissions: s.permissions,
    signature: s.signature,
    permissions_message:
      `Plugin ${row.name} runs sandboxed (${s.limits.memory_mb} MB, ${s.limits.cpu_ms} ms CPU per call) and may call: ${reach}` +
      (contributes.length ? `; it adds ${contributes.join('; ')}` : '') +
      (s.signature.status === 'trusted' ? `; signed by ${s.signature.signer}.` : `; NOT signed by a trusted key (${s.signature.status}), allowed by NODE_PLUGINS_DEV_MODE.`),
  };
}

function whyNotServed(row: PluginStatusRow, host: PluginHostMechanism): string {
  if (!host.publicRoutesAllowed()) return 'NODE_PUBLIC_PLUGIN_ROUTES=deny';
  if (!row.public_routes_enabled) return 'switch off';
  return row.enabled ? `plugin not running yet; ${RESTART_HINT}` : 'plugin disabled';
}
