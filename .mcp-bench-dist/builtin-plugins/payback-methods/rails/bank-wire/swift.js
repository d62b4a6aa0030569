/**
 * International SWIFT wires: the beneficiary bank's BIC, name and country, and the account as an IBAN
 * (mod-97 checked) or a local account number, in any ISO 4217 currency.
 */
import { fail, pass } from '../common/check.js';
import { stringField } from '../common/fields.js';
import { requireIsoCurrency } from '../common/currency.js';
import { checkBic } from '../codecs/bic.js';
import { checkIban } from '../codecs/iban.js';
import { isBankingCountry } from '../codecs/iso3166.js';
import { asString } from '../common/text.js';
export function checkCountry(input) {
    const code = input.toUpperCase();
    if (!/^[A-Z]{2}$/.test(code))
        return fail('invalid_format', 'a country is an ISO 3166 alpha-2 code such as DE');
    return isBankingCountry(code) ? pass(code) : fail('invalid_value', `${code} is not an ISO 3166 country code`);
}
/** Local account numbers abroad vary; 34 characters is the longest an IBAN-era account needs. */
export function checkForeignAccountNumber(input) {
    const account = input.replace(/[\s-]/g, '').toUpperCase();
    if (!/^[A-Z0-9]+$/.test(account))
        return fail('invalid_format', 'an account number contains letters and digits only');
    if (account.length > 34)
        return fail('invalid_length', 'an account number has at most 34 characters');
    return pass(account);
}
export const swift = {
    label: 'SWIFT',
    fields: [
        stringField('bic_swift', 'BIC / SWIFT code', { required: true, maxLength: 11 }),
        stringField('bank_name', 'Bank name', { required: true, maxLength: 140 }),
        stringField('country', 'Bank country (ISO 3166)', { required: true, maxLength: 2 }),
        stringField('iban', 'IBAN (or account number)', { sensitive: true, maxLength: 42 }),
        stringField('account_number', 'Account number (or IBAN)', { sensitive: true, maxLength: 34 }),
    ],
    currencyRule: 'any ISO 4217',
    read(reader, currency) {
        requireIsoCurrency(reader, currency);
        reader.string('bic_swift', { required: true, check: checkBic });
        reader.text('bank_name', { required: true, maxLength: 140 });
        reader.string('country', { required: true, check: checkCountry });
        reader.string('iban', { required: false, check: checkIban });
        reader.string('account_number', { required: false, check: checkForeignAccountNumber });
        if (!reader.present('iban') && !reader.present('account_number')) {
            reader.fail('account_number', 'required', 'an IBAN or an account number is required');
        }
    },
    maskedValue: (fields) => asString(fields['iban']) || fields['account_number'],
};
//# sourceMappingURL=swift.js.map