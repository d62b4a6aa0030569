import Router, { type Layer, type RouterMiddleware } from '@koa/router';
import type { AuthCandidate, AuthInfo, RequestAuthenticator, RouteDefinition } from '../../sdk/index.js';
import { compileResponseCheck, compileValidator, type Validator } from './validation.js';

/** Where a route lives: a core REST path or a plugin's namespaces. (The peer endpoint is served before the REST pipeline.) */
export type RouteMount = { kind: 'api' } | { kind: 'plugin'; plugin: string } | { kind: 'public'; plugin: string };

export interface MountedRoute {
  def: RouteDefinition;
  mount: RouteMount;
  fullPath: string;
  owner: string;
  validateBody: Validator | null;
  validateQuery: Validator | null;
  /** Whether an answer's `data` matches the route's response schema (null: the route declares none). */
  checkResponse: ((data: unknown) => string | null) | null;
}

export function fullPathOf(def: RouteDefinition, mount: RouteMount): string {
  const action = def.path.replace(/^\/+/, '');
  switch (mount.kind) {
    case 'plugin':
      return `/api/v1/plugins/${mount.plugin}/${action}`;
    case 'public':
      return `/p/${mount.plugin}/${action}`;
    default:
      return def.path;
  }
}

const paramCount = (path: string): number => path.split('/').filter((s) => s.startsWith(':')).length;

/**
 * One generation of routes (rebuilt on every plugin reload, then swapped in whole). Routes are registered
 * with @koa/router from the most to the least parameterised, so with `exclusive` the most literal match
 * wins: `/things/latest` over `/things/:id`. Paths match case-sensitively.
 */
export class RouteTable {
  readonly #routes: MountedRoute[] = [];
  readonly #resources = new Set<string>();
  readonly #authenticators: { owner: string; authenticate: RequestAuthenticator }[] = [];
  #router: Router | null = null;
  /** The route each of the router's layers serves. */
  #byLayer = new Map<Layer, MountedRoute>();
  readonly #changeListeners = new Set<() => void>();

  /** Called when routes were added or removed after the table was put in service (`changed()`). */
  onChanged(listener: () => void): void {
    this.#changeListeners.add(listener);
  }

  /** Tells whoever serves this table that its routes changed while it served (a plugin started or stopped alone). */
  changed(): void {
    for (const listener of this.#changeListeners) listener();
  }

  addAuthenticator(owner: string, authenticate: RequestAuthenticator): void {
    this.#authenticators.push({ owner, authenticate });
  }

  /** What the plugins' authenticators grant an unsigned request; null when none of them applies. */
  authenticate(req: AuthCandidate): AuthInfo | null {
    for (const a of this.#authenticators) {
      const auth = a.authenticate(req);
      if (auth) return auth;
    }
    return null;
  }

  add(owner: string, def: RouteDefinition, mount: RouteMount): void {
    const fullPath = fullPathOf(def, mount);
    if (this.#routes.some((r) => r.fullPath === fullPath && r.def.method === def.method)) {
      throw new Error(`route ${def.method} ${fullPath} is registered twice (by ${owner})`);
    }
    this.#routes.push({
      def,
      mount,
      owner,
      fullPath,
      validateBody: def.body ? compileValidator(def.body, 'body', def.errorCodes, def.fallbackCode) : null,
      validateQuery: def.query ? compileValidator(def.query, 'query', def.errorCodes, def.fallbackCode) : null,
      checkResponse: def.response ? compileResponseCheck(def.response) : null,
    });
    const segments = fullPath.split('/').filter(Boolean);
    if (segments[0] === 'api' && segments[1] === 'v1' && segments[2]) this.#resources.add(segments[2]);
    this.#router = null;
  }

  /** Drops every route an owner registered (a plugin whose setup failed half-way). */
  removeOwner(owner: string): void {
    for (let i = this.#routes.length - 1; i >= 0; i--) if (this.#routes[i]!.owner === owner) this.#routes.splice(i, 1);
    for (let i = this.#authenticators.length - 1; i >= 0; i--) if (this.#authenticators[i]!.owner === owner) this.#authenticators.splice(i, 1);
    this.#resources.clear();
    for (const r of this.#routes) {
      const segments = r.fullPath.split('/').filter(Boolean);
      if (segments[0] === 'api' && segments[1] === 'v1' && segments[2]) this.#resources.add(segments[2]);
    }
    this.#router = null;
  }

  /** Whether `/api/v1/<resource>` names something this node serves (unknown_resource vs unknown_action). */
  knowsResource(resource: string): boolean {
    return this.#resources.has(resource);
  }

  routes(): readonly MountedRoute[] {
    return this.#routes;
  }

  router(dispatch: (route: MountedRoute) => RouterMiddleware): Router {
    if (this.#router) return this.#router;
    // Case-sensitive: `/API/v1/...` is not `/api/v1/...` (else it would slip past the `/api/` gate of app.ts).
    const router = new Router({ exclusive: true, sensitive: true });
    const ordered = [...this.#routes].sort((a, b) => paramCount(b.fullPath) - paramCount(a.fullPath));
    const byLayer = new Map<Layer, MountedRoute>();
    for (const route of ordered) byLayer.set(router.register(route.fullPath, [route.def.method], [dispatch(route)]) as Layer, route);
    this.#router = router;
    this.#byLayer = byLayer;
    return router;
  }

  /**
   * The route the router dispatches a (normalised) path and method to, with its parameters as the router decodes them;
   * null where it dispatches none (a 404) or the router is not built yet. With `exclusive`, the last match registered wins.
   */
  match(path: string, method: string): { route: MountedRoute; params: Record<string, string> } | null {
    const layers = this.#router?.match(path, method).pathAndMethod;
    const layer = layers?.[layers.length - 1];
    const route = layer && this.#byLayer.get(layer);
    return route ? { route, params: layer.params(path, layer.captures(path), {}) } : null;
  }
}
