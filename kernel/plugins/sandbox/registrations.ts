import { checkActionPath, type ThirdPartyManifest } from '../../../sdk/plugin-manifest.js';
import { isEventName } from './bridge.js';
import type { Registrations } from './isolate.js';

/**
 * Everything a plugin's setup registered must stay inside what it may do; the first breach throws. `coreScope` says
 * whether a scope that is not the plugin's own is one a route of it may require.
 */
export function checkRegistrations(m: ThirdPartyManifest, r: Registrations, coreScope: (scope: string) => boolean): void {
  const ownScopes = new Set(m.scopes);
  for (const route of r.routes) {
    if (route.kind !== 'plugin' && route.kind !== 'public') throw new Error(`it registered a route of kind ${String(route.kind)}`);
    if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(route.method)) throw new Error(`route ${route.method} ${route.path}: unknown method`);
    try {
      checkActionPath(route.path, `route ${route.method}`);
    } catch (err) {
      throw new Error(`it registered a route outside its namespace: ${(err as Error).message}`);
    }
    if (route.kind === 'plugin') {
      const scopes = typeof route.scope === 'string' ? [route.scope] : Array.isArray(route.scope) ? route.scope : [];
      if (scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && (ownScopes.has(s) || coreScope(s)))) {
        throw new Error(`route ${route.method} ${route.path} needs a scope declared in plugin.json or a core scope, got ${JSON.stringify(route.scope)}`);
      }
    } else if (!m.public_routes.some((p) => p.path === route.path && p.method === route.method)) {
      throw new Error(`public route ${route.method} ${route.path} is not declared in plugin.json public_routes`);
    }
  }
  for (const event of r.events) if (!isEventName(event)) throw new Error(`it subscribes to "${String(event)}", which is no event name`);
  for (const c of r.contracts) {
    if (!m.contributes[c.point]?.includes(c.id)) throw new Error(`it contributes ${c.point} ${c.id}, which plugin.json does not list under contributes`);
    if (!Array.isArray(c.methods) || !c.methods.every((x) => typeof x === 'string')) throw new Error(`contract ${c.id} is malformed`);
  }
}
