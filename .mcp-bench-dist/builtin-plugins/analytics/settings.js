import { isAbsolute } from 'node:path';
/**
 * The analytics plugin's own settings. The consent settings of Document 2 (`analyticsEnabled`,
 * `analyticsConsentAsked`, `analyticsOptInAt`) are declared by the system plugin, whose settings route stamps
 * consent; this plugin reads them.
 */
/**
 * `{analytics_url}` of Document 2: an https URL, or an http URL of an onion service (Tor encrypts that end to end).
 * Empty means no collector is configured: nothing is sent.
 */
export function collectorUrlProblem(value) {
    const text = String(value);
    if (text === '')
        return null;
    let url;
    try {
        url = new URL(text);
    }
    catch {
        return 'must be an https URL (or http://<name>.onion), or empty';
    }
    const onion = url.hostname.toLowerCase().endsWith('.onion');
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && onion))
        return 'must be https (plain http only for a .onion collector)';
    if (url.username || url.password || url.search || url.hash)
        return 'must not carry credentials, a query or a fragment';
    return null;
}
export const analyticsSettings = [
    {
        key: 'analyticsUrl',
        type: 'string',
        default: '',
        category: 'analytics',
        env: 'NODE_ANALYTICS_URL',
        description: 'Collector base URL; reports go to <url>/v1/report through Tor. Empty: no collector, nothing is sent',
        validate: collectorUrlProblem,
        normalize: (v) => String(v).replace(/\/+$/, ''),
    },
    {
        key: 'analyticsCaFile',
        type: 'string',
        default: '',
        category: 'analytics',
        env: 'NODE_ANALYTICS_CA_FILE',
        description: 'PEM file of certificate authorities trusted for the collector besides the system ones (a private collector); empty: none',
        validate: (v) => (v === '' || isAbsolute(String(v)) ? null : 'must be an absolute path, or empty'),
    },
];
//# sourceMappingURL=settings.js.map