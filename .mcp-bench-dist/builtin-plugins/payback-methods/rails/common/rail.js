/**
 * Turns a rail description into a `PaybackRail`: validate and normalize both run the rail's single `read`
 * pass, and mask is shielded so a summary never throws on malformed stored fields.
 */
import { defineRail, } from '../../../../sdk/payback-rail.js';
import { FieldReader } from './form.js';
import { BULLETS } from './mask.js';
export function readFields(definition, fields, currency) {
    const reader = new FieldReader(fields);
    definition.read(reader, typeof currency === 'string' ? currency : '');
    return reader;
}
export function buildRail(definition) {
    const rail = {
        id: definition.id,
        catalog: () => definition.catalog,
        validate: (fields, currency) => readFields(definition, fields, currency).errors,
        normalize: (fields, currency) => readFields(definition, fields, currency).normalized,
        mask: (fields) => {
            try {
                return definition.mask(fields ?? {});
            }
            catch {
                return BULLETS;
            }
        },
        precision: (currency) => definition.precision(typeof currency === 'string' ? currency : ''),
    };
    const payload = definition.settlementPayload;
    if (payload) {
        rail.settlementPayload = (fields, currency, amount) => {
            // Payloads are built only from fields that validate; anything else gets no link rather than a wrong one.
            const reader = readFields(definition, fields, currency);
            return reader.errors.length === 0 ? payload(reader.normalized, currency, amount) : null;
        };
    }
    return defineRail(rail);
}
//# sourceMappingURL=rail.js.map