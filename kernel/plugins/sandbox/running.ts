import { ApiError, SandboxCallError, type Logger } from '../../../sdk/index.js';
import { PluginIsolate, type CallOutcome, type HostHandler, type IsolateLimits, type Registrations } from './isolate.js';

/** Failures within the window that stop a plugin until the next restart. */
export const MAX_FAILURES = 3;
export const FAILURE_WINDOW_MS = 10 * 60_000;
/** Contract functions run while the node's event loop waits: they get this much CPU at most. */
export const CONTRACT_CPU_MS = 50;

export interface RunningSpec {
  name: string;
  version: string;
  entryName: string;
  source: string;
  limits: IsolateLimits;
  host: HostHandler;
  now: () => number;
  log: Logger;
}

/** What the registrations of a later isolate must equal: the first isolate's, which the routes were mounted from. */
function shapeOf(r: Registrations): string {
  return JSON.stringify({
    routes: r.routes.map((x) => `${x.kind} ${x.method} ${x.path} ${JSON.stringify(x.scope ?? null)}`).sort(),
    events: [...r.events].sort(),
    contracts: r.contracts.map((c) => `${c.point} ${c.id} ${[...c.methods].sort().join(',')}`).sort(),
  });
}

/**
 * A third-party plugin running in this load generation: its isolate for routes and events, and (when it contributes
 * contracts) a second isolate where only setup and the synchronous contract calls ever run, so a contract call never
 * waits behind the plugin's other work. A failed call disposes the isolate that failed and a new one is made in
 * the background; after MAX_FAILURES within FAILURE_WINDOW_MS the plugin is failed until the node restarts.
 */
export class RunningPlugin {
  state: 'active' | 'failed' = 'active';
  error: string | null = null;
  #failures: number[] = [];
  #primary: PluginIsolate | null;
  #contracts: PluginIsolate | null = null;
  /** While a replacement isolate starts, calls wait for it. */
  #primaryReady: Promise<void> | null = null;
  #contractsStarting = false;
  /** Unloaded: a replacement isolate that finishes starting now is disposed at once. */
  #stopped = false;
  readonly #shape: string;

  private constructor(
    private readonly spec: RunningSpec,
    primary: PluginIsolate,
    readonly registrations: Registrations,
  ) {
    this.#primary = primary;
    this.#shape = shapeOf(registrations);
  }

  /** Starts the plugin's isolate(s) and runs setup; throws SandboxCallError (or Error) with the reason it cannot run. */
  static async start(spec: RunningSpec): Promise<RunningPlugin> {
    const { isolate, registrations } = await PluginIsolate.start(spec);
    const running = new RunningPlugin(spec, isolate, registrations);
    if (registrations.contracts.length > 0) {
      if (registrations.routes.length === 0 && registrations.events.length === 0) {
        // Nothing will ever call it asynchronously: the one isolate serves the contracts (half the memory).
        running.#contracts = isolate;
        running.#primary = null;
        return running;
      }
      try {
        running.#contracts = await running.#startContracts();
      } catch (err) {
        isolate.dispose();
        throw err;
      }
    }
    return running;
  }

  /** running, or restarting while a replacement isolate starts, or stopped once failed. */
  get isolate(): 'running' | 'restarting' | 'stopped' {
    if (this.state === 'failed') return 'stopped';
    return this.#primaryReady || this.#contractsStarting ? 'restarting' : 'running';
  }

  get failures(): number {
    const since = this.spec.now() - FAILURE_WINDOW_MS;
    return this.#failures.filter((t) => t >= since).length;
  }

