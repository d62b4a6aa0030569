/**
 * `bank_wire`: bank transfers, with the `rail` field choosing the scheme (sepa, faster_payments, ach, fednow,
 * swift). Each scheme has its own fields and currency; the recipient name is common to all.
 */
import { enumField, stringField, NAME_MAX } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { fiatPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { fasterPayments } from './faster-payments.js';
import { sepa } from './sepa.js';
import { swift } from './swift.js';
import { ach, fednow } from './us-domestic.js';
const VARIANTS = {
    sepa,
    faster_payments: fasterPayments,
    ach,
    fednow,
    swift,
};
const RAILS = Object.keys(VARIANTS);
const COMMON_FIELDS = [
    enumField('rail', 'Scheme', RAILS),
    stringField('recipient_name', 'Recipient name', { required: true, maxLength: NAME_MAX }),
];
const ALL_FIELDS = [
    ...new Set([...COMMON_FIELDS, ...Object.values(VARIANTS).flatMap((variant) => variant.fields)].map((field) => field.name)),
];
export const bankWire = buildRail({
    id: 'bank_wire',
    catalog: {
        id: 'bank_wire',
        label: 'Bank transfer',
        fields: COMMON_FIELDS,
        variants: {
            discriminator: 'rail',
            fields: Object.fromEntries(RAILS.map((rail) => [rail, VARIANTS[rail]?.fields ?? []])),
        },
        currencies: { rule: 'sepa: EUR; faster_payments: GBP; ach, fednow: USD; swift: any ISO 4217' },
    },
    read(reader, currency) {
        const rail = reader.choice('rail', RAILS, true);
        const variant = rail === undefined ? undefined : VARIANTS[rail];
        // Without a known scheme the other fields cannot be judged; only keys no scheme knows are reported.
        if (!variant)
            return reader.only(ALL_FIELDS);
        reader.only(['rail', 'recipient_name', ...variant.fields.map((field) => field.name)]);
        reader.text('recipient_name', { required: true, maxLength: NAME_MAX });
        variant.read(reader, currency);
    },
    mask(fields) {
        const variant = VARIANTS[asString(fields['rail']) ?? ''];
        if (!variant)
            return `Bank transfer ${maskTail(undefined)}`;
        return summary(variant.label, maskTail(variant.maskedValue(fields)), fields['recipient_name']);
    },
    precision: fiatPrecision,
});
//# sourceMappingURL=index.js.map