export const SECRET_WARNING = 'Save this secret now: it will not be shown again.';
export function keyView(record, now) {
    const expiresAt = record.expires_at ? Date.parse(record.expires_at) : null;
    return {
        key_id: record.key_id,
        name: record.name,
        permissions: [...record.permissions],
        rate_limit_per_minute: record.rate_limit_per_minute,
        enabled: record.enabled,
        expired: expiresAt !== null && expiresAt <= now,
        created_at: record.created_at,
        last_used_at: record.last_used_at,
        expires_at: record.expires_at,
    };
}
//# sourceMappingURL=present.js.map