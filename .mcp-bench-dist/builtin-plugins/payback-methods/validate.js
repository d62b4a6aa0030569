/**
 * Input rules of the payback-method routes and the validation envelope of Document 1 (convention 8):
 * `{success:false, error:'validation_error', message, data:{errors:[{field, code, message}]}, timestamp, request_id}`,
 * one entry per failing field. The rules of the fields themselves belong to the rails; this module checks what
 * surrounds them (type, label, currency, priority, share policy, enabled) and names rail errors `fields.<name>`.
 */
import { RawReply } from '../../sdk/index.js';
import { isIso4217 } from './rails/codecs/iso4217.js';
export const LABEL_MAX = 128;
export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 9999;
export const DEFAULT_PRIORITY = 100;
export const SHARE_POLICIES = ['auto', 'never'];
/** The one top-level code of the validation envelope. */
export const VALIDATION_ERROR = 'validation_error';
/** Thrown by handlers; the route wrapper answers it with the validation envelope (400). */
export class PaybackValidationError extends Error {
    errors;
    constructor(errors) {
        super(summary(errors));
        this.errors = errors;
        this.name = 'PaybackValidationError';
    }
}
function summary(errors) {
    if (errors.length === 1)
        return `Validation failed: ${errors[0].field}: ${errors[0].message}`;
    return `Validation failed for ${errors.length} fields: ${errors.map((e) => e.field).join(', ')}`;
}
export function validationReply(errors, requestId) {
    const body = {
        success: false,
        error: VALIDATION_ERROR,
        message: summary(errors),
        data: { errors },
        timestamp: new Date().toISOString(),
        request_id: requestId,
    };
    return new RawReply(JSON.stringify(body), 'application/json; charset=utf-8', 400);
}
/** Collects errors, one per field (the first problem found for a field wins). */
export class Problems {
    list = [];
    add(field, code, message) {
        if (!this.list.some((e) => e.field === field))
            this.list.push({ field, code, message });
    }
    has(field) {
        return this.list.some((e) => e.field === field);
    }
    throwIfAny() {
        if (this.list.length > 0)
            throw new PaybackValidationError(this.list);
    }
}
export const isPlainObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
// C0/C1 controls, DEL and bidirectional overrides: they break display and logs, or show other text than stored.
const UNSAFE_TEXT = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;
export function checkLabel(value, p) {
    if (value === undefined || value === null)
        return void p.add('label', 'required', 'label is required');
    if (typeof value !== 'string')
        return void p.add('label', 'invalid_type', 'label must be a string');
    const label = value.trim();
    if (label === '')
        return void p.add('label', 'required', 'label is required');
    if (UNSAFE_TEXT.test(label))
        return void p.add('label', 'invalid_format', 'label contains control characters');
    if ([...label].length > LABEL_MAX)
        return void p.add('label', 'too_long', `label is at most ${LABEL_MAX} characters`);
    return label;
}
const CURRENCY = /^[A-Za-z0-9]{3,10}$/;
/** Document 1, convention 5: 3-10 letters or digits; ISO 4217 fiat codes upper-cased, other tokens kept as typed. */
export function normalizeCurrency(value) {
    const code = value.trim();
    if (!CURRENCY.test(code))
        return null;
    return isIso4217(code.toUpperCase()) ? code.toUpperCase() : code;
}
export function checkCurrency(value, p) {
    if (value === undefined || value === null || value === '')
        return void p.add('currency', 'required', 'currency is required');
    if (typeof value !== 'string')
        return void p.add('currency', 'invalid_type', 'currency must be a string');
    const code = normalizeCurrency(value);
    if (!code)
        return void p.add('currency', 'invalid_format', 'currency must be 3 to 10 letters or digits');
    return code;
}
export function checkPriority(value, p) {
    if (value === undefined || value === null)
        return undefined;
    let n;
    if (typeof value === 'number')
        n = value;
    else if (typeof value === 'string' && /^\s*-?\d{1,9}\s*$/.test(value))
        n = Number(value);
    else
        return void p.add('priority', 'invalid_type', 'priority must be an integer');
    if (!Number.isInteger(n))
        return void p.add('priority', 'invalid_type', 'priority must be an integer');
    if (n < PRIORITY_MIN || n > PRIORITY_MAX) {
        return void p.add('priority', 'invalid_value', `priority must be between ${PRIORITY_MIN} and ${PRIORITY_MAX}`);
    }
    return n;
}
export function checkSharePolicy(value, p) {
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== 'string')
        return void p.add('share_policy', 'invalid_type', 'share_policy must be auto or never');
    const policy = value.trim().toLowerCase();
    if (!SHARE_POLICIES.includes(policy)) {
        return void p.add('share_policy', 'invalid_value', 'share_policy must be auto or never');
    }
    return policy;
}
export function checkEnabled(value, p) {
    if (value === undefined || value === null)
        return undefined;
    if (typeof value === 'boolean')
        return value;
    if (value === 0 || value === 1)
        return value === 1;
    return void p.add('enabled', 'invalid_type', 'enabled must be true or false');
}
/** The rail named by `type`, or an error on `type`. */
export function checkType(value, registry, p) {
    if (value === undefined || value === null || value === '')
        return void p.add('type', 'required', 'type is required');
    if (typeof value !== 'string')
        return void p.add('type', 'invalid_type', 'type must be a string (a rail id)');
    const rail = registry.get(value.trim());
    if (!rail)
        return void p.add('type', 'unknown_type', `unknown payback type "${value}"; GET /api/v1/payback-methods/types lists them`);
    return rail;
}
/**
 * Runs the rail over `fields`: its errors are added as `fields.<name>` (its `currency` errors stay on
 * `currency`), and the normalised fields are returned when everything passed.
 */
export function checkFields(value, rail, currency, rawCurrency, registry, p) {
    if (value === undefined || value === null)
        return void p.add('fields', 'required', 'fields is required (an object; its shape depends on the type)');
    if (!isPlainObject(value))
        return void p.add('fields', 'invalid_type', 'fields must be an object');
    if (!rail)
        return undefined;
    const railCurrency = currency ?? (typeof rawCurrency === 'string' ? rawCurrency.trim() : '');
    for (const e of registry.validate(rail, value, railCurrency)) {
        const field = e.field === 'currency' || e.field === 'fields' ? e.field : `fields.${e.field}`;
        p.add(field, e.code, e.message);
    }
    if (p.list.length > 0 || currency === undefined)
        return undefined;
    return registry.normalize(rail, value, currency);
}
//# sourceMappingURL=validate.js.map