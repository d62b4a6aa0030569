/** SEPA credit transfers: an IBAN of a SEPA-scheme country, in euros. */
import { fail } from '../common/check.js';
import { stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { checkIban, isSepaIban } from '../codecs/iban.js';
/** An IBAN from outside the scheme is a real account, but SEPA cannot reach it: the swift scheme can. */
export function checkSepaIban(input) {
    const result = checkIban(input);
    if (result.ok && !isSepaIban(result.value)) {
        return fail('not_allowed', `${result.value.slice(0, 2)} is outside the SEPA area; use the swift scheme`);
    }
    return result;
}
export const sepa = {
    label: 'SEPA',
    fields: [stringField('iban', 'IBAN', { required: true, sensitive: true, maxLength: 42 })],
    currencyRule: 'EUR',
    read(reader, currency) {
        requireCurrency(reader, currency, ['EUR']);
        reader.string('iban', { required: true, check: checkSepaIban });
    },
    maskedValue: (fields) => fields['iban'],
};
//# sourceMappingURL=sepa.js.map