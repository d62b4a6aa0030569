import { ApiError } from '../../sdk/index.js';
import { hasUnsafeText } from '../../sdk/text.js';
export const DEFAULT_PERMISSIONS = ['wallet:read', 'contacts:read'];
export const DEFAULT_RATE_LIMIT = 100;
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 10_000;
export const MAX_NAME_LENGTH = 100;
/**
 * Loose JSON schema of the create body: it fixes the property set and the JSON types (each mapped to its own
 * error code through `errorCodes`); `checkCreateKey` then applies the value rules with precise messages.
 */
export const createKeySchema = {
    type: 'object',
    required: ['name'],
    properties: {
        name: { type: 'string' },
        permissions: { type: 'array', items: { type: 'string' } },
        rate_limit_per_minute: { type: 'integer' },
        expires_at: { type: ['string', 'null'] },
    },
};
export const createKeyErrorCodes = {
    name: 'invalid_name',
    permissions: 'invalid_permission',
    rate_limit_per_minute: 'invalid_rate_limit',
    expires_at: 'invalid_expires_at',
};
const FIELDS = new Set(Object.keys(createKeySchema.properties));
/** Unknown fields are refused rather than ignored: a typo such as `permission` must not yield a default key. */
export function checkKnownFields(body) {
    const extra = Object.keys(body).filter((k) => !FIELDS.has(k));
    if (extra.length) {
        throw new ApiError('unknown_field', 400, `Unknown field(s): ${extra.join(', ')}. Accepted: ${[...FIELDS].join(', ')}`, {
            fields: extra,
        });
    }
}
const bad = (code, message, context) => new ApiError(code, 400, message, context);
/**
 * 1-100 characters once trimmed. Key names are shown in listings and logs, so control, bidirectional and
 * zero-width characters are refused, anywhere in what was sent (trim() would silently drop some at the edges).
 */
function checkName(raw) {
    if (hasUnsafeText(raw)) {
        throw bad('invalid_name', 'name must not contain control, bidirectional or zero-width characters', { field: 'name' });
    }
    const name = raw.trim();
    const length = [...name].length;
    if (length < 1 || length > MAX_NAME_LENGTH) {
        throw bad('invalid_name', `name must be 1-${MAX_NAME_LENGTH} characters`, { field: 'name' });
    }
    return name;
}
function checkPermissions(raw, known) {
    if (raw === undefined)
        return [...DEFAULT_PERMISSIONS];
    if (raw.length === 0) {
        throw bad('invalid_permission', `permissions must list at least one scope; valid: ${known.join(', ')}`, {
            field: 'permissions',
            valid_permissions: [...known],
        });
    }
    const unknown = raw.filter((p) => !known.includes(p));
    if (unknown.length) {
        throw bad('invalid_permission', `Unknown permission(s): ${unknown.join(', ')}. Valid permissions: ${known.join(', ')}`, {
            field: 'permissions',
            invalid: [...new Set(unknown)],
            valid_permissions: [...known],
        });
    }
    return [...new Set(raw)];
}
function checkRateLimit(raw) {
    if (raw === undefined)
        return DEFAULT_RATE_LIMIT;
    if (!Number.isSafeInteger(raw) || raw < MIN_RATE_LIMIT || raw > MAX_RATE_LIMIT) {
        throw bad('invalid_rate_limit', `rate_limit_per_minute must be an integer from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}`, {
            field: 'rate_limit_per_minute',
        });
    }
    return raw;
}
/** `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or a zero offset: ISO 8601 in UTC. */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]00:?00)$/i;
/** Parses an ISO 8601 UTC timestamp strictly (no calendar roll-over: 2030-02-30 is refused). */
export function parseIsoUtc(text) {
    const m = ISO_UTC.exec(text.trim());
    if (!m)
        return null;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
    const millis = Number(((m[7] ?? '') + '000').slice(0, 3));
    const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis);
    const d = new Date(ms);
    if (d.getUTCFullYear() !== year ||
        d.getUTCMonth() !== month - 1 ||
        d.getUTCDate() !== day ||
        d.getUTCHours() !== hour ||
        d.getUTCMinutes() !== minute ||
        d.getUTCSeconds() !== second) {
        return null;
    }
    return ms;
}
function checkExpiresAt(raw, now) {
    if (raw === undefined || raw === null)
        return null;
    const ms = parseIsoUtc(raw);
    if (ms === null) {
        throw bad('invalid_expires_at', 'expires_at must be an ISO 8601 UTC timestamp such as 2030-01-31T12:00:00Z', {
            field: 'expires_at',
        });
    }
    if (ms <= now)
        throw bad('invalid_expires_at', 'expires_at must be in the future', { field: 'expires_at' });
    return new Date(ms).toISOString();
}
/** Applies the value rules of a create request; returns the normalised input for the key store. */
export function checkCreateKey(body, knownScopes, now) {
    checkKnownFields(body);
    return {
        name: checkName(body.name),
        permissions: checkPermissions(body.permissions, knownScopes),
        rate_limit_per_minute: checkRateLimit(body.rate_limit_per_minute),
        expires_at: checkExpiresAt(body.expires_at, now),
    };
}
//# sourceMappingURL=validate.js.map