/** `upi`: India's Unified Payments Interface, addressed by a virtual payment address `handle@provider`. */
import { fail, pass } from '../common/check.js';
import { linkAmount } from '../common/amount.js';
import { handleRail } from './typed-identifier.js';
/** Handle: 2-256 of letters, digits, `.`, `-`, `_`; provider (the PSP's handle, e.g. okaxis): letters. */
export function checkVpa(input) {
    const vpa = input.toLowerCase();
    const at = vpa.indexOf('@');
    if (at < 0 || at !== vpa.lastIndexOf('@'))
        return fail('invalid_format', 'a UPI address is handle@provider');
    const handle = vpa.slice(0, at);
    const provider = vpa.slice(at + 1);
    if (!/^[a-z0-9._-]+$/.test(handle) || !/^[a-z]+$/.test(provider)) {
        return fail('invalid_format', 'a UPI handle uses letters, digits, . - _ and the provider letters only');
    }
    if (handle.length < 2 || handle.length > 256 || provider.length < 2 || provider.length > 64) {
        return fail('invalid_length', 'a UPI handle has 2 to 256 characters and a provider 2 to 64 letters');
    }
    return pass(vpa);
}
export const upi = handleRail({
    id: 'upi',
    label: 'UPI',
    field: 'vpa',
    fieldLabel: 'UPI ID (handle@provider)',
    check: checkVpa,
    currencies: ['INR'],
    // NPCI deep link understood by every UPI app: payee address, name, amount and currency.
    settlementPayload(fields, _currency, amount) {
        const value = linkAmount(amount, 2);
        if (value === null)
            return null;
        const params = new URLSearchParams({ pa: String(fields['vpa']) });
        if (typeof fields['display_name'] === 'string')
            params.set('pn', fields['display_name']);
        if (value !== undefined)
            params.set('am', value);
        params.set('cu', 'INR');
        return { kind: 'link', uri: `upi://pay?${params.toString()}` };
    },
});
//# sourceMappingURL=upi.js.map