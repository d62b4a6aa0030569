/**
 * Reads a rail's raw `fields` object once and produces both the error list (for `validate`) and the cleaned
 * values (for `normalize`). Keeping both in one pass guarantees that what validate accepted is exactly what
 * normalize stores.
 */
import { fail as failed, pass } from './check.js';
import { checkFreeText, isPlainObject } from './text.js';
export class FieldReader {
    errors = [];
    normalized = {};
    source;
    constructor(fields) {
        if (isPlainObject(fields)) {
            this.source = fields;
        }
        else {
            this.source = {};
            this.fail('fields', 'invalid_type', 'fields must be an object');
        }
    }
    /** Records an error; a field keeps only its first error so clients get one message per input. */
    fail(field, code, message) {
        if (!this.hasError(field))
            this.errors.push({ field, code, message });
    }
    hasError(field) {
        return this.errors.some((error) => error.field === field);
    }
    raw(name) {
        return Object.prototype.hasOwnProperty.call(this.source, name) ? this.source[name] : undefined;
    }
    /** Blank strings count as absent: forms submit empty inputs for untouched optional fields. */
    present(name) {
        const value = this.raw(name);
        if (value === undefined || value === null)
            return false;
        return typeof value !== 'string' || value.trim() !== '';
    }
    string(name, options) {
        const value = this.raw(name);
        if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
            if (options.required)
                this.fail(name, 'required', `${name} is required`);
            return undefined;
        }
        if (typeof value !== 'string') {
            this.fail(name, 'invalid_type', `${name} must be a string`);
            return undefined;
        }
        const result = options.check ? options.check(value.trim()) : pass(value.trim());
        if (!result.ok) {
            this.fail(name, result.code, `${name}: ${result.message}`);
            return undefined;
        }
        this.normalized[name] = result.value;
        return result.value;
    }
    text(name, options) {
        return this.string(name, { required: options.required, check: (value) => checkFreeText(value, options) });
    }
    choice(name, options, required) {
        const value = this.string(name, {
            required,
            check: (candidate) => options.includes(candidate)
                ? pass(candidate)
                : failed('invalid_value', `must be one of ${options.join(', ')}`),
        });
        return value;
    }
    integer(name, options) {
        const value = this.raw(name);
        if (!this.present(name)) {
            if (options.required)
                this.fail(name, 'required', `${name} is required`);
            return undefined;
        }
        let parsed;
        if (typeof value === 'number') {
            if (!Number.isSafeInteger(value)) {
                this.fail(name, 'invalid_format', `${name} must be a whole number`);
                return undefined;
            }
            parsed = BigInt(value);
        }
        else if (typeof value === 'string') {
            const digits = value.trim();
            if (!/^\d{1,20}$/.test(digits)) {
                this.fail(name, 'invalid_format', `${name} must contain digits only`);
                return undefined;
            }
            parsed = BigInt(digits);
        }
        else {
            this.fail(name, 'invalid_type', `${name} must be an integer or a string of digits`);
            return undefined;
        }
        if (parsed < options.min || parsed > options.max) {
            this.fail(name, 'invalid_value', `${name} must be between ${options.min} and ${options.max}`);
            return undefined;
        }
        this.normalized[name] = options.storeAs === 'number' ? Number(parsed) : parsed.toString();
        return parsed;
    }
    /** A field that this combination of inputs does not permit (a token contract on a native asset). */
    forbid(name, reason) {
        if (this.present(name))
            this.fail(name, 'not_allowed', `${name} is not allowed ${reason}`);
    }
    /** Extra keys are refused so typos (`ibna`) and stale client fields surface instead of being stored. */
    only(allowed) {
        for (const key of Object.keys(this.source)) {
            if (!allowed.includes(key))
                this.fail(key, 'unknown_field', `${key} is not a field of this rail`);
        }
    }
    currencyError(message) {
        this.fail('currency', 'unsupported_currency', message);
    }
    /** Keeps a value the rail read by other means (arrays, nested rows) in the normalised output. */
    keep(name, value) {
        this.normalized[name] = value;
    }
}
//# sourceMappingURL=form.js.map