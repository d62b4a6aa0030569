/** `tron`: TRX or TRC-20 USDT (the one token without ambiguity on Tron) to a Tron address. */
import { memoField, readMemo } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkTronAddress } from '../codecs/tron-address.js';
import { addressField, addressSummary } from './shared.js';
export const tron = buildRail({
    id: 'tron',
    catalog: {
        id: 'tron',
        label: 'Tron',
        fields: [addressField('Tron address (T...)', 34), memoField()],
        currencies: ['TRX', 'USDT'],
    },
    read(reader, currency) {
        reader.only(['address', 'memo']);
        requireCurrency(reader, currency.toUpperCase(), ['TRX', 'USDT']);
        reader.string('address', { required: true, check: checkTronAddress });
        readMemo(reader);
    },
    mask: (fields) => addressSummary('Tron', fields['address']),
    // TRX moves in sun (10^-6) and TRC-20 USDT has 6 decimals.
    precision: () => precisionOf(6),
});
//# sourceMappingURL=tron.js.map