/**
 * The plugin contract. Builtin plugins (trusted, in-process) and third-party plugins (isolated-vm) implement the
 * same shape: a manifest (`plugin.json`) and an entry that default-exports `definePlugin({ setup(ctx) { ... } })`.
 * Builtin plugins get the full context; sandboxed ones a narrowed one (`SandboxPluginContext`, sdk/sandbox.ts):
 * their own route namespaces, a key-value store, public events, their settings, a log, the gateway operations they
 * list and contributions to extension points (docs/plugins.md).
 *
 * The declarations live in topic modules beside this one (sdk/routes.ts, sdk/peers.ts, ...); plugins import them from
 * here, the one door, so that how the SDK is cut into files is no part of the contract.
 */
export type { PaybackRail, RailCatalogEntry, RailField, RailFieldError, RailFields } from './payback-rail.js';
export { defineRail } from './payback-rail.js';
export * from './money.js';
export * from './paging.js';
export * from './read-cache.js';
export * from './lookup.js';
export * from './sliding-window.js';
export * from './statements.js';
export * from './storage.js';
export { ApiError, RawReply, Reply, created } from './replies.js';
export * from './manifest.js';
export * from './routes.js';
export * from './settings.js';
export * from './runtime.js';
export * from './database.js';
export * from './identity.js';
export * from './peers.js';
export * from './context.js';
export * from './sandbox-bridge.js';
export * from './kernel-api.js';
export * from './outbound.js';
export * from './snapshots.js';
export type { ResponseData } from './responses.js';
