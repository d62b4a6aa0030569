/** What a plugin's `setup` receives, and what a plugin module default-exports. */
import type { PluginDb } from './database.js';
import type { IdentityApi } from './identity.js';
import type { KernelApi } from './kernel-api.js';
import type { PluginManifest } from './manifest.js';
import type { PeerApi } from './peers.js';
import type { RoutesApi } from './routes.js';
import type { Clock, EventsApi, JobsApi, Logger, MetricsApi, ServicesApi } from './runtime.js';
import type { SandboxBridgeApi } from './sandbox-bridge.js';
import type { SettingsApi } from './settings.js';
import type { BootRecoveryContext } from './snapshots.js';

export interface PluginContext {
  readonly name: string;
  readonly manifest: PluginManifest;
  readonly db: PluginDb;
  readonly routes: RoutesApi;
  readonly events: EventsApi;
  readonly jobs: JobsApi;
  readonly settings: SettingsApi;
  readonly services: ServicesApi;
  readonly identity: IdentityApi;
  readonly peer: PeerApi;
  readonly log: Logger;
  readonly metrics: MetricsApi;
  readonly clock: Clock;
  /** Mechanisms of the kernel that only builtin plugins reach (key store, plugin host, lifecycle). */
  readonly kernel: KernelApi;
  /** What this plugin offers third-party (sandboxed) plugins: gateway operations, public events, extension points. */
  readonly sandbox: SandboxBridgeApi;
  /**
   * Called when the plugin stops; release timers and handles here. `restart`: an in-process restart reloads the
   * plugins; `shutdown`: the node stops (the listener and the background jobs have stopped, the database is open).
   */
  onStop(fn: (reason: StopReason) => void | Promise<void>): void;
  /**
   * Lines for the operator in the startup banner of wallet-node, printed as given (a call replaces the plugin's
   * earlier lines; an empty list removes them). The daemon prints the banner once, after every plugin's setup.
   */
  banner(lines: readonly string[]): void;
}

/** What a sandboxed plugin gets (the isolated-vm host implements it): sdk/sandbox.ts, docs/plugins.md. */
export type { SandboxPluginContext } from './sandbox.js';

export type StopReason = 'restart' | 'shutdown';

export interface PluginDefinition {
  setup(ctx: PluginContext): void | Promise<void>;
  /**
   * Boot recovery (builtin plugins only): runs at every start, before the identity and the database are opened,
   * and may fill an empty data directory with a node state it recovered (`BootRecoveryContext.install`). Throwing
   * stops the start with the error's message; nothing is installed then.
   */
  recover?(boot: BootRecoveryContext): void | Promise<void>;
}

/** A plugin the node is started with, in its own process (the builtin ones): its manifest and its definition. */
export interface BuiltinPlugin {
  manifest: PluginManifest;
  definition: PluginDefinition;
}

export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}
