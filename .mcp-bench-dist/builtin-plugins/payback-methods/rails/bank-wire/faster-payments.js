/** UK Faster Payments: a sort code and an 8-digit account number, in pounds sterling. */
import { fail, pass } from '../common/check.js';
import { stringField } from '../common/fields.js';
import { requireCurrency } from '../common/currency.js';
/** Accepts 200000, 20-00-00 and 20 00 00; stores the six digits. */
export function checkSortCode(input) {
    if (!/^\d{2}([- ]?)\d{2}\1\d{2}$/.test(input))
        return fail('invalid_format', 'a sort code is 6 digits, optionally as 12-34-56');
    return pass(input.replace(/[- ]/g, ''));
}
export function checkUkAccountNumber(input) {
    const digits = input.replace(/\s/g, '');
    if (!/^\d+$/.test(digits))
        return fail('invalid_format', 'an account number contains digits only');
    if (digits.length !== 8)
        return fail('invalid_length', 'a UK account number has 8 digits');
    return pass(digits);
}
export const fasterPayments = {
    label: 'Faster Payments',
    fields: [
        stringField('sort_code', 'Sort code', { required: true, maxLength: 8 }),
        stringField('account_number', 'Account number', { required: true, sensitive: true, maxLength: 8 }),
    ],
    currencyRule: 'GBP',
    read(reader, currency) {
        requireCurrency(reader, currency, ['GBP']);
        reader.string('sort_code', { required: true, check: checkSortCode });
        reader.string('account_number', { required: true, check: checkUkAccountNumber });
    },
    maskedValue: (fields) => fields['account_number'],
};
//# sourceMappingURL=faster-payments.js.map