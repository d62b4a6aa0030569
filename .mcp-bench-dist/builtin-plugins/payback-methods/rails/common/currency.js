/** Currency rules shared by rails: fixed currencies, any ISO 4217 code, and crypto asset symbols. */
import { isIso4217 } from '../codecs/iso4217.js';
/** Ticker symbols: 2-12 letters or digits (USDC, XLM assets up to 12, SPL and jetton tickers). */
export function isAssetSymbol(code, min = 2, max = 12) {
    return new RegExp(`^[A-Za-z0-9]{${min},${max}}$`).test(code);
}
export function requireCurrency(reader, currency, allowed) {
    if (allowed.includes(currency))
        return true;
    reader.currencyError(`this rail settles in ${allowed.join(' or ')} only`);
    return false;
}
export function requireIsoCurrency(reader, currency) {
    if (isIso4217(currency))
        return true;
    reader.currencyError('must be an active ISO 4217 currency code');
    return false;
}
/** Crypto symbols are compared case-insensitively: the caller passes tokens as the user typed them. */
export function sameSymbol(a, b) {
    return a.toUpperCase() === b.toUpperCase();
}
//# sourceMappingURL=currency.js.map