/** `xrp`: XRP to a classic r-address, with the destination tag exchanges use to credit the right customer. */
import { integerField, memoField, readMemo } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkXrpAddress } from '../codecs/xrp-address.js';
import { addressField, addressSummary } from './shared.js';
export const xrp = buildRail({
    id: 'xrp',
    catalog: {
        id: 'xrp',
        label: 'XRP Ledger',
        fields: [addressField('XRP address (r...)', 35), integerField('destination_tag', 'Destination tag', { sensitive: true }), memoField()],
        currencies: ['XRP'],
    },
    read(reader, currency) {
        reader.only(['address', 'destination_tag', 'memo']);
        requireCurrency(reader, currency.toUpperCase(), ['XRP']);
        reader.string('address', { required: true, check: checkXrpAddress });
        reader.integer('destination_tag', { required: false, min: 0n, max: 4294967295n, storeAs: 'number' });
        readMemo(reader);
    },
    mask: (fields) => addressSummary('XRP', fields['address']),
    // One drop is 10^-6 XRP.
    precision: () => precisionOf(6),
});
//# sourceMappingURL=xrp.js.map