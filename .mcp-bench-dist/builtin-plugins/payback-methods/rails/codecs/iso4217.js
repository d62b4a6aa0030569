/**
 * Active ISO 4217 currency codes and their minor-unit exponents, from the ISO 4217 maintenance agency's
 * list one as published on 2026-01-01 (after Bulgaria joined the euro: BGN is gone; ANG became XCG; HRK, SLL,
 * ZWL, CUC and VEF are withdrawn). Codes without a minor unit (gold, SDR, bond-market units, XTS, XXX, XSU,
 * XUA) and the Arab Accounting Dinar (a unit of account) are left out: nobody settles a debt in them.
 */
const BY_EXPONENT = {
    0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
    2: 'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF ' +
        'CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL ' +
        'HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU ' +
        'MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR ' +
        'SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED ' +
        'VES WST XCD XCG YER ZAR ZMW ZWG',
    3: 'BHD IQD JOD KWD LYD OMR TND',
    4: 'CLF UYW',
};
const EXPONENTS = new Map(Object.entries(BY_EXPONENT).flatMap(([exponent, codes]) => codes.split(' ').map((code) => [code, Number(exponent)])));
export const ISO_4217_CODES = [...EXPONENTS.keys()].sort();
export function isIso4217(code) {
    return EXPONENTS.has(code);
}
/** Minor-unit exponent (JPY 0, USD 2, KWD 3), or undefined for a code that is not an active currency. */
export function iso4217Exponent(code) {
    return EXPONENTS.get(code);
}
//# sourceMappingURL=iso4217.js.map