/**
 * The JavaScript that runs inside a plugin's isolate before the plugin's own code: the context object, the
 * dispatcher the host calls, and the module `sdk/sandbox.js` resolves to there.
 *
 * What keeps the node safe is on the host side (every answer is a size-capped JSON string, parsed by the host and
 * checked there; host operations are bound to the plugin's name). This code only has to be honest for plugins that
 * are: a plugin that tampers with it breaks nothing but itself.
 *
 * Host operations are synchronous calls out of the isolate (`applySyncPromise`): the isolate's thread waits, the
 * node's event loop runs the operation. So a call into the plugin is one task of the isolate from start to end,
 * microtasks included: the CPU limit of the call covers all of it, and no plugin code can ever run after its call
 * has answered (nothing can wake the isolate later), so an idle isolate is really idle.
 */
import { REMOVED_GLOBALS } from '../../../sdk/sandbox-globals.js';

export interface RuntimeConfig {
  name: string;
  version: string;
  /** Largest answer, in UTF-16 code units of its JSON text. */
  maxOutput: number;
}

/** Evaluated as a script; its value is the dispatcher `{ run, runSync, install }`. `__wn_host` is the host Reference. */
export function bootstrapSource(config: RuntimeConfig): string {
  return `(function () {
  'use strict';
  const CONFIG = ${JSON.stringify(config)};
  const g = globalThis;
  const host = g.__wn_host;
  delete g.__wn_host;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const { freeze, keys: objectKeys, create, defineProperty, getPrototypeOf, getOwnPropertyNames } = Object;
  const ObjectPrototype = Object.prototype;
  const reflectApply = Reflect.apply;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);

  // No code from strings, no WebAssembly, no shared memory (Atomics.wait would park the isolate's thread).
  const refused = function () { throw new TypeErrorCtor('code generation from strings is not available to sandboxed plugins'); };
  for (const fn of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    defineProperty(getPrototypeOf(fn), 'constructor', { value: refused, writable: false, configurable: false, enumerable: false });
  }
  for (const name of ${JSON.stringify(REMOVED_GLOBALS)}) delete g[name];

  class ApiError extends ErrorCtor {
    constructor(code, status, message, context) {
      super(message);
      this.name = 'ApiError';
      this.code = code;
      this.status = status;
      this.context = context;
    }
  }
  class Reply {
    constructor(data, status = 200, message, headers = {}) {
      this.data = data;
      this.status = status;
      this.message = message;
      this.headers = headers;
    }
  }
  class RawReply {
    constructor(body, contentType, status = 200, headers = {}) {
      this.body = body;
      this.contentType = contentType;
      this.status = status;
      this.headers = headers;
    }
  }
  const created = (data, message) => new Reply(data, 201, message);
  const definePlugin = (definition) => definition;
  defineProperty(g, '__wn_sdk', { value: freeze({ ApiError, Reply, RawReply, created, definePlugin }), configurable: true });

  // Contract functions are called while the node waits for them: a host operation there could never be answered.
  let inContract = false;
  function hostCall(op, args) {
    if (inContract) throw new ErrorCtor(op + ' is not available inside a contract function (they are pure: fields in, answer out)');
    const text = stringify(args === undefined ? null : args);
    if (typeof text !== 'string') throw new TypeErrorCtor(op + ': arguments must be JSON');
    const answer = parse(host.applySyncPromise(undefined, [op, text], { arguments: { copy: true } }));
    if (answer.error) throw new ApiError(answer.error.code, answer.error.status, answer.error.message);
    return answer.ok === undefined ? null : answer.ok;
  }
  const later = (op, args) => {
    try {
      return promiseResolve(hostCall(op, args));
    } catch (err) {
      return promiseReject(err);
    }
  };

  let setupOpen = false;
  let registrations = null;
  let now = 0;
  const handlers = create(null);
  const subscribers = create(null);
  const contracts = create(null);

  function needSetup(what) {
    if (!setupOpen) throw new ErrorCtor(what + ' is possible during setup only');
  }
  function register(kind, route) {
    needSetup('registering a route');
    if (route === null || typeof route !== 'object') throw new TypeErrorCtor('a route is an object {method, path, handler}');
    const method = route.method;
    const path = route.path;
    if (typeof method !== 'string' || typeof path !== 'string') throw new TypeErrorCtor('a route needs a method and a path');
    if (typeof route.handler !== 'function') throw new TypeErrorCtor('route ' + method + ' ' + path + ' has no handler');
    const id = kind + ' ' + method + ' ' + path;
    if (handlers[id]) throw new ErrorCtor('route ' + method + ' ' + path + ' is registered twice');
    handlers[id] = route.handler;
    registrations.routes.push(kind === 'plugin' ? { kind, method, path, scope: route.scope === undefined ? null : route.scope } : { kind, method, path });
  }
  function logger(level) {
    return (message, fields) => {
      try {
        hostCall('log', { level, message: StringCtor(message), fields: fields === undefined ? null : fields });
      } catch (err) {
        // a log line that cannot be written (not JSON, over the rate) is dropped, never thrown at the plugin
      }
    };
  }
  const log = freeze({ debug: logger('debug'), info: logger('info'), warn: logger('warn'), error: logger('error') });
  defineProperty(g, 'console', { value: freeze({ log: log.info, info: log.info, debug: log.debug, warn: log.warn, error: log.error }), configurable: true, writable: true });

  const ctx = freeze({
    name: CONFIG.name,
    version: CONFIG.version,
    routes: freeze({ plugin: (route) => register('plugin', route), public: (route) => register('public', route) }),
    store: freeze({
      get: (key) => later('store.get', { key }),
      set: (key, value) => later('store.set', { key, value: value === undefined ? null : value }).then(() => undefined),
      delete: (key) => later('store.delete', { key }),
      list: (prefix, options) =>
        later('store.list', {
          prefix: prefix === undefined ? null : prefix,
          after: options && options.after !== undefined ? options.after : null,
          limit: options && options.limit !== undefined ? options.limit : null,
        }),
      usage: () => later('store.usage', null),
    }),
    settings: freeze({ get: (key) => later('settings.get', { key }), all: () => later('settings.all', null) }),
    events: freeze({
      publish: (event, payload) => later('events.publish', { event, payload: payload === undefined ? null : payload }).then(() => undefined),
      subscribe: (event, handler) => {
        needSetup('subscribing to an event');
        if (typeof event !== 'string' || typeof handler !== 'function') throw new TypeErrorCtor('subscribe(event, handler)');
        const list = subscribers[event] || (subscribers[event] = []);
        if (list.length === 0) registrations.events.push(event);
        list.push(handler);
      },
    }),
    log,
    clock: freeze({ now: () => now }),
    gateway: freeze({ call: (op, args) => later('gateway', { op, args: args === undefined ? null : args }) }),
    contribute: (point, contract) => {
      needSetup('contributing');
      if (typeof point !== 'string' || contract === null || typeof contract !== 'object' || typeof contract.id !== 'string') {
        throw new TypeErrorCtor('contribute(point, {id, ...})');
      }
      const key = point + '\\u0000' + contract.id;
      if (contracts[key]) throw new ErrorCtor(point + ' ' + contract.id + ' is contributed twice');
      const methods = [];
      for (let o = contract; o !== null && o !== ObjectPrototype; o = getPrototypeOf(o)) {
        for (const k of getOwnPropertyNames(o)) {
          if (k !== 'constructor' && typeof contract[k] === 'function' && methods.indexOf(k) < 0) methods.push(k);
        }
      }
      const data = {};
      for (const k of objectKeys(contract)) if (typeof contract[k] !== 'function') data[k] = contract[k];
      contracts[key] = contract;
      registrations.contracts.push({ point, id: contract.id, methods, data });
    },
  });

  function safeText(value, max) {
    try {
      return StringCtor(value).slice(0, max);
    } catch (err) {
      return 'unprintable';
    }
  }
  function encode(out) {
    let text;
    try {
      text = stringify(out);
    } catch (err) {
      return stringify({ bad: 'the answer is not JSON: ' + safeText(err && err.message, 200) });
    }
    if (typeof text !== 'string') return stringify({ bad: 'the answer is not JSON' });
    if (text.length > CONFIG.maxOutput) return stringify({ big: text.length });
    return text;
  }
  function encodeValue(value) {
    if (value instanceof Reply) {
      return encode({ reply: { data: value.data === undefined ? null : value.data, status: value.status, message: value.message === undefined ? null : value.message, headers: value.headers } });
    }
    if (value instanceof RawReply) return encode({ raw: { body: value.body, type: value.contentType, status: value.status, headers: value.headers } });
    return encode({ ok: value === undefined ? null : value });
  }
  function encodeError(err) {
    if (err instanceof ApiError) {
      return encode({ api: { code: err.code, status: err.status, message: safeText(err.message, 1000), context: err.context === undefined ? null : err.context } });
    }
    const name = err !== null && typeof err === 'object' ? safeText(err.name, 100) : 'Error';
    const message = err !== null && typeof err === 'object' ? safeText(err.message, 1000) : safeText(err, 1000);
    const stack = err !== null && typeof err === 'object' && typeof err.stack === 'string' ? safeText(err.stack, 4000) : null;
    return encode({ fault: { name, message, stack } });
  }

  let definition = null;
  async function run(text) {
    const call = parse(text);
    now = call.now;
    try {
      if (call.kind === 'setup') {
        if (definition === null || typeof definition !== 'object' || typeof definition.setup !== 'function') {
          throw new TypeErrorCtor('the entry must default-export definePlugin({ setup(ctx) { ... } })');
        }
        registrations = { routes: [], events: [], contracts: [] };
        setupOpen = true;
        try {
          await definition.setup(ctx);
        } finally {
          setupOpen = false;
        }
        return encode({ ok: registrations });
      }
      if (call.kind === 'route') {
        const handler = handlers[call.id];
        if (!handler) throw new ErrorCtor('no handler for ' + call.id);
        const req = call.request;
        req.body = call.body === '' ? {} : parse(call.body);
        return encodeValue(await handler(req));
      }
      if (call.kind === 'event') {
        for (const handler of subscribers[call.event] || []) await handler(call.payload);
        return encode({ ok: null });
      }
      throw new ErrorCtor('unknown call ' + call.kind);
    } catch (err) {
      return encodeError(err);
    }
  }
  function runSync(text) {
    const call = parse(text);
    now = call.now;
    inContract = true;
    try {
      const contract = contracts[call.point + '\\u0000' + call.id];
      const fn = contract === undefined ? undefined : contract[call.method];
      if (typeof fn !== 'function') throw new ErrorCtor(call.point + ' ' + call.id + ' has no ' + call.method + '()');
      const value = reflectApply(fn, contract, call.args);
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
        throw new TypeErrorCtor(call.method + '() returned a promise: contract functions answer synchronously');
      }
      return encode({ ok: value === undefined ? null : value });
    } catch (err) {
      return encodeError(err);
    } finally {
      inContract = false;
    }
  }
  function install(value) {
    definition = value;
  }
  return { run, runSync, install };
})()`;
}

/** The module `sdk/sandbox.js` is inside the isolate: the values sdk/sandbox.ts exports, made by the runtime. */
export const SDK_MODULE_SOURCE = `const sdk = globalThis.__wn_sdk;
delete globalThis.__wn_sdk;
export const ApiError = sdk.ApiError;
export const Reply = sdk.Reply;
export const RawReply = sdk.RawReply;
export const created = sdk.created;
export const definePlugin = sdk.definePlugin;
`;

/** The names SDK_MODULE_SOURCE exports (a unit test holds them equal to sdk/sandbox.ts's runtime exports). */
export const SDK_MODULE_EXPORTS = ['ApiError', 'RawReply', 'Reply', 'created', 'definePlugin'] as const;
