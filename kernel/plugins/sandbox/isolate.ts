import ivm from 'isolated-vm';
import { SandboxCallError } from '../../../sdk/index.js';
import { SDK_SPECIFIER } from '../../../sdk/plugin-manifest.js';
import { bootstrapSource, SDK_MODULE_SOURCE } from './runtime.js';
import { sourceLocation } from './source-map.js';

export interface IsolateLimits {
  memoryMb: number;
  /** CPU time of one call (isolated-vm's timeout counts the isolate's running time, not time spent in host operations). */
  cpuMs: number;
  /** A call that has not answered after this long is ended (a plugin awaiting a promise nothing will settle). */
  wallMs: number;
  /** Largest answer, in characters of JSON text. */
  maxOutput: number;
}

/** Why a call failed (SandboxCallError.reason). */
export type FailureReason = 'threw' | 'cpu_limit' | 'wall_limit' | 'memory_limit' | 'output_limit' | 'bad_output' | 'unavailable';

/** A call's answer that is not a failure: data, a Reply, a RawReply, or the plugin's own ApiError. */
export type CallOutcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'reply'; data: unknown; status: unknown; message: unknown; headers: unknown }
  | { kind: 'raw'; body: unknown; type: unknown; status: unknown; headers: unknown }
  | { kind: 'api'; code: unknown; status: unknown; message: unknown; context: unknown };

/** What the plugin's setup registered, as its isolate reports it (the host checks every entry). */
export interface Registrations {
  routes: { kind: string; method: string; path: string; scope?: unknown }[];
  events: string[];
  contracts: { point: string; id: string; methods: string[]; data: Record<string, unknown> }[];
}

/** A host operation: the operation name and its JSON arguments in, a JSON answer `{ok}` or `{error}` out. */
export type HostHandler = (op: string, argsJson: string) => Promise<string>;

const MAX_QUEUE = 256;

