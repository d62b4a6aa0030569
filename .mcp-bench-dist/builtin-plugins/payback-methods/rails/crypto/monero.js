/**
 * `monero`: XMR to a mainnet standard address, subaddress or integrated address. A separate payment id is
 * only meaningful with a standard address: integrated addresses already embed one, and subaddresses exist
 * so that payment ids are not needed.
 */
import { fail, pass } from '../common/check.js';
import { stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkMoneroAddress } from '../codecs/monero-address.js';
import { addressField, addressSummary } from './shared.js';
/** 16 hex digits (short) or 64 (long; deprecated by current wallets but still in the spec). */
export function checkPaymentId(input) {
    const id = input.toLowerCase();
    if (!/^[0-9a-f]+$/.test(id))
        return fail('invalid_format', 'a payment id is hexadecimal');
    if (id.length !== 16 && id.length !== 64)
        return fail('invalid_length', 'a payment id has 16 or 64 hex digits');
    return pass(id);
}
export const monero = buildRail({
    id: 'monero',
    catalog: {
        id: 'monero',
        label: 'Monero',
        fields: [addressField('Monero address', 106), stringField('payment_id', 'Payment id', { sensitive: true, maxLength: 64 })],
        currencies: ['XMR'],
    },
    read(reader, currency) {
        reader.only(['address', 'payment_id']);
        requireCurrency(reader, currency.toUpperCase(), ['XMR']);
        let kind;
        reader.string('address', {
            required: true,
            check: (value) => {
                const result = checkMoneroAddress(value);
                if (!result.ok)
                    return result;
                kind = result.value.kind;
                return pass(result.value.address);
            },
        });
        if (kind === 'integrated' || kind === 'subaddress')
            reader.forbid('payment_id', `with a Monero ${kind}`);
        else
            reader.string('payment_id', { required: false, check: checkPaymentId });
    },
    mask: (fields) => addressSummary('Monero', fields['address']),
    // One piconero is 10^-12 XMR.
    precision: () => precisionOf(12),
});
//# sourceMappingURL=monero.js.map