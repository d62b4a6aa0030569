/**
 * Browser Origin rules of Document 2 for the MCP endpoint and the legacy chat route:
 *
 *   - no Origin header: allowed (not a browser, or a same-origin navigation);
 *   - a loopback origin (localhost, 127.0.0.0/8, [::1]) is allowed implicitly;
 *   - any other origin must match the key's override, or when the key has none the operator's default list, by
 *     scheme and host name only: a configured port permits every port of that host;
 *   - the request's own Host is no implicit permission (a page on the node's own host name is refused unless listed).
 *
 * The check never replaces the bearer: it runs after authentication, on requests that already proved a key.
 */
/** Stored form of an origin: lower-case `scheme://host[:port]`. Null when the text is not an http(s) origin. */
export function normalizeOrigin(text) {
    const trimmed = text.trim();
    if (!trimmed || trimmed.length > 253 + 16)
        return null;
    let url;
    try {
        url = new URL(trimmed);
    }
    catch {
        return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return null;
    if (url.username || url.password || url.search || url.hash)
        return null;
    if (url.pathname !== '/')
        return null;
    return `${url.protocol}//${url.host}`.toLowerCase();
}
function parse(origin) {
    try {
        const url = new URL(origin);
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
            return null;
        return { scheme: url.protocol, host: url.hostname.toLowerCase() };
    }
    catch {
        return null;
    }
}
export function isLoopbackHost(host) {
    const h = host.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1';
}
/**
 * Whether a request's Origin may use the endpoint. `allowed` is the effective list (the key's override, else the
 * operator's defaults), in stored form.
 */
export function checkOrigin(header, allowed) {
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value === '')
        return { ok: true, origin: null };
    const got = parse(value);
    if (!got)
        return { ok: false, origin: value };
    if (isLoopbackHost(got.host))
        return { ok: true, origin: value };
    for (const entry of allowed) {
        const want = parse(entry);
        if (want && want.scheme === got.scheme && want.host === got.host)
            return { ok: true, origin: value };
    }
    return { ok: false, origin: value };
}
//# sourceMappingURL=origins.js.map