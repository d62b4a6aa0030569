/**
 * `lightning`: bitcoin over Lightning, as a BOLT 11 invoice, an LNURL, or a Lightning address. Invoices are
 * single-use and expire, so the reusable kinds (lnurl, lightning_address) suit a standing payback method
 * better; invoices are still accepted because the spec allows them. Expiry is not checked here.
 */
import { enumField, memoField, readMemo, stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { maskAddress, maskTail } from '../common/mask.js';
import { precisionOf } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { checkBolt11 } from '../codecs/bolt11.js';
import { checkLightningAddress } from '../codecs/lightning-address.js';
import { checkLnurl } from '../codecs/lnurl.js';
const KINDS = ['bolt11', 'lnurl', 'lightning_address'];
/** People paste from QR codes and `lightning:` links; the scheme is not part of the identifier. */
function withoutScheme(value) {
    return value.replace(/^lightning:/i, '');
}
const CHECKS = {
    bolt11: (value) => checkBolt11(withoutScheme(value)),
    lnurl: (value) => checkLnurl(withoutScheme(value)),
    lightning_address: checkLightningAddress,
};
export const lightning = buildRail({
    id: 'lightning',
    catalog: {
        id: 'lightning',
        label: 'Bitcoin Lightning',
        fields: [
            enumField('kind', 'Kind', KINDS),
            stringField('identifier', 'Invoice, LNURL or Lightning address', { required: true, sensitive: true, maxLength: 4096 }),
            memoField(),
        ],
        currencies: ['BTC'],
    },
    read(reader, currency) {
        reader.only(['kind', 'identifier', 'memo']);
        requireCurrency(reader, currency.toUpperCase(), ['BTC']);
        const kind = reader.choice('kind', KINDS, true);
        readMemo(reader);
        if (kind === undefined)
            return;
        reader.string('identifier', { required: true, check: CHECKS[kind] });
    },
    mask(fields) {
        const kind = asString(fields['kind']);
        if (kind === 'lightning_address')
            return `Lightning address ${maskTail(fields['identifier'])}`;
        return `${kind === 'lnurl' ? 'LNURL' : 'Lightning invoice'} ${maskAddress(fields['identifier'])}`;
    },
    // Lightning routes millisatoshis, but whole satoshis are what every wallet can send.
    precision: () => precisionOf(8),
    settlementPayload: (fields) => ({ kind: 'link', uri: `lightning:${String(fields['identifier'])}` }),
});
//# sourceMappingURL=lightning.js.map