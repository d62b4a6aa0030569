const ALLOWED_HEADERS = 'Content-Type, X-API-Key, X-API-Timestamp, X-API-Nonce, X-API-Signature';
/** Applies `apiCorsAllowedOrigins`; returns true when it answered a preflight by itself. */
export function applyCors(ctx, allowedSetting) {
    const origin = ctx.get('Origin');
    if (!origin)
        return false;
    const allowed = allowedSetting.split(',').map((s) => s.trim()).filter(Boolean);
    const ok = allowed.includes('*') || allowed.includes(origin);
    if (ok) {
        ctx.set('Access-Control-Allow-Origin', allowed.includes('*') ? '*' : origin);
        ctx.set('Vary', 'Origin');
        ctx.set('Access-Control-Expose-Headers', 'Retry-After');
    }
    if (ctx.method !== 'OPTIONS' || !ctx.get('Access-Control-Request-Method'))
        return false;
    if (ok) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, PATCH, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
    }
    ctx.status = 204;
    return true;
}
//# sourceMappingURL=cors.js.map