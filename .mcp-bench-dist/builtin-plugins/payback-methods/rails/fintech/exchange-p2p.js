/**
 * `exchange_p2p`: internal transfers between accounts of one crypto exchange, which are free and instant.
 * Six large exchanges, each with the identifiers its transfer screen accepts: Binance Pay (Pay ID, Binance
 * UID, email, phone), Coinbase (email, phone), Kraken (email, phone, Kraktag username), OKX, Bybit and KuCoin
 * (UID, email, phone). The currency is the asset expected. No link builder: none of these has a public
 * payment URL.
 */
import { isAssetSymbol } from '../common/currency.js';
import { displayNameField, enumField, readDisplayName } from '../common/fields.js';
import { maskTail, summary } from '../common/mask.js';
import { assetPrecision } from '../common/precision.js';
import { buildRail } from '../common/rail.js';
import { asString } from '../common/text.js';
import { anyPhone, checkHandle, email } from './identifiers.js';
import { identifierField, readTypedIdentifier } from './typed-identifier.js';
const digits = (description, min, max) => (value) => checkHandle(value, { chars: /^\d+$/, allowed: 'digits', min, max, description });
const IDENTIFIER_CHECKS = {
    email,
    phone: anyPhone,
    pay_id: digits('a Pay ID', 6, 12),
    uid: digits('a UID', 5, 20),
    username: (value) => checkHandle(value, {
        sigil: '@',
        chars: /^[A-Za-z0-9_.-]+$/,
        allowed: 'letters, digits, _ . -',
        min: 3,
        max: 32,
        description: 'a username',
    }),
};
const SERVICES = {
    binance_pay: { label: 'Binance Pay', types: ['pay_id', 'uid', 'email', 'phone'] },
    coinbase: { label: 'Coinbase', types: ['email', 'phone'] },
    kraken: { label: 'Kraken', types: ['username', 'email', 'phone'] },
    okx: { label: 'OKX', types: ['uid', 'email', 'phone'] },
    bybit: { label: 'Bybit', types: ['uid', 'email', 'phone'] },
    kucoin: { label: 'KuCoin', types: ['uid', 'email', 'phone'] },
};
const SERVICE_IDS = Object.keys(SERVICES);
const variantFields = Object.fromEntries(SERVICE_IDS.map((id) => [id, [enumField('identifier_type', 'Identifier type', SERVICES[id]?.types ?? [])]]));
export const exchangeP2p = buildRail({
    id: 'exchange_p2p',
    catalog: {
        id: 'exchange_p2p',
        label: 'Exchange account transfer',
        fields: [enumField('service', 'Exchange', SERVICE_IDS), identifierField(), displayNameField()],
        variants: { discriminator: 'service', fields: variantFields },
        currencies: { rule: 'the asset expected: any code of 3-10 letters or digits' },
    },
    read(reader, currency) {
        reader.only(['service', 'identifier_type', 'identifier', 'display_name']);
        if (!isAssetSymbol(currency, 3, 10))
            reader.currencyError('must be an asset code of 3 to 10 letters or digits');
        readDisplayName(reader);
        const id = reader.choice('service', SERVICE_IDS, true);
        const service = id === undefined ? undefined : SERVICES[id];
        if (!service)
            return;
        readTypedIdentifier(reader, Object.fromEntries(service.types.map((type) => [type, IDENTIFIER_CHECKS[type]])));
    },
    mask(fields) {
        const service = SERVICES[asString(fields['service']) ?? ''];
        return summary(service?.label ?? 'Exchange', maskTail(fields['identifier']), fields['display_name']);
    },
    precision: assetPrecision,
});
//# sourceMappingURL=exchange-p2p.js.map