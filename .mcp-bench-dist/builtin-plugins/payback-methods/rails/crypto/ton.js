/** `ton`: Toncoin, or a jetton identified by its jetton master address, to a TON wallet. */
import { memoField, readMemo, stringField } from '../common/fields.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkTonAddress } from '../codecs/ton-address.js';
import { addressField, addressSummary } from './shared.js';
import { applyTokenRule, tokenExponent } from './token-rule.js';
// USDT on TON uses 6 decimals; TEP-64 jettons default to 9 when their metadata names none.
const KNOWN_JETTONS = { USDT: 6 };
export const ton = buildRail({
    id: 'ton',
    catalog: {
        id: 'ton',
        label: 'TON',
        fields: [addressField('TON address', 48), stringField('jetton_master', 'Jetton master (for jettons)', { maxLength: 48 }), memoField()],
        currencies: { rule: 'TON, or a jetton symbol (optionally with its master address in jetton_master)' },
    },
    read(reader, currency) {
        reader.only(['address', 'jetton_master', 'memo']);
        reader.string('address', { required: true, check: checkTonAddress });
        readMemo(reader);
        applyTokenRule(reader, currency, {
            native: 'TON',
            tokenField: 'jetton_master',
            chain: 'TON',
            readToken: (r) => r.string('jetton_master', { required: false, check: checkTonAddress }),
        });
    },
    mask: (fields) => addressSummary('TON', fields['address']),
    precision: (currency) => precisionOf(tokenExponent(currency, 'TON', 9, KNOWN_JETTONS, 9)),
});
//# sourceMappingURL=ton.js.map