/**
 * Currency codes as Document 1 (convention 5) and Document 2 (currency rules) define them: 3-10 characters
 * A-Z, a-z, 0-9, matched case-insensitively; a recognised ISO 4217 fiat code is stored upper-case, any other
 * token keeps the case it was typed in (`VWL`, `Hours`).
 */

/** Active ISO 4217 fiat codes (funds, metals and testing codes left out: they are not typed as "a currency"). */
const FIAT = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF ' +
    'CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD ' +
    'HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL ' +
    'LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP ' +
    'PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT ' +
    'TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
  ).split(' '),
);

const CODE = /^[A-Za-z0-9]{3,10}$/;

export function isFiat(code: string): boolean {
  return FIAT.has(code.toUpperCase());
}

/** The stored form of a code, or null when it is malformed. */
export function normalizeCurrency(code: string): string | null {
  const trimmed = code.trim();
  if (!CODE.test(trimmed)) return null;
  return isFiat(trimmed) ? trimmed.toUpperCase() : trimmed;
}

export const sameCurrency = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
