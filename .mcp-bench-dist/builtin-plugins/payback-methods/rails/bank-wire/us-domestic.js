/** US domestic transfers over ACH or FedNow: ABA routing number, account number and type, in dollars. */
import { fail, pass } from '../common/check.js';
import { enumField, stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
import { checkRoutingNumber } from '../codecs/aba.js';
const ACCOUNT_TYPES = ['checking', 'savings'];
/** NACHA account number field: 4 to 17 digits (banks pad or trim internally). */
export function checkUsAccountNumber(input) {
    const digits = input.replace(/[\s-]/g, '');
    if (!/^\d+$/.test(digits))
        return fail('invalid_format', 'an account number contains digits only');
    if (digits.length < 4 || digits.length > 17)
        return fail('invalid_length', 'a US account number has 4 to 17 digits');
    return pass(digits);
}
function usDomestic(label) {
    return {
        label,
        fields: [
            stringField('routing_number', 'Routing number (ABA)', { required: true, maxLength: 9 }),
            stringField('account_number', 'Account number', { required: true, sensitive: true, maxLength: 17 }),
            enumField('account_type', 'Account type', ACCOUNT_TYPES),
        ],
        currencyRule: 'USD',
        read(reader, currency) {
            requireCurrency(reader, currency, ['USD']);
            reader.string('routing_number', { required: true, check: checkRoutingNumber });
            reader.string('account_number', { required: true, check: checkUsAccountNumber });
            reader.choice('account_type', ACCOUNT_TYPES, true);
        },
        maskedValue: (fields) => fields['account_number'],
    };
}
export const ach = usDomestic('ACH');
export const fednow = usDomestic('FedNow');
//# sourceMappingURL=us-domestic.js.map