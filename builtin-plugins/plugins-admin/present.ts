import type { PluginHostMechanism, PluginStatusRow } from '../../sdk/index.js';

/** A plugin row of `GET /api/v1/plugins`: the host's status row plus what a restart and the gates would change. */
export interface PluginView extends PluginStatusRow {
  /** Whether the running state differs from the persisted flag (POST /api/v1/system/restart applies it). */
  restart_required: boolean;
  /** Whether `/p/<name>/...` is served right now: ceiling allows, switch on, plugin running. */
  public_routes_served: boolean;
}

/** The plugin runs now (its routes are mounted). */
export const isRunning = (row: PluginStatusRow): boolean =>
  row.status === 'active' || (row.status === 'restart_pending' && !row.enabled);

export function restartRequired(row: PluginStatusRow): boolean {
  return row.enabled !== isRunning(row);
}

export function publicRoutesServed(row: PluginStatusRow, host: PluginHostMechanism): boolean {
  return row.public_routes.length > 0 && host.publicRoutesAllowed() && row.public_routes_enabled && isRunning(row);
}

export function pluginView(row: PluginStatusRow, host: PluginHostMechanism): PluginView {
  return { ...row, restart_required: restartRequired(row), public_routes_served: publicRoutesServed(row, host) };
}

/**
 * Why a plugin's declared public routes would not be served even once it runs, or null. The node-wide ceiling
 * (NODE_PUBLIC_PLUGIN_ROUTES=deny) and the plugin's own switch both gate them.
 */
export function publicRoutesGate(row: PluginStatusRow, host: PluginHostMechanism): string | null {
  if (row.public_routes.length === 0) return null;
  const paths = row.public_routes.map((a) => `/p/${row.name}/${a}`).join(', ');
  if (!host.publicRoutesAllowed()) {
    return `Public routes of ${row.name} (${paths}) will not be served: NODE_PUBLIC_PLUGIN_ROUTES=deny on this node.`;
  }
  if (!row.public_routes_enabled) {
    return `Public routes of ${row.name} (${paths}) will not be served: its public-routes switch is off (POST /api/v1/plugins/${row.name}/public-routes {"enabled":true}).`;
  }
  return null;
}
