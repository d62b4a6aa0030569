/** `utxo_alt`: Litecoin, Bitcoin Cash or Dogecoin on-chain; the currency is the chosen chain's coin. */
import { enumField, memoField, readMemo } from '../common/fields.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { checkCashAddr } from '../codecs/cashaddr.js';
import { BITCOIN_CASH_LEGACY, DOGECOIN, LITECOIN, checkUtxoAddress } from '../codecs/utxo-address.js';
import { addressField, addressSummary } from './shared.js';
const CHAINS = ['LTC', 'BCH', 'DOGE'];
/** CashAddr payloads are 42 or 61 characters (or carry a prefix); legacy base58 addresses are shorter. */
function checkBitcoinCash(value) {
    if (value.includes(':') || value.length === 42 || value.length === 61) {
        const cash = checkCashAddr(value);
        return cash.ok ? { ok: true, value: cash.value.address } : cash;
    }
    return checkUtxoAddress(value, BITCOIN_CASH_LEGACY);
}
const CHECKS = {
    LTC: (value) => checkUtxoAddress(value, LITECOIN),
    BCH: checkBitcoinCash,
    DOGE: (value) => checkUtxoAddress(value, DOGECOIN),
};
export const utxoAlt = buildRail({
    id: 'utxo_alt',
    catalog: {
        id: 'utxo_alt',
        label: 'Litecoin, Bitcoin Cash, Dogecoin',
        fields: [enumField('chain', 'Chain', CHAINS), addressField('Address', 70), memoField()],
        currencies: [...CHAINS],
    },
    read(reader, currency) {
        reader.only(['chain', 'address', 'memo']);
        const chain = reader.choice('chain', CHAINS, true);
        readMemo(reader);
        if (chain === undefined)
            return;
        if (currency.toUpperCase() !== chain)
            reader.currencyError(`the ${chain} chain settles in ${chain}`);
        reader.string('address', { required: true, check: CHECKS[chain] });
    },
    mask: (fields) => addressSummary(asString(fields['chain']) ?? 'UTXO', fields['address']),
    // Litecoin, Bitcoin Cash and Dogecoin all count in 10^-8 units.
    precision: () => precisionOf(8),
});
//# sourceMappingURL=utxo-alt.js.map