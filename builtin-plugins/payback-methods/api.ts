/**
 * The `payback` service: how other plugins add settlement rails. A plugin lists `"requires": ["payback"]` in its
 * plugin.json (and its rail ids under `payback_types`) and, in setup:
 *
 *   const payback = ctx.services.use<PaybackService>('payback');
 *   payback.registerRail(defineRail({ id: 'my_rail', catalog: () => ..., validate, mask, precision }));
 *
 * Rail ids match `^[a-z][a-z0-9_]{0,31}$`. The 29 core ids (`bank_wire`, `btc`, `pix`, ...) cannot be shadowed, and
 * an id is registered once: both throw `RailRegistrationError`. Registrations live for one load generation (a
 * restart reloads every plugin and each registers again). A rail's functions are called defensively: a
 * `validate` that throws or answers garbage fails the input with `rail_failed`, a `mask` that throws shows `••••`.
 */
import type { PaybackRail, RailCatalogEntry } from '../../sdk/payback-rail.js';

export type RailRegistrationErrorCode = 'invalid_rail' | 'invalid_rail_id' | 'core_rail_id' | 'duplicate_rail_id';

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

export interface PaybackService {
  /** Adds a rail; throws `RailRegistrationError` (core id, duplicate id, malformed id or rail). */
  registerRail(rail: PaybackRail): void;
  /** A registered rail (core or plugin) by id. */
  rail(id: string): PaybackRail | undefined;
  /** Every registered rail id: the core ones first, in their documented order, then plugin rails. */
  railIds(): string[];
  /** The catalog: one entry per registered rail, in the order of `railIds()`. */
  catalog(): RailCatalogView[];
}
