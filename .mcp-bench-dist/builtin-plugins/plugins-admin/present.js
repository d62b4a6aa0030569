/** The plugin runs now (its routes are mounted). */
export const isRunning = (row) => row.status === 'active' || (row.status === 'restart_pending' && !row.enabled);
export function restartRequired(row) {
    return row.enabled !== isRunning(row);
}
export function publicRoutesServed(row, host) {
    return row.public_routes.length > 0 && host.publicRoutesAllowed() && row.public_routes_enabled && isRunning(row);
}
export function pluginView(row, host) {
    return { ...row, restart_required: restartRequired(row), public_routes_served: publicRoutesServed(row, host) };
}
/**
 * Why a plugin's declared public routes would not be served even once it runs, or null. The node-wide ceiling
 * (NODE_PUBLIC_PLUGIN_ROUTES=deny) and the plugin's own switch both gate them.
 */
export function publicRoutesGate(row, host) {
    if (row.public_routes.length === 0)
        return null;
    const paths = row.public_routes.map((a) => `/p/${row.name}/${a}`).join(', ');
    if (!host.publicRoutesAllowed()) {
        return `Public routes of ${row.name} (${paths}) will not be served: NODE_PUBLIC_PLUGIN_ROUTES=deny on this node.`;
    }
    if (!row.public_routes_enabled) {
        return `Public routes of ${row.name} (${paths}) will not be served: its public-routes switch is off (POST /api/v1/plugins/${row.name}/public-routes {"enabled":true}).`;
    }
    return null;
}
//# sourceMappingURL=present.js.map