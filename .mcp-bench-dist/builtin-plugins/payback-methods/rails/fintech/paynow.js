/**
 * `paynow`: Singapore's PayNow, to a mobile number, an NRIC/FIN or a UEN, in SGD. The payer-side payload is
 * an SGQR (EMVCo) string to render as a QR code; NRIC proxies have no QR form, so they get none.
 */
import { requireCurrency } from '../common/currency.js';
import { enumField, stringField } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { fiatPrecision } from '../common/precision.js';
import { linkAmount } from '../common/amount.js';
import { buildRail } from '../common/rail.js';
import { checkNric } from '../codecs/nric.js';
import { checkNationalPhone } from '../codecs/phone.js';
import { payNowPayload } from '../codecs/paynow-qr.js';
import { checkUen } from '../codecs/uen.js';
import { identifierField, readTypedIdentifier } from './typed-identifier.js';
/** Singapore mobile numbers: +65 and eight digits starting with 8 or 9. */
const sgMobile = (value) => checkNationalPhone(value, /^\+65[89]\d{7}$/, 'a Singapore mobile number (+65 8... or 9...)');
const CHECKS = { mobile: sgMobile, nric: checkNric, uen: (value) => checkUen(value) };
const NAME_MAX = 25;
export const paynow = buildRail({
    id: 'paynow',
    catalog: {
        id: 'paynow',
        label: 'PayNow',
        fields: [
            enumField('identifier_type', 'Identifier type', Object.keys(CHECKS)),
            identifierField('Mobile, NRIC/FIN or UEN'),
            stringField('recipient_name', 'Recipient name', { maxLength: NAME_MAX }),
        ],
        currencies: ['SGD'],
    },
    read(reader, currency) {
        reader.only(['identifier_type', 'identifier', 'recipient_name']);
        requireCurrency(reader, currency, ['SGD']);
        readTypedIdentifier(reader, CHECKS);
        // The name goes into the QR merchant-name field, which EMVCo caps at 25 characters.
        reader.text('recipient_name', { required: false, maxLength: NAME_MAX });
    },
    mask: (fields) => summary('PayNow', maskTail(fields['identifier']), fields['recipient_name']),
    precision: fiatPrecision,
    settlementPayload(fields, _currency, amount) {
        const type = fields['identifier_type'];
        if (type !== 'mobile' && type !== 'uen')
            return null;
        const value = linkAmount(amount, 2);
        if (value === null)
            return null;
        const name = typeof fields['recipient_name'] === 'string' ? fields['recipient_name'] : undefined;
        const payload = payNowPayload({
            proxy: { type, value: String(fields['identifier']) },
            ...(name === undefined ? {} : { name }),
            ...(value === undefined ? {} : { amount: value }),
        });
        return { kind: 'qr', payload };
    },
});
//# sourceMappingURL=paynow.js.map