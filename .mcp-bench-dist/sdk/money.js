import { Decimal as BaseDecimal } from 'decimal.js';
/** Enough significant digits for 2^63 major units at 8 decimals, with room for percent math. */
const Decimal = BaseDecimal.clone({ precision: 60, rounding: BaseDecimal.ROUND_DOWN });
/**
 * Exact money. In memory: bigint minor units (1 = 1e-8 of a major unit). On disk: `whole` and `frac`
 * integers with value = whole + frac / 1e8, frac in 0..99999999 (the sign sits on whole, floor semantics:
 * -0.5 is whole -1, frac 50000000). On the wire: trimmed decimal strings.
 */
export const SCALE = 100000000n;
export const DECIMALS = 8;
/** Largest transaction amount: max signed 64-bit integer / 4, in major units. */
export const MAX_AMOUNT = ((2n ** 63n - 1n) / 4n) * SCALE;
/** Largest credit limit: max signed 64-bit integer, in major units. */
export const MAX_CREDIT = (2n ** 63n - 1n) * SCALE;
/**
 * A JSON number of a request body that no double holds exactly (`1234567890.12345678`, `9223372036854775807`,
 * `1e400`), kept as the text the client wrote. Numbers a double does hold arrive as plain JS numbers.
 *
 * The amount parsers below take it like a string, so the value is never rounded. Anything that wants a JS number
 * refuses it: schemas typed `number` or `integer` do (it is an object), and numeric coercion gives NaN rather than
 * a rounded double. Its string form and its JSON form are the exact text.
 */
export class ExactNumber {
    text;
    constructor(text) {
        this.text = text;
        Object.freeze(this);
    }
    [Symbol.toPrimitive](hint) {
        return hint === 'string' ? this.text : NaN;
    }
    toString() {
        return this.text;
    }
    toJSON() {
        return this.text;
    }
}
const NUMERIC = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/**
 * Parses a decimal amount from a JSON number (an `ExactNumber` included) or a string: surrounding spaces are
 * trimmed, exponent notation ("1e2", or the JSON number 1e2) is accepted when it denotes at most 8 decimals; signs
 * other than a leading '+' and anything else ("abc", "100.50.50", "0x10") are not numbers.
 */
export function parseDecimal(input) {
    let text;
    if (typeof input === 'number') {
        if (!Number.isFinite(input))
            return { ok: false, reason: 'not_a_number' };
        // The shortest text that reads back as this double: what the client wrote, since the body parser hands over as
        // plain numbers only those a double holds exactly.
        text = String(input);
    }
    else if (input instanceof ExactNumber) {
        text = input.text;
    }
    else if (typeof input === 'string') {
        text = input.trim();
    }
    else {
        return { ok: false, reason: 'not_a_number' };
    }
    if (text.startsWith('-') && NUMERIC.test(text.slice(1)))
        return { ok: false, reason: 'negative' };
    if (!NUMERIC.test(text))
        return { ok: false, reason: 'not_a_number' };
    const d = new Decimal(text);
    // Exponents past decimal.js's range ("1e9999999999999999") become Infinity or 0 instead of throwing later.
    if (!d.isFinite())
        return { ok: false, reason: 'too_large' };
    if (d.isZero() && /[1-9]/.test(text.split(/[eE]/)[0]))
        return { ok: false, reason: 'too_precise' };
    if (d.decimalPlaces() > DECIMALS)
        return { ok: false, reason: 'too_precise' };
    return { ok: true, value: BigInt(d.times(SCALE.toString()).toFixed(0)) };
}
/** An amount for a payment: > 0 and at most MAX_AMOUNT. */
export function parseAmount(input, max = MAX_AMOUNT) {
    const r = parseDecimal(input);
    if (!r.ok)
        return r;
    if (r.value === 0n)
        return { ok: false, reason: 'zero' };
    if (r.value > max)
        return { ok: false, reason: 'too_large' };
    return r;
}
/** Trimmed decimal string: 500000000n → "5", 10000000n → "0.1", -150000000n → "-1.5". */
export function formatMinor(value) {
    const negative = value < 0n;
    const abs = negative ? -value : value;
    const whole = abs / SCALE;
    const frac = (abs % SCALE).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
    return `${negative ? '-' : ''}${whole}${frac ? '.' + frac : ''}`;
}
/** Eight fractional digits always ("5.00000000"), for exports. */
export function formatMinorFixed(value) {
    const negative = value < 0n;
    const abs = negative ? -value : value;
    return `${negative ? '-' : ''}${abs / SCALE}.${(abs % SCALE).toString().padStart(DECIMALS, '0')}`;
}
export function toParts(value) {
    let whole = value / SCALE;
    let frac = value % SCALE;
    if (frac < 0n) {
        whole -= 1n;
        frac += SCALE;
    }
    return { whole, frac };
}
export function fromParts(whole, frac) {
    return BigInt(whole) * SCALE + BigInt(frac);
}
/** A percentage of an amount, truncated to the minor unit (fees never round up). */
export function percentOf(amount, percent) {
    return BigInt(new Decimal(amount.toString()).times(percent).div(100).toFixed(0, BaseDecimal.ROUND_DOWN));
}
//# sourceMappingURL=money.js.map