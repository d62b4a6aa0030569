import type {
  Clock,
  KernelApi,
  NodeIdentityApi,
  PluginContext,
  PluginDb,
  RouteDefinition,
  SettingDefinition,
  StopReason,
} from '../../sdk/index.js';
import { assertionBytes, verifyAssertion } from '../crypto/assertion.js';
import type { Db } from '../db/open.js';
import { migrate } from '../db/migrations.js';
import type { TxRunner } from '../db/tx.js';
import type { EventBus } from '../events.js';
import type { JobRunner } from '../jobs.js';
import type { LogSink } from '../log.js';
import type { MetricsRegistry } from '../metrics.js';
import type { SettingsRegistry } from '../settings.js';
import type { RouteTable } from '../http/route-table.js';
import type { PeerLayer } from '../peers/layer.js';
import type { BuiltinPlugin, ContextFactory } from './host.js';
import type { SandboxHost } from './sandbox/host.js';
import type { ServiceRegistry } from './services.js';

export interface ContextDeps {
  db: Db;
  tx: TxRunner;
  events: EventBus;
  jobs: JobRunner;
  settings: SettingsRegistry;
  logs: LogSink;
  metrics: MetricsRegistry;
  clock: Clock;
  identity: NodeIdentityApi;
  kernel: KernelApi;
  peers: PeerLayer;
  services: () => ServiceRegistry;
  /** Third-party plugins: what builtin plugins offer them goes through `ctx.sandbox`. */
  sandbox: SandboxHost;
  /** Startup banner lines per plugin (RunningNode.banner). */
  banner: Map<string, readonly string[]>;
  registerScopes(scopes: readonly string[]): void;
}

/**
 * Actions of `/api/v1/plugins/<name>/<action>` that the plugin admin routes own (and the empty action, which
 * would shadow `/api/v1/plugins/<name>`): a plugin serving one of them could fake its own disabling.
 */
export const RESERVED_PLUGIN_ACTIONS: ReadonlySet<string> = new Set(['', 'enable', 'disable', 'public-routes', 'settings', 'limits']);

/**
 * The full context of a builtin plugin. Everything a plugin registers (routes, jobs, settings, event
 * subscriptions) is tracked so that unloading it leaves nothing behind and a reload starts clean.
 */
export function builtinContextFactory(deps: ContextDeps): ContextFactory {
  return (plugin: BuiltinPlugin, table: RouteTable) => {
    const { manifest } = plugin;
    const name = manifest.name;
    const stopHooks: ((reason: StopReason) => void | Promise<void>)[] = [];
    const unsubscribes: (() => void)[] = [];
    const settingKeys: string[] = [];
    const publicActions = new Set(manifest.public_routes ?? []);
    deps.registerScopes(manifest.scopes ?? []);
    const peer = deps.peers.forPlugin(name);

    const db: PluginDb = {
      handle: deps.db,
      migrate: (migrations) => migrate(deps.db, `plugin:${name}`, migrations),
      tx: (fn) => deps.tx.run(fn),
      savepoint: (fn) => deps.tx.savepoint(fn),
      afterCommit: (fn) => deps.tx.afterCommit(fn),
    };

    const ctx: PluginContext = {
      name,
      manifest,
      db,
      routes: {
        authenticateWith: (authenticator) => table.addAuthenticator(name, authenticator),
        add: (route) => table.add(name, route as RouteDefinition, { kind: 'api' }),
        plugin: (route) => {
          const action = route.path.replace(/^\/+/, '').split('/')[0] ?? '';
          if (RESERVED_PLUGIN_ACTIONS.has(action)) {
            throw new Error(`plugin ${name} registers the reserved action "${action}" (the plugin admin routes own it)`);
          }
          table.add(name, route as RouteDefinition, { kind: 'plugin', plugin: name });
        },
        public: (route) => {
          const action = route.path.replace(/^\/+/, '').split('/')[0] ?? '';
          if (!publicActions.has(action)) {
            throw new Error(`plugin ${name} serves public action "${action}" without declaring it in public_routes`);
          }
          table.add(name, { ...route, access: { public: true } } as RouteDefinition, { kind: 'public', plugin: name });
        },
      },
      events: {
        publish: (event, payload) => deps.events.publish(event, payload),
        subscribe: (event, handler) => {
          const off = deps.events.subscribe(event, handler);
          unsubscribes.push(off);
          return off;
        },
      },
      jobs: {
        register: (job) => void deps.jobs.register(name, job),
        kick: (job) => deps.jobs.kick(`${name}.${job}`),
        reschedule: (job) => deps.jobs.reschedule(`${name}.${job}`),
        nextRun: (job) => deps.jobs.nextRun(`${name}.${job}`),
      },
      settings: {
        declare: (defs: readonly SettingDefinition[]) => {
          deps.settings.declare(defs);
          settingKeys.push(...defs.map((d) => d.key));
        },
        get: (key) => deps.settings.get(key),
        onChange: (key, listener) => {
          const off = deps.settings.onChange(key, listener);
          unsubscribes.push(off);
          return off;
        },
      },
      services: {
        provide: (service, impl) => {
          if (!(manifest.provides ?? []).includes(service)) {
            throw new Error(`plugin ${name} provides "${service}" without listing it in plugin.json provides`);
          }
          deps.services().provide(service, impl);
        },
        use: (service) => {
          if (!(manifest.requires ?? []).includes(service) && !(manifest.provides ?? []).includes(service)) {
            throw new Error(`plugin ${name} uses "${service}" without listing it in plugin.json requires`);
          }
          return deps.services().use(service);
        },
      },
      identity: Object.freeze({
        ...deps.identity,
        assert: (domain: string, bytes: Uint8Array) => deps.identity.sign(assertionBytes(name, domain, bytes)),
        verifyAssertion,
      }),
      peer: peer.api,
      log: deps.logs.logger(name),
      metrics: deps.metrics.forOwner(name),
      clock: deps.clock,
      kernel: deps.kernel,
      sandbox: deps.sandbox.bridgeFor(name),
      onStop: (fn) => void stopHooks.push(fn),
      banner: (lines) => {
        if (lines.length) deps.banner.set(name, [...lines]);
        else deps.banner.delete(name);
      },
    };

    const teardown = async (reason: StopReason): Promise<void> => {
      // a plugin whose setup failed must leave no route behind in the generation being built
      table.removeOwner(name);
      deps.metrics.releaseOwner(name);
      for (const hook of stopHooks.reverse()) await hook(reason);
      for (const off of unsubscribes) off();
      peer.release();
      deps.sandbox.releaseOwner(name);
      await deps.jobs.removeOwner(name);
      deps.settings.undeclare(settingKeys);
      deps.banner.delete(name);
    };
    return { ctx, teardown };
  };
}
