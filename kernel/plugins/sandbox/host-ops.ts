/**
 * The host operations of one sandboxed plugin: what its isolate reaches through the context (store, settings, public
 * events, log, gateway), bound to the plugin's name so it can only ever name its own data. The node's sandbox host
 * and the test kit (sdk/testing.ts) serve a plugin through the same operations, over their own stores and offers.
 */
import type { Logger, SandboxCaller } from '../../../sdk/index.js';
import type { ThirdPartyManifest } from '../../../sdk/plugin-manifest.js';
import { ApiError } from '../../errors.js';
import { isEventName, MAX_EVENT_BYTES } from './bridge.js';
import { parseFromPlugin, type HostHandler } from './isolate.js';
import type { SandboxStores, StoreQuota } from './kv-store.js';

const MAX_ARGS_CHARS = 1_100_000;

export type GatewayHandler = (args: unknown, caller: SandboxCaller) => unknown | Promise<unknown>;

export interface HostOpsDeps {
  manifest: ThirdPartyManifest;
  stores: SandboxStores;
  quota: StoreQuota;
  /** The plugin's settings now (the operator may change them between calls). */
  settings(): Record<string, unknown>;
  /** Publishes `<plugin>.<event>` to the public event stream. */
  publish(event: string, payload: unknown): void;
  /** The handler of a gateway operation offered now, or null. */
  gateway(op: string): GatewayHandler | null;
  /** The plugin's own log, and whether this line is within its rate. */
  log: Logger;
  takeLogLine(): boolean;
  /** Where the host reports an operation that failed on its side. */
  hostLog: Logger;
}

export function hostOperations(d: HostOpsDeps): HostHandler {
  const m = d.manifest;
  const name = m.name;
  const quota = d.quota;
  const permissions = new Set(m.permissions);
  const log = d.log;
  const ops: Record<string, (a: Record<string, unknown>) => unknown> = {
    'store.get': (a) => {
      const text = d.stores.get(name, a.key);
      return text === null ? null : (parseFromPlugin(text) as unknown);
    },
    'store.set': (a) => void d.stores.set(name, a.key, JSON.stringify(a.value ?? null), quota),
    'store.delete': (a) => d.stores.delete(name, a.key),
    'store.list': (a) => d.stores.list(name, a.prefix, a.after, a.limit),
    'store.usage': () => ({ ...d.stores.usage(name), quota_bytes: quota.bytes, quota_keys: quota.keys }),
    'settings.get': (a) => {
      const values = d.settings();
      if (typeof a.key !== 'string' || !(a.key in values)) throw new ApiError('unknown_setting', 400, `Plugin ${name} declares no setting ${String(a.key)}`);
      return values[a.key];
    },
    'settings.all': () => d.settings(),
    'events.publish': (a) => {
      if (!isEventName(a.event) || a.event.includes('.') || a.event.length > 64) {
        throw new ApiError('invalid_event', 400, 'An event name is 1-64 of a-z, 0-9, - and _; others see it as <plugin>.<event>');
      }
      if (Buffer.byteLength(JSON.stringify(a.payload ?? null)) > MAX_EVENT_BYTES) throw new ApiError('event_too_large', 400, `An event payload is at most ${MAX_EVENT_BYTES} bytes of JSON`);
      d.publish(`${name}.${a.event}`, a.payload ?? null);
      return null;
    },
    log: (a) => {
      if (!d.takeLogLine()) return null;
      const level = a.level === 'debug' || a.level === 'warn' || a.level === 'error' ? a.level : 'info';
      const fields = a.fields !== null && typeof a.fields === 'object' && !Array.isArray(a.fields) ? (a.fields as Record<string, unknown>) : undefined;
      log[level](String(a.message).slice(0, 2000), fields);
      return null;
    },
  };
  return async (op, argsJson) => {
    try {
      if (argsJson.length > MAX_ARGS_CHARS) throw new ApiError('too_large', 400, 'The arguments of a host operation are at most 1 MiB of JSON');
      const args = (parseFromPlugin(argsJson) ?? {}) as Record<string, unknown>;
      let result: unknown;
      if (op === 'gateway') {
        const gop = String(args.op);
        if (!permissions.has(gop)) {
          throw new ApiError('permission_denied', 403, `Plugin ${name} may not call ${gop}: its plugin.json does not list that permission`);
        }
        const handler = d.gateway(gop);
        if (!handler) throw new ApiError('gateway_unavailable', 503, `Gateway operation ${gop} is not offered now (the builtin plugin that serves it is not running)`);
        result = await handler(args.args ?? null, { plugin: name });
      } else {
        const fn = ops[op];
        if (!fn) throw new ApiError('unknown_operation', 400, `Unknown host operation ${op}`);
        result = fn(args);
      }
      return JSON.stringify({ ok: result === undefined ? null : result });
    } catch (err) {
      if (err instanceof ApiError) return JSON.stringify({ error: { code: err.code, status: err.status, message: err.message } });
      d.hostLog.error('host operation failed', { plugin: name, op, error: err instanceof Error ? err.message : String(err) });
      return JSON.stringify({ error: { code: 'internal_error', status: 500, message: 'The node could not carry out the operation' } });
    }
  };
}
