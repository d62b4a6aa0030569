/**
 * Settlement precision: the smallest amount a rail can move, as 1 × 10^-exponent of the currency. Fiat comes
 * from ISO 4217; crypto assets use the unit their chain actually settles in (satoshi, wei, lamport, drop...).
 */
import { iso4217Exponent } from '../codecs/iso4217.js';
/** Smallest on-chain unit of well-known assets. Stablecoins use the smallest decimals any listed chain uses. */
const CRYPTO_EXPONENTS = {
    BTC: 8,
    LTC: 8,
    BCH: 8,
    DOGE: 8,
    ETH: 18,
    POL: 18,
    MATIC: 18,
    BNB: 18,
    AVAX: 18,
    SOL: 9,
    TRX: 6,
    TON: 9,
    ADA: 6,
    XRP: 6,
    XLM: 7,
    XMR: 12,
    ALGO: 6,
    USDC: 6,
    USDT: 6,
    DAI: 18,
};
/** Unknown assets: 8 decimals, the ledger's own resolution; a finer unit than the asset's never forces overpaying. */
export const UNKNOWN_ASSET_EXPONENT = 8;
export function precisionOf(exponent) {
    return { min_unit: 1, exponent };
}
export function cryptoExponent(symbol) {
    return CRYPTO_EXPONENTS[symbol.toUpperCase()];
}
/** Fiat rails: the ISO 4217 exponent, or 2 for a code the rail would have rejected anyway. */
export function fiatPrecision(currency) {
    return precisionOf(iso4217Exponent(currency.toUpperCase()) ?? 2);
}
/** Rails that take any asset (custom, exchanges): fiat by ISO 4217, crypto by its chain unit, else 8. */
export function assetPrecision(currency) {
    const code = currency.toUpperCase();
    return precisionOf(iso4217Exponent(code) ?? cryptoExponent(code) ?? UNKNOWN_ASSET_EXPONENT);
}
//# sourceMappingURL=precision.js.map