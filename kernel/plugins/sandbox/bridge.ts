import type { ExtensionSlot, Logger, SandboxBridgeApi, SandboxCaller } from '../../../sdk/index.js';

type GatewayHandler = (args: unknown, caller: SandboxCaller) => unknown | Promise<unknown>;
type PublicListener = (payloadJson: string) => void;

const OP = /^[a-z][a-z0-9_]{0,31}(?:\.[a-z][a-z0-9_]{0,31}){1,3}$/;
const EVENT = /^[a-z0-9][a-z0-9_.-]{0,127}$/;
const POINT = /^[a-z][a-z0-9_]{0,63}$/;
/** A public event is a notification, not a data transfer. */
export const MAX_EVENT_BYTES = 16 * 1024;

/**
 * What builtin plugins offer sandboxed plugins in one load generation: gateway operations, extension slots, and the
 * public event stream. Offers are kept per owner, so a builtin plugin whose setup failed leaves none behind, and a
 * reload starts from an empty bridge.
 */
export class SandboxBridge {
  readonly #gateway = new Map<string, { owner: string; handler: GatewayHandler }>();
  readonly #slots = new Map<string, { owner: string; slot: ExtensionSlot }>();
  /** Per public event, its sandboxed subscribers' deliveries. */
  readonly #listeners = new Map<string, Set<PublicListener>>();

  constructor(private readonly log: Logger) {}

  /** The `ctx.sandbox` of one builtin plugin. Wiring mistakes throw at its setup, not at the first call. */
  forOwner(owner: string): SandboxBridgeApi {
    return {
      gateway: (op, handler) => {
        if (!OP.test(op)) throw new Error(`plugin ${owner} offers gateway operation "${op}": names look like <service>.<operation>`);
        const taken = this.#gateway.get(op);
        if (taken) throw new Error(`gateway operation ${op} is offered twice (by ${taken.owner} and ${owner})`);
        this.#gateway.set(op, { owner, handler });
      },
      publish: (event, payload) => this.publish(event, payload),
      subscribed: (event) => this.subscribed(event),
      extensionPoint: (point, slot) => {
        if (!POINT.test(point)) throw new Error(`plugin ${owner} opens extension point "${point}": names match ${POINT.source}`);
        const taken = this.#slots.get(point);
        if (taken) throw new Error(`extension point ${point} is opened twice (by ${taken.owner} and ${owner})`);
        this.#slots.set(point, { owner, slot });
      },
    };
  }

  removeOwner(owner: string): void {
    for (const [op, g] of this.#gateway) if (g.owner === owner) this.#gateway.delete(op);
    for (const [point, s] of this.#slots) if (s.owner === owner) this.#slots.delete(point);
  }

  gateway(op: string): GatewayHandler | null {
    return this.#gateway.get(op)?.handler ?? null;
  }

  slot(point: string): ExtensionSlot | null {
    return this.#slots.get(point)?.slot ?? null;
  }

  /** Publishes to every sandboxed subscriber; the payload is serialised once, and refused when it is not small JSON. */
  publish(event: string, payload: unknown): void {
    if (!EVENT.test(event)) throw new Error(`public event "${event}": names match ${EVENT.source}`);
    const listeners = this.#listeners.get(event);
    if (!listeners) return;
    const json = JSON.stringify(payload ?? null);
    if (json === undefined || Buffer.byteLength(json) > MAX_EVENT_BYTES) {
      this.log.warn('public event dropped: its payload is not JSON of at most 16 KiB', { event });
      return;
    }
    for (const listener of listeners) listener(json);
  }

  /** Whether a sandboxed plugin subscribes to `event`. */
  subscribed(event: string): boolean {
    return this.#listeners.has(event);
  }

  listen(event: string, listener: PublicListener): () => void {
    let listeners = this.#listeners.get(event);
    if (!listeners) this.#listeners.set(event, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(event) === listeners) this.#listeners.delete(event);
    };
  }
}

export const isEventName = (name: unknown): name is string => typeof name === 'string' && EVENT.test(name);
