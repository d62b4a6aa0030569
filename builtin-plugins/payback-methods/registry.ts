/**
 * The rail registry: the 29 core rails (rails/index.ts) first, then rails that other plugins register through
 * the `payback` service. Core ids cannot be shadowed. Every call into a rail goes through the guarded helpers
 * below, so a faulty plugin rail fails its own inputs instead of the request.
 */
import type { ExtensionSlot } from '../../sdk/index.js';
import {
  RAIL_ID_PATTERN,
  type PaybackRail,
  type RailCatalogEntry,
  type RailFieldError,
  type RailFields,
  type SettlementPayload,
  type SettlementPrecision,
} from '../../sdk/payback-rail.js';
import { RailRegistrationError, type PaybackService, type RailCatalogView } from './api.js';

export const RAIL_ID = RAIL_ID_PATTERN;

/** What a method shows when its rail cannot summarise it (unknown rail, failing mask, unreadable fields). */
export const MASK_FALLBACK = '••••';

/** Precision of a rail that cannot tell: 8 decimals, the ledger's own resolution. */
const FALLBACK_PRECISION: SettlementPrecision = { min_unit: 1, exponent: 8 };

interface Entry {
  rail: PaybackRail;
  core: boolean;
}

const isFn = (value: unknown): boolean => typeof value === 'function';

export class RailRegistry {
  readonly #rails = new Map<string, Entry>();
  readonly #coreIds: ReadonlySet<string>;

  constructor(
    core: readonly PaybackRail[],
    private readonly warn: (message: string, fields?: Record<string, unknown>) => void = () => {},
  ) {
    for (const rail of core) this.#rails.set(rail.id, { rail, core: true });
    this.#coreIds = new Set(core.map((rail) => rail.id));
  }

  register(rail: PaybackRail): void {
    const candidate = rail as Partial<PaybackRail> | null;
    if (typeof candidate !== 'object' || candidate === null) throw new RailRegistrationError('invalid_rail', 'a rail must be an object');
    const id = candidate.id;
    if (typeof id !== 'string' || !RAIL_ID.test(id)) {
      throw new RailRegistrationError('invalid_rail_id', `rail id must match ${RAIL_ID.source}, got ${JSON.stringify(id)}`);
    }
    if (this.#coreIds.has(id)) throw new RailRegistrationError('core_rail_id', `"${id}" is a core rail id and cannot be shadowed`);
    if (this.#rails.has(id)) throw new RailRegistrationError('duplicate_rail_id', `a rail "${id}" is already registered`);
    for (const fn of ['catalog', 'validate', 'mask', 'precision'] as const) {
      if (!isFn(candidate[fn])) throw new RailRegistrationError('invalid_rail', `rail "${id}" lacks ${fn}()`);
    }
    this.#rails.set(id, { rail, core: false });
  }

  /**
   * The slot of the `payback_rail` extension point: rails of third-party (sandboxed) plugins register through it
   * like any other plugin rail (core ids refused, an id once). Their functions are calls into the plugin's isolate,
   * so they may throw or answer garbage, which the guarded helpers below already absorb.
   */
  sandboxSlot(): ExtensionSlot {
    return {
      accept: (c) => this.register({ ...c.contract, id: c.id } as unknown as PaybackRail),
      withdraw: (c) => {
        if (!this.#rails.get(c.id)?.core) this.#rails.delete(c.id);
      },
    };
  }

  get(id: string): PaybackRail | undefined {
    return this.#rails.get(id)?.rail;
  }

  isCore(id: string): boolean {
    return this.#coreIds.has(id);
  }

  ids(): string[] {
    return [...this.#rails.keys()];
  }

  catalogOf(rail: PaybackRail): RailCatalogView {
    let entry: RailCatalogEntry;
    try {
      entry = rail.catalog();
    } catch (err) {
      this.warn('payback rail catalog() failed', { rail: rail.id, error: String(err) });
      entry = { id: rail.id, label: rail.id, fields: [], currencies: { rule: 'unknown' } };
    }
    return { ...entry, id: rail.id, core: this.isCore(rail.id), settlement_payload: isFn(rail.settlementPayload) };
  }

  catalog(): RailCatalogView[] {
    return [...this.#rails.values()].map(({ rail }) => this.catalogOf(rail));
  }

  /** The rail's errors, or one `rail_failed` error when the rail throws or answers something else than a list. */
  validate(rail: PaybackRail, fields: RailFields, currency: string): RailFieldError[] {
    try {
      const errors: unknown = rail.validate(fields, currency);
      if (!Array.isArray(errors)) throw new Error('validate() did not return a list');
      return errors.map((e: unknown) => {
        const o = (typeof e === 'object' && e !== null ? e : {}) as Partial<RailFieldError>;
        return {
          field: typeof o.field === 'string' && o.field !== '' ? o.field : 'fields',
          code: typeof o.code === 'string' && o.code !== '' ? o.code : 'invalid_value',
          message: typeof o.message === 'string' ? o.message : 'invalid value',
        };
      });
    } catch (err) {
      this.warn('payback rail validate() failed', { rail: rail.id, error: err instanceof Error ? err.message : String(err) });
      return [{ field: 'fields', code: 'rail_failed', message: `the ${rail.id} rail could not check these fields` }];
    }
  }

  /** The values to store: the rail's normalised form when it has one (and it behaves), else the input. */
  normalize(rail: PaybackRail, fields: RailFields, currency: string): RailFields {
    if (!rail.normalize) return fields;
    try {
      const out: unknown = rail.normalize(fields, currency);
      if (typeof out === 'object' && out !== null && !Array.isArray(out)) return out as RailFields;
    } catch (err) {
      this.warn('payback rail normalize() failed', { rail: rail.id, error: err instanceof Error ? err.message : String(err) });
    }
    return fields;
  }

  mask(rail: PaybackRail | undefined, fields: RailFields | null): string {
    if (!rail || !fields) return MASK_FALLBACK;
    try {
      const text: unknown = rail.mask(fields);
      return typeof text === 'string' && text !== '' ? text : MASK_FALLBACK;
    } catch {
      return MASK_FALLBACK;
    }
  }

  precision(rail: PaybackRail | undefined, currency: string): SettlementPrecision {
    if (!rail) return FALLBACK_PRECISION;
    try {
      const p = rail.precision(currency);
      const ok = (n: unknown, min: number, max: number): boolean => Number.isInteger(n) && (n as number) >= min && (n as number) <= max;
      if (p && ok(p.min_unit, 1, 1_000_000_000) && ok(p.exponent, 0, 30)) return { min_unit: p.min_unit, exponent: p.exponent };
    } catch {
      // fall through
    }
    return FALLBACK_PRECISION;
  }

  /** The payer payload, or undefined when the rail builds none; null when it builds none for these inputs. */
  payload(rail: PaybackRail | undefined, fields: RailFields, currency: string, amount?: string): SettlementPayload | null | undefined {
    if (!rail?.settlementPayload) return undefined;
    try {
      return rail.settlementPayload(fields, currency, amount) ?? null;
    } catch {
      return null;
    }
  }

  /** The `payback` service over this registry. */
  service(): PaybackService {
    return {
      registerRail: (rail) => this.register(rail),
      rail: (id) => this.get(id),
      railIds: () => this.ids(),
      catalog: () => this.catalog(),
    };
  }
}