/** JSON from a plugin: `__proto__` keys are dropped, so no later merge of the value can reach a prototype. */
export function parseFromPlugin(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

/**
 * One isolate running one plugin's code. Calls are queued, one at a time, each with the CPU limit and a wall-clock
 * deadline; any failure (a throw, a limit, an answer that is not JSON or too large) disposes the isolate, and the
 * owner decides whether to make a new one. Only strings cross: JSON text in, JSON text out.
 */
export class PluginIsolate {
  #isolate: ivm.Isolate;
  #run: ivm.Reference | null = null;
  #runSync: ivm.Reference | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #queued = 0;
  #disposed = false;
  /** Set by a watchdog that disposed the isolate, so the call's rejection reports why. */
  #killedFor: FailureReason | null = null;

  /** The module's text and name, to place a fault in the plugin's sources. */
  readonly #source: string;
  readonly #filename: string;

  private constructor(
    readonly plugin: string,
    private readonly limits: IsolateLimits,
    source: string,
    entryName: string,
  ) {
    this.#isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
    this.#source = source;
    this.#filename = `${plugin}/${entryName}`;
  }

  /**
   * Makes the isolate, loads the runtime and the plugin's module (which may import only sdk/sandbox.js) and runs
   * its setup. Throws SandboxCallError when any of it fails; the isolate is disposed then.
   */
  static async start(spec: {
    name: string;
    version: string;
    source: string;
    entryName: string;
    limits: IsolateLimits;
    host: HostHandler;
    now: () => number;
  }): Promise<{ isolate: PluginIsolate; registrations: Registrations }> {
    const self = new PluginIsolate(spec.name, spec.limits, spec.source, spec.entryName);
    try {
      const context = await self.#isolate.createContext();
      await context.global.set('__wn_host', new ivm.Reference((op: unknown, args: unknown) => {
        if (typeof op !== 'string' || typeof args !== 'string') return Promise.resolve(JSON.stringify({ error: { code: 'bad_call', status: 400, message: 'bad host call' } }));
        return spec.host(op, args);
      }));
      const runtime = (await context.eval(bootstrapSource({ name: spec.name, version: spec.version, maxOutput: spec.limits.maxOutput }), {
        reference: true,
        timeout: spec.limits.cpuMs,
      })) as ivm.Reference;
      self.#run = (await runtime.get('run', { reference: true })) as ivm.Reference;
      self.#runSync = (await runtime.get('runSync', { reference: true })) as ivm.Reference;
      const install = (await runtime.get('install', { reference: true })) as ivm.Reference;
      const sdk = await self.#isolate.compileModule(SDK_MODULE_SOURCE, { filename: 'sdk/sandbox.js' });
      const entry = await self.#isolate.compileModule(spec.source, { filename: self.#filename }).catch((err: unknown) => {
        throw new SandboxCallError(spec.name, 'threw', `${spec.entryName} does not compile: ${message(err)}`);
      });
      await entry.instantiate(context, (specifier) => {
        if (SDK_SPECIFIER.test(specifier)) return sdk;
        throw new Error(`${spec.entryName} imports "${specifier}": a sandboxed plugin imports only sdk/sandbox.js`);
      }).catch((err: unknown) => {
        throw err instanceof SandboxCallError ? err : new SandboxCallError(spec.name, 'threw', message(err));
      });
      await self.#guard(() => entry.evaluate({ timeout: spec.limits.cpuMs }), `loading ${spec.entryName}`);
      const definition = (await entry.namespace.get('default', { reference: true })) as ivm.Reference;
      await install.apply(undefined, [definition.derefInto()], { timeout: spec.limits.cpuMs });
      const outcome = await self.call({ kind: 'setup', now: spec.now() });
      if (outcome.kind === 'api') throw new SandboxCallError(spec.name, 'threw', `setup threw ApiError ${String(outcome.code)}: ${String(outcome.message)}`);
      if (outcome.kind !== 'ok') throw new SandboxCallError(spec.name, 'bad_output', 'setup answered a reply');
      if (!isRegistrations(outcome.value)) throw new SandboxCallError(spec.name, 'bad_output', 'setup reported registrations of an unknown shape');
      return { isolate: self, registrations: outcome.value };
    } catch (err) {
      self.dispose();
      throw err instanceof SandboxCallError ? err : new SandboxCallError(spec.name, self.#reasonOf(err), message(err));
    }
  }

  get disposed(): boolean {
    return this.#disposed || this.#isolate.isDisposed;
  }

  /** The isolate's heap: bytes in use, and bytes of memory it holds (the benchmark's memory per idle isolate). */
  async heap(): Promise<{ used: number; physical: number }> {
    const s = await this.#isolate.getHeapStatistics();
    return { used: s.used_heap_size + s.externally_allocated_size, physical: s.total_physical_size + s.externally_allocated_size };
  }

  /** One asynchronous call (setup, a route, an event), after the calls queued before it. */
  call(payload: Record<string, unknown>): Promise<CallOutcome> {
    if (this.disposed) return Promise.reject(new SandboxCallError(this.plugin, 'unavailable', 'the plugin is not running'));
    if (this.#queued >= MAX_QUEUE) return Promise.reject(new SandboxCallError(this.plugin, 'unavailable', 'the plugin has too many calls waiting'));
    this.#queued++;
    const result = this.#queue.then(() => this.#invoke(payload));
    this.#queue = result.catch(() => undefined).finally(() => void this.#queued--);
    return result;
  }

  async #invoke(payload: Record<string, unknown>): Promise<CallOutcome> {
    if (this.disposed) throw new SandboxCallError(this.plugin, 'unavailable', 'the plugin is not running');
    const deadline = setTimeout(() => this.#kill('wall_limit'), this.limits.wallMs);
    try {
      const text = await this.#guard(
        () =>
          this.#run!.apply(undefined, [JSON.stringify(payload)], {
            arguments: { copy: true },
            result: { promise: true, copy: true },
            timeout: this.limits.cpuMs,
          }) as Promise<unknown>,
        'the call',
      );
      return this.#decode(text);
    } finally {
      clearTimeout(deadline);
    }
  }

  /**
   * One synchronous call of a contributed contract's function. The node's event loop waits for it, so it gets the
   * CPU limit given (small) and must not use host operations; the runtime refuses them.
   */
  callSync(payload: Record<string, unknown>, cpuMs: number): unknown {
    if (this.disposed) throw new SandboxCallError(this.plugin, 'unavailable', 'the plugin is not running');
    let text: unknown;
    try {
      text = this.#runSync!.applySync(undefined, [JSON.stringify(payload)], { arguments: { copy: true }, result: { copy: true }, timeout: cpuMs });
    } catch (err) {
      throw this.#failed(err);
    }
    const outcome = this.#decode(text);
    if (outcome.kind === 'api') {
      throw new SandboxCallError(this.plugin, 'threw', `ApiError ${String(outcome.code)}: ${String(outcome.message)}`);
    }
    if (outcome.kind !== 'ok') throw this.#fail('bad_output', 'a contract function answered a reply');
    return outcome.value;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      this.#isolate.dispose();
    } catch {
      // already gone (its memory limit disposed it)
    }
  }

  #kill(reason: FailureReason): void {
    this.#killedFor ??= reason;
    this.dispose();
  }

  async #guard<T>(work: () => Promise<T>, what: string): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.#failed(err, what);
    }
  }

  #reasonOf(err: unknown): FailureReason {
    if (this.#killedFor) return this.#killedFor;
    const text = message(err);
    if (/memory limit/i.test(text) || (this.#isolate.isDisposed && !this.#disposed)) return 'memory_limit';
    if (/timed out/i.test(text)) return 'cpu_limit';
    if (this.#disposed || /disposed|abandoned/i.test(text)) return 'unavailable';
    return 'threw';
  }

  #failed(err: unknown, what = 'the call'): SandboxCallError {
    if (err instanceof SandboxCallError) return err;
    const reason = this.#reasonOf(err);
    const detail =
      reason === 'cpu_limit'
        ? `${what} used more than ${this.limits.cpuMs} ms of CPU time`
        : reason === 'wall_limit'
          ? `${what} did not answer within ${this.limits.wallMs} ms`
          : reason === 'memory_limit'
            ? `${what} ran out of memory (limit ${this.limits.memoryMb} MB)`
            : `${what} failed: ${message(err)}`;
    this.dispose();
    return new SandboxCallError(this.plugin, reason, detail);
  }

  #fail(reason: FailureReason, detail: string): SandboxCallError {
    this.dispose();
    return new SandboxCallError(this.plugin, reason, detail);
  }

  #decode(text: unknown): CallOutcome {
    if (typeof text !== 'string') throw this.#fail('bad_output', 'the plugin answered something else than JSON text');
    // The runtime caps answers itself; this is the limit that holds even when the plugin tampered with it.
    if (text.length > this.limits.maxOutput + 4096) throw this.#fail('output_limit', `the answer is larger than ${this.limits.maxOutput} characters`);
    let out: Record<string, unknown>;
    try {
      out = parseFromPlugin(text) as Record<string, unknown>;
    } catch {
      throw this.#fail('bad_output', 'the plugin answered something else than JSON');
    }
    if (out === null || typeof out !== 'object') throw this.#fail('bad_output', 'the plugin answered something else than an envelope');
    if ('ok' in out) return { kind: 'ok', value: out.ok };
    const inner = out.reply ?? out.raw ?? out.api ?? out.fault;
    const fields = (inner !== null && typeof inner === 'object' ? inner : {}) as Record<string, unknown>;
    if ('reply' in out) return { kind: 'reply', data: fields.data, status: fields.status, message: fields.message, headers: fields.headers };
    if ('raw' in out) return { kind: 'raw', body: fields.body, type: fields.type, status: fields.status, headers: fields.headers };
    if ('api' in out) return { kind: 'api', code: fields.code, status: fields.status, message: fields.message, context: fields.context };
    if ('fault' in out) {
      const at = typeof fields.stack === 'string' ? sourceLocation(this.#source, this.#filename, fields.stack) : null;
      throw this.#fail('threw', `the plugin threw ${String(fields.name)}: ${String(fields.message)}${at ? ` (at ${at})` : ''}`);
    }
    if ('big' in out) throw this.#fail('output_limit', `the answer (${String(out.big)} characters of JSON) is larger than ${this.limits.maxOutput}`);
    throw this.#fail('bad_output', typeof out.bad === 'string' ? out.bad : 'the plugin answered an unknown envelope');
  }
}

/** What the runtime reports after setup, checked: a plugin that tampered with its runtime could send anything. */
function isRegistrations(v: unknown): v is Registrations {
  const o = v as Registrations | null;
  const str = (x: unknown): x is string => typeof x === 'string';
  const obj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  return (
    obj(o) &&
    Array.isArray(o.routes) &&
    o.routes.every((r) => obj(r) && str(r.kind) && str(r.method) && str(r.path)) &&
    Array.isArray(o.events) &&
    o.events.every(str) &&
    Array.isArray(o.contracts) &&
    o.contracts.every((c) => obj(c) && str(c.point) && str(c.id) && Array.isArray(c.methods) && c.methods.every(str) && obj(c.data))
  );
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
