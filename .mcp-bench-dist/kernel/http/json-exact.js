import { ExactNumber } from '../../sdk/money.js';
/**
 * JSON.parse, except that a number no double holds exactly becomes an `ExactNumber` carrying its source text:
 * JSON.parse would hand `1234567890.12345678` over as 1234567890.1234567, and an amount must never be rounded.
 * (Node 20's JSON.parse reviver does not see the source text; that arrived in Node 21.)
 *
 * A number stays a JS number when the double it reads as denotes the same decimal value as its text ("12.5",
 * "1e2", "0.1": String(0.1) is "0.1"), so `limit`, `priority` and every other ordinary number validate as before.
 *
 * Everything else is JSON.parse's: RFC 8259 grammar, the last of duplicate keys wins, `__proto__` is an ordinary
 * key (never the prototype). Containers are kept on an explicit stack, so nesting depth is bounded by the body
 * limit, not by the call stack. Throws SyntaxError.
 */
export function parseJsonExact(text) {
    return new Parser(text).document();
}
const WS_SPACE = 0x20;
const WS_TAB = 0x09;
const WS_LF = 0x0a;
const WS_CR = 0x0d;
const isDigit = (c) => c >= 0x30 && c <= 0x39;
class Parser {
    text;
    #pos = 0;
    constructor(text) {
        this.text = text;
    }
    document() {
        const stack = [];
        for (;;) {
            this.#skipSpace();
            let value;
            const c = this.text.charCodeAt(this.#pos);
            if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
                this.#pos++;
                this.#skipSpace();
                const close = c === 0x7b ? 0x7d : 0x5d;
                if (this.text.charCodeAt(this.#pos) === close) {
                    this.#pos++;
                    value = c === 0x7b ? {} : [];
                }
                else {
                    stack.push(c === 0x7b ? { object: {}, key: this.#key() } : { array: [] });
                    continue;
                }
            }
            else {
                value = this.#scalar();
            }
            // Attach the finished value to its container; close every container that ends here.
            for (;;) {
                const top = stack.at(-1);
                if (!top) {
                    this.#skipSpace();
                    if (this.#pos !== this.text.length)
                        this.#fail('Unexpected data after JSON value');
                    return value;
                }
                if ('array' in top)
                    top.array.push(value);
                else
                    setOwn(top.object, top.key, value);
                this.#skipSpace();
                const next = this.text.charCodeAt(this.#pos++);
                if (next === 0x2c /* , */) {
                    if ('object' in top) {
                        this.#skipSpace();
                        top.key = this.#key();
                    }
                    break;
                }
                if (next !== ('array' in top ? 0x5d : 0x7d))
                    this.#fail('Expected , or the end of the container', -1);
                stack.pop();
                value = 'array' in top ? top.array : top.object;
            }
        }
    }
    /** A member's key and its colon. */
    #key() {
        if (this.text.charCodeAt(this.#pos) !== 0x22)
            this.#fail('Expected a string key');
        const key = this.#string();
        this.#skipSpace();
        if (this.text.charCodeAt(this.#pos++) !== 0x3a /* : */)
            this.#fail('Expected :', -1);
        return key;
    }
    #scalar() {
        const c = this.text.charCodeAt(this.#pos);
        if (c === 0x22)
            return this.#string();
        if (c === 0x2d || isDigit(c))
            return this.#number();
        for (const [word, value] of LITERALS) {
            if (this.text.startsWith(word, this.#pos)) {
                this.#pos += word.length;
                return value;
            }
        }
        return this.#fail(Number.isNaN(c) ? 'Unexpected end of JSON input' : 'Unexpected token');
    }
    #string() {
        const start = this.#pos++;
        let escaped = false;
        for (;;) {
            const c = this.text.charCodeAt(this.#pos++);
            if (c === 0x22)
                break;
            if (c === 0x5c /* \ */) {
                escaped = true;
                this.#pos++;
            }
            else if (!(c >= 0x20)) {
                // control characters must be escaped; NaN is the end of the text
                this.#fail(Number.isNaN(c) ? 'Unterminated string' : 'Control character in string', -1);
            }
        }
        const token = this.text.slice(start, this.#pos);
        // The escapes (\n, \u00e9, surrogate pairs) are JSON.parse's to decode, and to refuse when malformed.
        return escaped ? JSON.parse(token) : token.slice(1, -1);
    }
    #number() {
        const start = this.#pos;
        if (this.text.charCodeAt(this.#pos) === 0x2d)
            this.#pos++;
        if (this.text.charCodeAt(this.#pos) === 0x30)
            this.#pos++;
        else
            this.#digits();
        if (this.text.charCodeAt(this.#pos) === 0x2e /* . */) {
            this.#pos++;
            this.#digits();
        }
        const e = this.text.charCodeAt(this.#pos);
        if (e === 0x65 || e === 0x45) {
            this.#pos++;
            const sign = this.text.charCodeAt(this.#pos);
            if (sign === 0x2b || sign === 0x2d)
                this.#pos++;
            this.#digits();
        }
        const token = this.text.slice(start, this.#pos);
        const n = Number(token);
        return Number.isFinite(n) && sameDecimal(token, String(n)) ? n : new ExactNumber(token);
    }
    #digits() {
        const start = this.#pos;
        while (isDigit(this.text.charCodeAt(this.#pos)))
            this.#pos++;
        if (this.#pos === start)
            this.#fail('Expected a digit');
    }
    #skipSpace() {
        for (;;) {
            const c = this.text.charCodeAt(this.#pos);
            if (c !== WS_SPACE && c !== WS_TAB && c !== WS_LF && c !== WS_CR)
                return;
            this.#pos++;
        }
    }
    #fail(message, back = 0) {
        throw new SyntaxError(`${message} at position ${this.#pos + back}`);
    }
}
const LITERALS = [
    ['true', true],
    ['false', false],
    ['null', null],
];
/** Like JSON.parse: a `__proto__` member is data, not the object's prototype. */
function setOwn(object, key, value) {
    if (key === '__proto__')
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    else
        object[key] = value;
}
/** Whether two JSON number texts denote the same decimal value ("1.50e1" and "15" do). */
function sameDecimal(a, b) {
    return canonical(a) === canonical(b);
}
/** Sign, significant digits and the power of ten of the last one: "-0.0150" is "-15e-3"; every zero is "0". */
function canonical(text) {
    const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    const fraction = m[3] ?? '';
    const all = (m[2] + fraction).replace(/^0+/, '');
    if (all === '')
        return '0';
    const digits = all.replace(/0+$/, '');
    // A power too large for a double is not compared here: such a number reads as 0 or Infinity, so it differs anyway.
    const power = Number(m[4] ?? 0) - fraction.length + (all.length - digits.length);
    return `${m[1]}${digits}e${power}`;
}
//# sourceMappingURL=json-exact.js.map