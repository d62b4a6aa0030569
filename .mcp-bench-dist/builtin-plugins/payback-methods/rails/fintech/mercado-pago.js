/**
 * (j) `mercado_pago`: the country decides both the currency (ARS, BRL, MXN) and which identifiers exist
 * there: Argentina alias/CVU/CBU/email, Brazil email/phone/CPF, Mexico email/phone/CLABE.
 */
import { fail, pass } from '../common/check.js';
import { displayNameField, enumField, readDisplayName } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { fiatPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { checkCbu, checkCvu } from '../codecs/argentina-cbu.js';
import { checkCpf } from '../codecs/brazil-tax-id.js';
import { checkClabe } from '../codecs/clabe.js';
import { brazilianMobile, email, mexicanPhone } from './identifiers.js';
import { identifierField, readTypedIdentifier } from './typed-identifier.js';
/** BCRA aliases: 6-20 letters (no ñ), digits, dots and hyphens, e.g. casa.perro.gato. */
export function checkAlias(input) {
    if (!/^[A-Za-z0-9.-]+$/.test(input))
        return fail('invalid_format', 'an alias uses letters, digits, dots and hyphens only');
    if (input.length < 6 || input.length > 20)
        return fail('invalid_length', 'an alias has 6 to 20 characters');
    return pass(input);
}
const COUNTRIES = {
    AR: { currency: 'ARS', checks: { alias: checkAlias, cvu: checkCvu, cbu: checkCbu, email } },
    BR: { currency: 'BRL', checks: { email, phone: brazilianMobile, cpf: checkCpf } },
    MX: { currency: 'MXN', checks: { email, phone: mexicanPhone, clabe: checkClabe } },
};
const COUNTRY_CODES = Object.keys(COUNTRIES);
const variantFields = Object.fromEntries(COUNTRY_CODES.map((code) => [code, [enumField('identifier_type', 'Identifier type', Object.keys(COUNTRIES[code]?.checks ?? {}))]]));
export const mercadoPago = buildRail({
    id: 'mercado_pago',
    catalog: {
        id: 'mercado_pago',
        label: 'Mercado Pago',
        fields: [enumField('country', 'Country', COUNTRY_CODES), identifierField(), displayNameField()],
        variants: { discriminator: 'country', fields: variantFields },
        currencies: ['ARS', 'BRL', 'MXN'],
    },
    read(reader, currency) {
        reader.only(['country', 'identifier_type', 'identifier', 'display_name']);
        readDisplayName(reader);
        const code = reader.choice('country', COUNTRY_CODES, true);
        const country = code === undefined ? undefined : COUNTRIES[code];
        if (!country)
            return;
        if (currency !== country.currency)
            reader.currencyError(`Mercado Pago ${code} settles in ${country.currency}`);
        readTypedIdentifier(reader, country.checks);
    },
    mask: (fields) => summary('Mercado Pago', maskTail(fields['identifier']), fields['display_name']),
    precision: fiatPrecision,
});
//# sourceMappingURL=mercado-pago.js.map