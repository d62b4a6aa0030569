/**
 * `pix`: Brazil's instant payments, addressed by a DICT key of one of five types. Name and city are capped
 * at the BR Code (EMV) lengths, 25 and 15, so a Pix QR code can always be produced from stored fields.
 */
import { enumField, stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { maskTail, summary } from '../common/mask.js';
import { fiatPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkCnpj, checkCpf } from '../codecs/brazil-tax-id.js';
import { checkEmail } from '../codecs/email.js';
import { checkUuidV4 } from '../codecs/uuid.js';
import { brazilianMobile } from './identifiers.js';
import { readTypedIdentifier } from './typed-identifier.js';
/** DICT email keys are at most 77 characters and compared case-insensitively, so they are stored lower-case. */
function pixEmail(value) {
    const result = checkEmail(value, 77);
    return result.ok ? { ok: true, value: result.value.toLowerCase() } : result;
}
const KEY_CHECKS = { email: pixEmail, phone: brazilianMobile, cpf: checkCpf, cnpj: checkCnpj, random: checkUuidV4 };
export const pix = buildRail({
    id: 'pix',
    catalog: {
        id: 'pix',
        label: 'Pix',
        fields: [
            enumField('key_type', 'Key type', Object.keys(KEY_CHECKS)),
            stringField('key', 'Pix key', { required: true, sensitive: true, maxLength: 77 }),
            stringField('recipient_name', 'Recipient name', { maxLength: 25 }),
            stringField('recipient_city', 'Recipient city', { maxLength: 15 }),
        ],
        currencies: ['BRL'],
    },
    read(reader, currency) {
        reader.only(['key_type', 'key', 'recipient_name', 'recipient_city']);
        requireCurrency(reader, currency, ['BRL']);
        readTypedIdentifier(reader, KEY_CHECKS, 'key_type', 'key');
        reader.text('recipient_name', { required: false, maxLength: 25 });
        reader.text('recipient_city', { required: false, maxLength: 15 });
    },
    mask: (fields) => summary('Pix', maskTail(fields['key']), fields['recipient_name']),
    precision: fiatPrecision,
});
//# sourceMappingURL=pix.js.map