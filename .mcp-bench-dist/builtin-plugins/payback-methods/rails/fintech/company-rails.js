/**
 * The ten company-named fintech rails (shapes a-j of the spec). Ids are the companies' own lower-case names
 * so they read naturally in the API and cannot collide with a scheme name.
 */
import { fail, pass } from '../common/check.js';
import { enumField } from '../common/fields.js';
import { linkAmount } from '../common/amount.js';
import { checkIban } from '../codecs/iban.js';
import { iso4217Exponent } from '../codecs/iso4217.js';
import { anyPhone, checkHandle, email, northAmericanPhone } from './identifiers.js';
import { handleRail, typedIdentifierRail } from './typed-identifier.js';
const ALNUM = /^[A-Za-z0-9]+$/;
/** (a) Venmo usernames: 5-30 letters, digits, hyphens or underscores; shown with @. USD only. */
export const checkVenmoHandle = (value) => checkHandle(value, {
    sigil: '@',
    chars: /^[A-Za-z0-9_-]+$/,
    allowed: 'letters, digits, - and _',
    min: 5,
    max: 30,
    description: 'a Venmo username',
});
export const venmo = handleRail({
    id: 'venmo',
    label: 'Venmo',
    field: 'handle',
    fieldLabel: 'Venmo username',
    check: checkVenmoHandle,
    currencies: ['USD'],
});
/** (b) PayPal.Me link names: up to 20 letters and digits; a pasted paypal.me URL is reduced to the name. */
export function checkPayPalLinkName(input) {
    const name = input.replace(/^(https?:\/\/)?(www\.)?paypal\.me\//i, '').replace(/\/$/, '');
    return checkHandle(name, { chars: ALNUM, allowed: 'letters and digits', min: 1, max: 20, description: 'a PayPal.Me name' });
}
export const paypal = typedIdentifierRail({
    id: 'paypal',
    label: 'PayPal',
    checks: { link_name: checkPayPalLinkName, email },
    currencies: 'iso4217',
    // paypal.me/<name>/<amount><CURRENCY> pre-fills the amount; an email has no public link.
    settlementPayload(fields, currency, amount) {
        if (fields['identifier_type'] !== 'link_name')
            return null;
        const value = linkAmount(amount, iso4217Exponent(currency) ?? 2);
        if (value === null)
            return null;
        const suffix = value === undefined ? '' : `/${value}${currency}`;
        return { kind: 'link', uri: `https://paypal.me/${String(fields['identifier'])}${suffix}` };
    },
});
/** (c) Revolut tags (Revtags): 5-20 letters and digits, shown with @; stored lower-case without it. */
export const checkRevtag = (value) => checkHandle(value, {
    sigil: '@',
    chars: ALNUM,
    allowed: 'letters and digits',
    min: 5,
    max: 20,
    description: 'a Revtag',
    lowerCase: true,
});
export const revolut = handleRail({
    id: 'revolut',
    label: 'Revolut',
    field: 'tag',
    fieldLabel: 'Revtag',
    check: checkRevtag,
    currencies: 'iso4217',
    settlementPayload: (fields) => ({ kind: 'link', uri: `https://revolut.me/${String(fields['tag'])}` }),
});
/** (d) Wise: a Wisetag, an email, or an IBAN (mod-97 checked). */
export const checkWisetag = (value) => checkHandle(value, {
    sigil: '@',
    chars: /^[A-Za-z0-9._-]+$/,
    allowed: 'letters, digits, ., - and _',
    min: 3,
    max: 30,
    description: 'a Wisetag',
});
export const wise = typedIdentifierRail({
    id: 'wise',
    label: 'Wise',
    checks: { tag: checkWisetag, email, iban: checkIban },
    currencies: 'iso4217',
});
/** (e) Cash App $Cashtags: up to 20 letters and digits with at least one letter; stored without the $. */
export const checkCashtag = (value) => checkHandle(value, {
    sigil: '$',
    chars: ALNUM,
    allowed: 'letters and digits',
    min: 1,
    max: 20,
    description: 'a $Cashtag',
    needsLetter: true,
});
export const cashapp = handleRail({
    id: 'cashapp',
    label: 'Cash App',
    field: 'cashtag',
    fieldLabel: '$Cashtag',
    check: checkCashtag,
    currencies: ['USD'],
    settlementPayload(fields, _currency, amount) {
        const value = linkAmount(amount, 2);
        if (value === null)
            return null;
        return { kind: 'link', uri: `https://cash.app/$${String(fields['cashtag'])}${value === undefined ? '' : `/${value}`}` };
    },
});
/** (f) Zelle: enrolled US email or US mobile number. */
export const zelle = typedIdentifierRail({
    id: 'zelle',
    label: 'Zelle',
    checks: { email, phone: northAmericanPhone },
    currencies: ['USD'],
});
/** (g) Alipay: account email or phone (accounts also exist on non-Chinese numbers, so any E.164). */
export const alipay = typedIdentifierRail({
    id: 'alipay',
    label: 'Alipay',
    checks: { email, phone: anyPhone },
    currencies: ['CNY'],
});
/** (h) WeChat Pay: WeChat ID (6-20 characters, starting with a letter), phone or email. */
export function checkWeChatId(input) {
    const result = checkHandle(input, {
        chars: /^[A-Za-z0-9_-]+$/,
        allowed: 'letters, digits, - and _',
        min: 6,
        max: 20,
        description: 'a WeChat ID',
    });
    if (!result.ok)
        return result;
    return /^[A-Za-z]/.test(result.value) ? pass(result.value) : fail('invalid_format', 'a WeChat ID starts with a letter');
}
export const wechatPay = typedIdentifierRail({
    id: 'wechat_pay',
    label: 'WeChat Pay',
    checks: { wechat_id: checkWeChatId, phone: anyPhone, email },
    currencies: ['CNY'],
});
/** (i) Interac e-Transfer: email or Canadian number; auto_deposit says whether the payee skips the security question. */
const AUTO_DEPOSIT = ['0', '1'];
export const interac = typedIdentifierRail({
    id: 'interac',
    label: 'Interac e-Transfer',
    checks: { email, phone: northAmericanPhone },
    currencies: ['CAD'],
    extraFields: [enumField('auto_deposit', 'Autodeposit enabled (hint)', AUTO_DEPOSIT, false)],
    readExtra: (reader) => {
        reader.choice('auto_deposit', AUTO_DEPOSIT, false);
    },
});
//# sourceMappingURL=company-rails.js.map