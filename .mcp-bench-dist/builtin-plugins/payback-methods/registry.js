/**
 * The rail registry: the 29 core rails (rails/index.ts) first, then rails that other plugins register through
 * the `payback` service. Core ids cannot be shadowed. Every call into a rail goes through the guarded helpers
 * below, so a faulty plugin rail fails its own inputs instead of the request.
 */
import { RAIL_ID_PATTERN, } from '../../sdk/payback-rail.js';
import { RailRegistrationError } from './api.js';
export const RAIL_ID = RAIL_ID_PATTERN;
/** What a method shows when its rail cannot summarise it (unknown rail, failing mask, unreadable fields). */
export const MASK_FALLBACK = '••••';
/** Precision of a rail that cannot tell: 8 decimals, the ledger's own resolution. */
const FALLBACK_PRECISION = { min_unit: 1, exponent: 8 };
const isFn = (value) => typeof value === 'function';
export class RailRegistry {
    warn;
    #rails = new Map();
    #coreIds;
    constructor(core, warn = () => { }) {
        this.warn = warn;
        for (const rail of core)
            this.#rails.set(rail.id, { rail, core: true });
        this.#coreIds = new Set(core.map((rail) => rail.id));
    }
    register(rail) {
        const candidate = rail;
        if (typeof candidate !== 'object' || candidate === null)
            throw new RailRegistrationError('invalid_rail', 'a rail must be an object');
        const id = candidate.id;
        if (typeof id !== 'string' || !RAIL_ID.test(id)) {
            throw new RailRegistrationError('invalid_rail_id', `rail id must match ${RAIL_ID.source}, got ${JSON.stringify(id)}`);
        }
        if (this.#coreIds.has(id))
            throw new RailRegistrationError('core_rail_id', `"${id}" is a core rail id and cannot be shadowed`);
        if (this.#rails.has(id))
            throw new RailRegistrationError('duplicate_rail_id', `a rail "${id}" is already registered`);
        for (const fn of ['catalog', 'validate', 'mask', 'precision']) {
            if (!isFn(candidate[fn]))
                throw new RailRegistrationError('invalid_rail', `rail "${id}" lacks ${fn}()`);
        }
        this.#rails.set(id, { rail, core: false });
    }
    get(id) {
        return this.#rails.get(id)?.rail;
    }
    isCore(id) {
        return this.#coreIds.has(id);
    }
    ids() {
        return [...this.#rails.keys()];
    }
    catalogOf(rail) {
        let entry;
        try {
            entry = rail.catalog();
        }
        catch (err) {
            this.warn('payback rail catalog() failed', { rail: rail.id, error: String(err) });
            entry = { id: rail.id, label: rail.id, fields: [], currencies: { rule: 'unknown' } };
        }
        return { ...entry, id: rail.id, core: this.isCore(rail.id), settlement_payload: isFn(rail.settlementPayload) };
    }
    catalog() {
        return [...this.#rails.values()].map(({ rail }) => this.catalogOf(rail));
    }
    /** The rail's errors, or one `rail_failed` error when the rail throws or answers something else than a list. */
    validate(rail, fields, currency) {
        try {
            const errors = rail.validate(fields, currency);
            if (!Array.isArray(errors))
                throw new Error('validate() did not return a list');
            return errors.map((e) => {
                const o = (typeof e === 'object' && e !== null ? e : {});
                return {
                    field: typeof o.field === 'string' && o.field !== '' ? o.field : 'fields',
                    code: typeof o.code === 'string' && o.code !== '' ? o.code : 'invalid_value',
                    message: typeof o.message === 'string' ? o.message : 'invalid value',
                };
            });
        }
        catch (err) {
            this.warn('payback rail validate() failed', { rail: rail.id, error: err instanceof Error ? err.message : String(err) });
            return [{ field: 'fields', code: 'rail_failed', message: `the ${rail.id} rail could not check these fields` }];
        }
    }
    /** The values to store: the rail's normalised form when it has one (and it behaves), else the input. */
    normalize(rail, fields, currency) {
        if (!rail.normalize)
            return fields;
        try {
            const out = rail.normalize(fields, currency);
            if (typeof out === 'object' && out !== null && !Array.isArray(out))
                return out;
        }
        catch (err) {
            this.warn('payback rail normalize() failed', { rail: rail.id, error: err instanceof Error ? err.message : String(err) });
        }
        return fields;
    }
    mask(rail, fields) {
        if (!rail || !fields)
            return MASK_FALLBACK;
        try {
            const text = rail.mask(fields);
            return typeof text === 'string' && text !== '' ? text : MASK_FALLBACK;
        }
        catch {
            return MASK_FALLBACK;
        }
    }
    precision(rail, currency) {
        if (!rail)
            return FALLBACK_PRECISION;
        try {
            const p = rail.precision(currency);
            const ok = (n, min, max) => Number.isInteger(n) && n >= min && n <= max;
            if (p && ok(p.min_unit, 1, 1_000_000_000) && ok(p.exponent, 0, 30))
                return { min_unit: p.min_unit, exponent: p.exponent };
        }
        catch {
            // fall through
        }
        return FALLBACK_PRECISION;
    }
    /** The payer payload, or undefined when the rail builds none; null when it builds none for these inputs. */
    payload(rail, fields, currency, amount) {
        if (!rail?.settlementPayload)
            return undefined;
        try {
            return rail.settlementPayload(fields, currency, amount) ?? null;
        }
        catch {
            return null;
        }
    }
    /** The `payback` service over this registry. */
    service() {
        return {
            registerRail: (rail) => this.register(rail),
            rail: (id) => this.get(id),
            railIds: () => this.ids(),
            catalog: () => this.catalog(),
        };
    }
}
//# sourceMappingURL=registry.js.map