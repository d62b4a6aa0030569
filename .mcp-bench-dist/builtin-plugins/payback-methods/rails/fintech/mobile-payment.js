/**
 * `mobile_payment`: national mobile payment apps, each tied to one country and currency. Chosen for reach in
 * their markets: MB WAY (Portugal), Bizum (Spain), Swish (Sweden), Vipps (Norway), MobilePay (Denmark and
 * Finland, hence its `country` field) and TWINT (Switzerland). People receive on their mobile number; Vipps
 * additionally accepts the 6-digit Vippsnummer that businesses and associations receive on, which is the
 * spec's one service identified by a 6-digit code.
 */
import { fail, pass } from '../common/check.js';
import { displayNameField, enumField, readDisplayName, stringField } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { fiatPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { checkNationalPhone } from '../codecs/phone.js';
const SERVICES = {
    mbway: {
        label: 'MB WAY',
        markets: { PT: { currency: 'EUR', phone: /^\+3519\d{8}$/, phoneDescription: 'a Portuguese mobile number (+351 9...)' } },
    },
    bizum: {
        label: 'Bizum',
        markets: { ES: { currency: 'EUR', phone: /^\+34[67]\d{8}$/, phoneDescription: 'a Spanish mobile number (+34 6... or 7...)' } },
    },
    swish: {
        label: 'Swish',
        markets: { SE: { currency: 'SEK', phone: /^\+467\d{8}$/, phoneDescription: 'a Swedish mobile number (+46 7...)' } },
    },
    vipps: {
        label: 'Vipps',
        markets: { NO: { currency: 'NOK', phone: /^\+47[49]\d{7}$/, phoneDescription: 'a Norwegian mobile number (+47 4... or 9...)' } },
        code: /^\d{6}$/,
    },
    mobilepay: {
        label: 'MobilePay',
        markets: {
            DK: { currency: 'DKK', phone: /^\+45[2-9]\d{7}$/, phoneDescription: 'a Danish number (+45 and 8 digits)' },
            FI: { currency: 'EUR', phone: /^\+358(4\d|50)\d{4,8}$/, phoneDescription: 'a Finnish mobile number (+358 4... or 50...)' },
        },
    },
    twint: {
        label: 'TWINT',
        markets: { CH: { currency: 'CHF', phone: /^\+417[5-9]\d{7}$/, phoneDescription: 'a Swiss mobile number (+41 75-79...)' } },
    },
};
const SERVICE_IDS = Object.keys(SERVICES);
function needsCountry(service) {
    return Object.keys(service.markets).length > 1;
}
function checkIdentifier(service, market) {
    return (value) => {
        if (service.code && !value.startsWith('+')) {
            if (service.code.test(value))
                return pass(value);
            return fail('invalid_format', `must be ${market.phoneDescription} or a 6-digit ${service.label} number`);
        }
        return checkNationalPhone(value, market.phone, market.phoneDescription);
    };
}
const variantFields = Object.fromEntries(SERVICE_IDS.map((id) => {
    const service = SERVICES[id];
    return [id, service && needsCountry(service) ? [enumField('country', 'Country', Object.keys(service.markets))] : []];
}));
export const mobilePayment = buildRail({
    id: 'mobile_payment',
    catalog: {
        id: 'mobile_payment',
        label: 'Mobile payment app',
        fields: [
            enumField('service', 'Service', SERVICE_IDS),
            stringField('identifier', 'Mobile number (or Vippsnummer)', { required: true, sensitive: true, maxLength: 20 }),
            displayNameField(),
        ],
        variants: { discriminator: 'service', fields: variantFields },
        currencies: { rule: 'fixed per service: mbway EUR, bizum EUR, swish SEK, vipps NOK, mobilepay DKK (DK) or EUR (FI), twint CHF' },
    },
    read(reader, currency) {
        const id = reader.choice('service', SERVICE_IDS, true);
        const service = id === undefined ? undefined : SERVICES[id];
        // `country` belongs to MobilePay only; with no known service yet it cannot be called unknown.
        reader.only(['service', 'identifier', 'display_name', ...(!service || needsCountry(service) ? ['country'] : [])]);
        readDisplayName(reader);
        if (!service)
            return;
        const markets = Object.keys(service.markets);
        const country = needsCountry(service) ? reader.choice('country', markets, true) : markets[0];
        const market = country === undefined ? undefined : service.markets[country];
        if (!market) {
            reader.string('identifier', { required: true });
            return;
        }
        if (currency !== market.currency) {
            const where = needsCountry(service) ? `${service.label} ${country}` : service.label;
            reader.currencyError(`${where} settles in ${market.currency}`);
        }
        reader.string('identifier', { required: true, check: checkIdentifier(service, market) });
    },
    mask(fields) {
        const service = SERVICES[asString(fields['service']) ?? ''];
        return summary(service?.label ?? 'Mobile payment', maskTail(fields['identifier']), fields['display_name']);
    },
    precision: fiatPrecision,
});
//# sourceMappingURL=mobile-payment.js.map