/** The builtin side of third-party (sandboxed) plugins (`ctx.sandbox`); what the sandboxed side sees is sdk/sandbox.ts. */

/** The sandboxed plugin a gateway operation serves. */
export interface SandboxCaller {
  plugin: string;
}

/**
 * A contract a sandboxed plugin put into an extension point (`ctx.contribute`): its JSON data properties, and
 * functions that run in the plugin's isolate, synchronously, with JSON in and out. A call that fails (throws, loops,
 * runs out of memory, answers something else than JSON) throws a `SandboxCallError`; the plugin's own exceptions
 * too. After repeated failures every call throws at once.
 */
export interface SandboxContribution {
  plugin: string;
  point: string;
  id: string;
  contract: Record<string, unknown>;
}

export class SandboxCallError extends Error {
  constructor(
    readonly plugin: string,
    /** threw, cpu_limit, wall_limit, memory_limit, output_limit, bad_output, unavailable */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxCallError';
  }
}

/** What a builtin plugin opens for sandboxed contributions; `accept` throws to refuse one. */
export interface ExtensionSlot {
  accept(contribution: SandboxContribution): void;
  /** Undoes an accepted contribution whose plugin then failed to start. */
  withdraw?(contribution: SandboxContribution): void;
}

/**
 * How builtin plugins serve third-party (sandboxed) plugins. The kernel carries the calls; the builtin plugin
 * decides what it exposes, so what a third party can reach reads in one place per feature.
 */
export interface SandboxBridgeApi {
  /**
   * Serves gateway operation `op` to sandboxed plugins that list it in their manifest's `permissions`. Arguments
   * and result are JSON; throw `ApiError` (4xx) to refuse. One builtin plugin serves an operation.
   */
  gateway(op: string, handler: (args: unknown, caller: SandboxCaller) => unknown | Promise<unknown>): void;
  /** Publishes a public event to the sandboxed plugins subscribed to it: its payload must hold nothing secret. */
  publish(event: string, payload: Record<string, unknown>): void;
  /** Whether a sandboxed plugin subscribes to `event` now: a publisher skips building what nobody would receive. */
  subscribed(event: string): boolean;
  /** Opens an extension point sandboxed plugins fill with `ctx.contribute(point, contract)`. */
  extensionPoint(point: string, slot: ExtensionSlot): void;
}
