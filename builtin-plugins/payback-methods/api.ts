/**
 * The `payback` service: how other plugins add settlement rails. Its contract, for third-party plugins, is
 * `PaybackRailRegistry` in sdk/payback-rail.ts. A plugin lists `"requires": ["payback"]` in its plugin.json (and
 * its rail ids under `payback_types`) and, in setup:
 *
 *   const payback = ctx.services.use<PaybackRailRegistry>(PAYBACK_SERVICE);   // builtin clients: PaybackService
 *   payback.registerRail(defineRail({ id: 'my_rail', catalog: () => ..., validate, mask, precision }));
 *
 * Rail ids match `^[a-z][a-z0-9_]{0,31}$`. The 29 core ids (`bank_wire`, `btc`, `pix`, ...) cannot be shadowed, and
 * an id is registered once: both throw `RailRegistrationError`. Registrations live for one load generation (a
 * restart reloads every plugin and each registers again). A rail's functions are called defensively: a
 * `validate` that throws or answers garbage fails the input with `rail_failed`, a `mask` that throws shows `••••`.
 */
import type { PaybackRailRegistry, RailCatalogEntry, RailRegistrationCode } from '../../sdk/payback-rail.js';

export type RailRegistrationErrorCode = RailRegistrationCode;

export class RailRegistrationError extends Error {
  constructor(
    readonly code: RailRegistrationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RailRegistrationError';
  }
}

/** A catalog entry as the REST API and the CLI list it. */
export interface RailCatalogView extends RailCatalogEntry {
  /** One of the 29 rails that ship with the node. */
  core: boolean;
  /** Whether the rail builds a payer payload (a payment link or a QR payload). */
  settlement_payload: boolean;
}

/**
 * The contract of `sdk/payback-rail.ts` (`PaybackRailRegistry`: registerRail, rail, railIds; `registerRail` throws
 * `RailRegistrationError`), plus the catalog for builtin clients.
 */
export interface PaybackService extends PaybackRailRegistry {
  /** The catalog: one entry per registered rail, in the order of `railIds()`. */
  catalog(): RailCatalogView[];
}
