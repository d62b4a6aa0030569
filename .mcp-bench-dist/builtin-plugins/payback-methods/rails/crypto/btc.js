/** `btc`: on-chain bitcoin to a mainnet address (legacy P2PKH/P2SH or segwit bech32/bech32m). */
import { memoField, readMemo } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { cryptoExponent, precisionOf } from '../common/precision.js';
import { linkAmount } from '../common/amount.js';
import { buildRail } from '../common/rail.js';
import { BITCOIN, checkUtxoAddress } from '../codecs/utxo-address.js';
import { addressField, addressSummary } from './shared.js';
const BTC_EXPONENT = cryptoExponent('BTC') ?? 8;
export const btc = buildRail({
    id: 'btc',
    catalog: {
        id: 'btc',
        label: 'Bitcoin (on-chain)',
        fields: [addressField('Bitcoin address', 90), memoField()],
        currencies: ['BTC'],
    },
    read(reader, currency) {
        reader.only(['address', 'memo']);
        requireCurrency(reader, currency.toUpperCase(), ['BTC']);
        reader.string('address', { required: true, check: (value) => checkUtxoAddress(value, BITCOIN) });
        readMemo(reader);
    },
    mask: (fields) => addressSummary('BTC', fields['address']),
    precision: () => precisionOf(BTC_EXPONENT),
    // BIP 21 URI; the amount is in BTC with at most 8 decimals.
    settlementPayload(fields, _currency, amount) {
        const value = linkAmount(amount, BTC_EXPONENT);
        if (value === null)
            return null;
        const query = value === undefined ? '' : `?amount=${value}`;
        return { kind: 'link', uri: `bitcoin:${String(fields['address'])}${query}` };
    },
});
//# sourceMappingURL=btc.js.map