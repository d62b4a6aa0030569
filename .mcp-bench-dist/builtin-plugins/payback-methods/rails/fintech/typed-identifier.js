/**
 * Rails whose payee is named by an `identifier` of a chosen `identifier_type` (email, phone, tag...). The
 * type picks the check; with an unknown type the identifier is only required, not judged.
 */
import { displayNameField, enumField, readDisplayName, stringField } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { requireCurrency, requireIsoCurrency } from '../common/currency.js';
import { fiatPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
export function readTypedIdentifier(reader, checks, typeField = 'identifier_type', valueField = 'identifier') {
    const type = reader.choice(typeField, Object.keys(checks), true);
    const check = type === undefined ? undefined : checks[type];
    reader.string(valueField, check ? { required: true, check } : { required: true });
    return type;
}
export const identifierField = (label = 'Identifier') => stringField('identifier', label, { required: true, sensitive: true, maxLength: 254 });
export function typedIdentifierRail(spec) {
    const extra = spec.extraFields ?? [];
    return buildRail({
        id: spec.id,
        catalog: {
            id: spec.id,
            label: spec.label,
            fields: [enumField('identifier_type', 'Identifier type', Object.keys(spec.checks)), identifierField(), ...extra, displayNameField()],
            currencies: spec.currencies === 'iso4217' ? { rule: 'any ISO 4217' } : spec.currencies,
        },
        read(reader, currency) {
            reader.only(['identifier_type', 'identifier', 'display_name', ...extra.map((field) => field.name)]);
            if (spec.currencies === 'iso4217')
                requireIsoCurrency(reader, currency);
            else
                requireCurrency(reader, currency, spec.currencies);
            readTypedIdentifier(reader, spec.checks);
            spec.readExtra?.(reader);
            readDisplayName(reader);
        },
        mask: (fields) => summary(spec.label, maskTail(fields['identifier']), fields['display_name']),
        precision: fiatPrecision,
        ...(spec.settlementPayload ? { settlementPayload: spec.settlementPayload } : {}),
    });
}
/** Rails named by one handle-like field (Venmo, Revolut, Cash App, UPI). */
export function handleRail(spec) {
    return buildRail({
        id: spec.id,
        catalog: {
            id: spec.id,
            label: spec.label,
            fields: [stringField(spec.field, spec.fieldLabel, { required: true, sensitive: true, maxLength: 256 }), displayNameField()],
            currencies: spec.currencies === 'iso4217' ? { rule: 'any ISO 4217' } : spec.currencies,
        },
        read(reader, currency) {
            reader.only([spec.field, 'display_name']);
            if (spec.currencies === 'iso4217')
                requireIsoCurrency(reader, currency);
            else
                requireCurrency(reader, currency, spec.currencies);
            reader.string(spec.field, { required: true, check: spec.check });
            readDisplayName(reader);
        },
        mask: (fields) => summary(spec.label, maskTail(fields[spec.field]), fields['display_name']),
        precision: fiatPrecision,
        ...(spec.settlementPayload ? { settlementPayload: spec.settlementPayload } : {}),
    });
}
//# sourceMappingURL=typed-identifier.js.map