  /** A route or event call. Failures come back as ApiError plugin_error (500) or plugin_unavailable (503). */
  async call(payload: Record<string, unknown>): Promise<CallOutcome> {
    if (this.#primaryReady) await this.#primaryReady;
    if (this.state === 'failed' || !this.#primary) throw this.#unavailable();
    const isolate = this.#primary;
    try {
      return await isolate.call({ ...payload, now: this.spec.now() });
    } catch (err) {
      throw this.#failed(err, isolate, 'primary');
    }
  }

  /** A synchronous call of a contributed contract's function; throws SandboxCallError when it fails. */
  callContract(point: string, id: string, method: string, args: unknown[]): unknown {
    const isolate = this.#contracts;
    if (this.state === 'failed' || !isolate || isolate.disposed) {
      throw new SandboxCallError(this.spec.name, 'unavailable', `plugin ${this.spec.name} is not available${this.error ? `: ${this.error}` : ''}`);
    }
    try {
      return isolate.callSync({ point, id, method, args, now: this.spec.now() }, Math.min(CONTRACT_CPU_MS, this.spec.limits.cpuMs));
    } catch (err) {
      const failure = err instanceof SandboxCallError ? err : new SandboxCallError(this.spec.name, 'threw', String(err));
      this.#failed(failure, isolate, 'contracts');
      throw failure;
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#primary?.dispose();
    this.#contracts?.dispose();
    this.#primary = null;
    this.#contracts = null;
  }

  #unavailable(why?: string): ApiError {
    if (this.state !== 'failed' && why) return new ApiError('plugin_unavailable', 503, `Plugin ${this.spec.name} is not available: ${why}`);
    return new ApiError('plugin_unavailable', 503, `Plugin ${this.spec.name} is not available${this.error ? `: ${this.error}` : ''}. It runs again after POST /api/v1/system/restart.`);
  }

  #failed(err: unknown, isolate: PluginIsolate, role: 'primary' | 'contracts'): ApiError {
    const failure = err instanceof SandboxCallError ? err : new SandboxCallError(this.spec.name, 'threw', String(err));
    // Busy, or a call queued behind one that failed: not a failure of its own.
    if (failure.reason === 'unavailable') return this.#unavailable(failure.message);
    isolate.dispose();
    const now = this.spec.now();
    this.#failures.push(now);
    this.#failures = this.#failures.filter((t) => t >= now - FAILURE_WINDOW_MS);
    this.spec.log.error(`plugin call failed (${failure.reason}); its isolate is disposed`, { plugin: this.spec.name, reason: failure.reason, error: failure.message });
    if (this.#failures.length >= MAX_FAILURES) {
      this.#stopFailed(`${this.#failures.length} failures within ${FAILURE_WINDOW_MS / 60_000} minutes; the last: ${failure.message}`);
    } else if (role === 'primary') {
      this.#replacePrimary();
    } else {
      this.#replaceContracts();
    }
    return new ApiError('plugin_error', 500, `Plugin ${this.spec.name} failed: ${failure.message}`, { plugin: this.spec.name, reason: failure.reason });
  }

  #stopFailed(error: string): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    this.error = error;
    this.spec.log.error('plugin stopped until the next restart', { plugin: this.spec.name, error });
    this.stop();
  }

  #replacePrimary(): void {
    if (this.#primaryReady) return;
    this.#primary = null;
    this.#primaryReady = (async () => {
      try {
        const { isolate, registrations } = await PluginIsolate.start(this.spec);
        if (shapeOf(registrations) !== this.#shape) {
          isolate.dispose();
          this.#stopFailed('its setup registered other routes, events or contracts when its isolate was made again');
        } else if (this.state === 'failed' || this.#stopped) {
          isolate.dispose();
        } else {
          this.#primary = isolate;
        }
      } catch (err) {
        this.#stopFailed(`its isolate could not be made again: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.#primaryReady = null;
      }
    })();
  }

  #replaceContracts(): void {
    if (this.#contractsStarting) return;
    this.#contractsStarting = true;
    this.#contracts = null;
    this.#startContracts().then(
      (isolate) => {
        this.#contractsStarting = false;
        if (this.state === 'failed' || this.#stopped) isolate.dispose();
        else this.#contracts = isolate;
      },
      (err: unknown) => {
        this.#contractsStarting = false;
        this.#stopFailed(`its contract isolate could not be made again: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  }

  async #startContracts(): Promise<PluginIsolate> {
    const { isolate, registrations } = await PluginIsolate.start(this.spec);
    if (shapeOf(registrations) !== this.#shape) {
      isolate.dispose();
      throw new Error('its setup registered other routes, events or contracts in its contract isolate');
    }
    return isolate;
  }
}
