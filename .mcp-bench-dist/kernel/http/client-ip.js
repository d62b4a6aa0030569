import { isIP } from 'node:net';
import { normalizeIp } from '../net/proxies.js';
/**
 * The client's address. Forwarding headers are believed only when the direct peer is a trusted proxy;
 * X-Forwarded-For is walked from the right, skipping trusted hops, so a client cannot spoof by prepending.
 */
export function clientIp(remote, headers, trusted) {
    const direct = normalizeIp(remote ?? '');
    if (!trusted || !trusted.includes(direct))
        return direct;
    const cf = headers['cf-connecting-ip'];
    if (typeof cf === 'string' && isIP(cf.trim()))
        return normalizeIp(cf.trim());
    const xff = headers['x-forwarded-for'];
    const hops = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
        const hop = normalizeIp(hops[i]);
        if (isIP(hop) === 0)
            break;
        if (!trusted.includes(hop))
            return hop;
    }
    return direct;
}
//# sourceMappingURL=client-ip.js.map