/** `cardano`: ada to a Shelley-era mainnet payment address. */
import { memoField, readMemo } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkCardanoAddress } from '../codecs/cardano-address.js';
import { addressField, addressSummary } from './shared.js';
export const cardano = buildRail({
    id: 'cardano',
    catalog: {
        id: 'cardano',
        label: 'Cardano',
        fields: [addressField('Cardano address (addr1...)', 108), memoField()],
        currencies: ['ADA'],
    },
    read(reader, currency) {
        reader.only(['address', 'memo']);
        requireCurrency(reader, currency.toUpperCase(), ['ADA']);
        reader.string('address', { required: true, check: checkCardanoAddress });
        readMemo(reader);
    },
    mask: (fields) => addressSummary('Cardano', fields['address']),
    // One lovelace is 10^-6 ada.
    precision: () => precisionOf(6),
});
//# sourceMappingURL=cardano.js.map