/**
 * The native-or-token rule of chains whose tokens are named by a contract-like field (Solana mints, TON
 * jetton masters, Stellar issuers, Algorand asset ids): the native asset must not carry that field; for any
 * other asset it is optional (Document 1 lists it in parentheses) and checked when given.
 */
import { isAssetSymbol, sameSymbol } from '../common/currency.js';
/** Returns 'native', 'token', or undefined when the currency is not a usable symbol. */
export function applyTokenRule(reader, currency, rule) {
    if (sameSymbol(currency, rule.native)) {
        reader.forbid(rule.tokenField, `for native ${rule.native}`);
        return 'native';
    }
    const [min, max] = rule.symbolLength ?? [2, 10];
    if (!isAssetSymbol(currency, min, max)) {
        reader.currencyError(`must be ${rule.native} or a ${rule.chain} token symbol`);
        return undefined;
    }
    rule.readToken(reader);
    return 'token';
}
/** Known token decimals, else the chain's usual token decimals. */
export function tokenExponent(currency, native, nativeExponent, known, fallback) {
    const symbol = currency.toUpperCase();
    if (symbol === native)
        return nativeExponent;
    return known[symbol] ?? fallback;
}
//# sourceMappingURL=token-rule.js.map