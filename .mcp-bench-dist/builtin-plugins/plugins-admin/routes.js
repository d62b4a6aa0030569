import { ApiError } from '../../sdk/index.js';
import { pageOf, pageQuery } from '../../sdk/paging.js';
import { pluginView, publicRoutesGate, publicRoutesServed, restartRequired } from './present.js';
const ADMIN = { scope: 'admin' };
const PLUGIN_NAME = /^[a-z0-9][a-z0-9-_]{0,63}$/;
const RESTART_HINT = 'POST /api/v1/system/restart to apply.';
/** Looks a plugin up by its path name: 400 invalid_name for a malformed name, 404 unknown_plugin. */
function requirePlugin(host, name) {
    if (!PLUGIN_NAME.test(name))
        throw new ApiError('invalid_name', 400, `Invalid plugin name: ${name}`);
    const row = host.get(name);
    if (!row)
        throw new ApiError('unknown_plugin', 404, `Plugin not found: ${name}`);
    return row;
}
/** The plugin routes of Document 1 ("Plugins (all admin)"); shapes documented in docs/api/keys-and-plugins.md. */
export function registerPluginRoutes(ctx) {
    const host = ctx.kernel.plugins;
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/plugins',
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
        access: ADMIN,
        handler: (req) => ({ plugin: pluginView(requirePlugin(host, req.params.name), host) }),
    });
    for (const enabled of [true, false]) {
        const verb = enabled ? 'enable' : 'disable';
        ctx.routes.add({
            method: 'POST',
            path: `/api/v1/plugins/:name/${verb}`,
            access: ADMIN,
            handler: (req) => {
                const name = req.params.name;
                const before = requirePlugin(host, name);
                const row = host.setEnabled(name, enabled);
                const restart = restartRequired(row);
                if (before.enabled !== row.enabled)
                    ctx.log.info(`plugin ${name} ${verb}d`, { by: req.auth?.keyId });
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
                };
            },
        });
    }
    ctx.routes.add({
        method: 'POST',
        path: '/api/v1/plugins/:name/public-routes',
        access: ADMIN,
        body: {
            type: 'object',
            required: ['enabled'],
            properties: { enabled: { type: 'boolean' } },
            additionalProperties: false,
        },
        errorCodes: { enabled: 'validation_error' },
        fallbackCode: 'validation_error',
        handler: (req) => {
            const name = req.params.name;
            requirePlugin(host, name);
            const row = host.setPublicRoutes(name, req.body.enabled);
            const served = publicRoutesServed(row, host);
            const state = row.public_routes_enabled ? 'on' : 'off';
            let message;
            if (row.public_routes.length === 0)
                message = `Public-routes switch of ${name} is ${state}; the plugin declares no public routes.`;
            else if (served)
                message = `Public routes of ${name} are served now.`;
            else
                message = `Public-routes switch of ${name} is ${state}; its public routes are not served (${whyNotServed(row, host)}).`;
            if (row.public_routes.length)
                ctx.log.info(`plugin ${name} public routes switched ${state}`, { by: req.auth?.keyId });
            return {
                plugin: name,
                public_routes_enabled: row.public_routes_enabled,
                public_routes: row.public_routes,
                served,
                message,
            };
        },
    });
    ctx.routes.add({
        method: 'DELETE',
        path: '/api/v1/plugins/:name',
        access: ADMIN,
        handler: (req) => {
            const name = req.params.name;
            requirePlugin(host, name);
            host.remove(name);
            ctx.log.info(`plugin ${name} deleted`, { by: req.auth?.keyId });
            return { plugin: name, deleted: true, message: `Plugin ${name} deleted.` };
        },
    });
}
function whyNotServed(row, host) {
    if (!host.publicRoutesAllowed())
        return 'NODE_PUBLIC_PLUGIN_ROUTES=deny';
    if (!row.public_routes_enabled)
        return 'switch off';
    return row.enabled ? `plugin not running yet; ${RESTART_HINT}` : 'plugin disabled';
}
//# sourceMappingURL=routes.js.map