/**
 * The payback-rail contract: how a settlement rail (a bank transfer scheme, a crypto network, a fintech
 * app) is described and validated. Core rails and third-party plugins implement the same interface; the
 * payback-methods plugin holds the registry and refuses a plugin rail whose id shadows a core one.
 */

/** One field of a rail's form, as a client would render it. */
export interface RailField {
  name: string;
  label: string;
  type: 'string' | 'enum' | 'integer' | 'boolean' | 'rows';
  required: boolean;
  /** Allowed values for `enum` fields. */
  options?: readonly string[];
  /** Sensitive fields are encrypted and only ever shown masked, except through reveal. */
  sensitive: boolean;
  /** Maximum length in characters, where one applies. */
  max_length?: number;
}

/** What a client lists to let an operator pick a rail. */
export interface RailCatalogEntry {
  id: string;
  label: string;
  /** Fields, possibly differing per sub-rail; `variants` names the discriminator and each variant's fields. */
  fields: readonly RailField[];
  variants?: { discriminator: string; fields: Readonly<Record<string, readonly RailField[]>> };
  /** Currencies the rail accepts: a fixed list, or a rule described in words ('any ISO 4217', 'asset on chain'). */
  currencies: readonly string[] | { rule: string };
}

/** A failing field: `field` is the field's path (`iban`, `rows[2].key`), `code` a stable machine code. */
export interface RailFieldError {
  field: string;
  code: string;
  message: string;
}

/** The smallest unit a rail settles in: `min_unit` of 10^-`exponent` of the currency (cents: 1, 2). */
export interface SettlementPrecision {
  min_unit: number;
  exponent: number;
}

/** A link or QR payload that lets a payer settle, when the rail has one. */
export type SettlementPayload = { kind: 'link'; uri: string } | { kind: 'qr'; payload: string };

export type RailFields = Record<string, unknown>;

export interface PaybackRail {
  readonly id: string;
  catalog(): RailCatalogEntry;
  /**
   * Checks fields against the rail's rules for the declared currency. Returns every failing field (empty when
   * valid); never throws for bad input. `currency` is already normalised (fiat upper-cased, tokens as given).
   */
  validate(fields: RailFields, currency: string): RailFieldError[];
  /** Normalises valid fields for storage (trims, upper-cases IBANs, strips separators); called after validate. */
  normalize?(fields: RailFields, currency: string): RailFields;
  /** A short summary that never reveals a whole sensitive value, e.g. `SEPA •••• 3000 (J. Doe)`. */
  mask(fields: RailFields): string;
  precision(currency: string): SettlementPrecision;
  /** Optional payer-side payload: a payment link, or a QR-only payload (PayNow). */
  settlementPayload?(fields: RailFields, currency: string, amount?: string): SettlementPayload | null;
}

/** Declares a rail; an identity function that gives plugin authors type checking. */
export function defineRail(rail: PaybackRail): PaybackRail {
  return rail;
}

// ---------------------------------------------------------------------------------------------------------
// Registering rails

/**
 * The service through which a plugin adds rails. The payback-methods plugin provides it under the name
 * `PAYBACK_SERVICE`; a plugin lists `"requires": ["payback"]` (and its rail ids under `payback_types`) in its
 * plugin.json, then in setup:
 *
 *   ctx.services.use<PaybackRailRegistry>(PAYBACK_SERVICE).registerRail(defineRail({ id: 'my_rail', ... }));
 *
 * Ids match `RAIL_ID_PATTERN`; the core ids (`bank_wire`, `btc`, `pix`, ...) cannot be shadowed and an id is
 * registered once. A refused registration throws an Error whose `code` is a `RailRegistrationCode`.
 */
export interface PaybackRailRegistry {
  registerRail(rail: PaybackRail): void;
  /** A registered rail (core or plugin) by id. */
  rail(id: string): PaybackRail | undefined;
  /** Every registered rail id: the core ones first, then plugin rails. */
  railIds(): string[];
}

export const PAYBACK_SERVICE = 'payback';

export const RAIL_ID_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** Why `registerRail` refused: a malformed rail or id, a core id, or an id already registered. */
export type RailRegistrationCode = 'invalid_rail' | 'invalid_rail_id' | 'core_rail_id' | 'duplicate_rail_id';

/**
 * The extension point through which third-party (sandboxed) plugins add rails: `ctx.contribute('payback_rail', rail)`
 * in setup, with the rail id listed under `contributes.payback_rail` in plugin.json. The payback-methods plugin calls
 * such a rail exactly like a core one; its functions run in the plugin's isolate (docs/plugins.md).
 */
export const PAYBACK_RAIL_POINT = 'payback_rail';
