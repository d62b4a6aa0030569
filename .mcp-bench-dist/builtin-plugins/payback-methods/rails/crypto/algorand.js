/** `algorand`: ALGO, or an Algorand Standard Asset by numeric id, to an Algorand account. */
import { integerField, memoField, readMemo } from '../common/fields.js';
import { precisionOf, UNKNOWN_ASSET_EXPONENT } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkAlgorandAddress } from '../codecs/algorand-address.js';
import { addressField, addressSummary } from './shared.js';
import { applyTokenRule, tokenExponent } from './token-rule.js';
const UINT64_MAX = 18446744073709551615n;
// USDC (ASA 31566704) and USDt (ASA 312769) both use 6 decimals; other ASAs vary from 0 to 19.
const KNOWN_ASSETS = { USDC: 6, USDT: 6 };
export const algorand = buildRail({
    id: 'algorand',
    catalog: {
        id: 'algorand',
        label: 'Algorand',
        fields: [addressField('Algorand address', 58), integerField('asset_id', 'Asset id (for ASAs)'), memoField('note', 'Note')],
        currencies: { rule: 'ALGO, or an ASA symbol (optionally with its numeric asset_id)' },
    },
    read(reader, currency) {
        reader.only(['address', 'asset_id', 'note']);
        reader.string('address', { required: true, check: checkAlgorandAddress });
        readMemo(reader, 'note');
        applyTokenRule(reader, currency, {
            native: 'ALGO',
            tokenField: 'asset_id',
            chain: 'Algorand',
            // Asset ids exceed 2^53, so they are kept as decimal strings.
            readToken: (r) => r.integer('asset_id', { required: false, min: 1n, max: UINT64_MAX, storeAs: 'string' }),
        });
    },
    mask: (fields) => addressSummary('Algorand', fields['address']),
    precision: (currency) => precisionOf(tokenExponent(currency, 'ALGO', 6, KNOWN_ASSETS, UNKNOWN_ASSET_EXPONENT)),
});
//# sourceMappingURL=algorand.js.map