import { OutboundError as TransportFailure } from '../../sdk/index.js';
/** A failure whose message is safe to show to the operator (no stack, no internals). */
export class OutboundError extends Error {
    name = 'OutboundError';
}
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;
export const isOnion = (url) => url.hostname.toLowerCase().endsWith('.onion');
export const isLoopback = (url) => LOOPBACK.test(url.hostname);
export async function outbound(mechanism, call) {
    try {
        return await mechanism.request({
            method: call.method,
            url: call.url.href,
            body: call.body,
            headers: call.headers,
            viaTor: call.viaTor,
            connectTimeoutMs: call.timeoutMs,
            timeoutMs: call.timeoutMs,
            maxResponseBytes: call.maxResponseBytes,
            signal: call.signal,
        });
    }
    catch (err) {
        throw new OutboundError(err instanceof TransportFailure ? err.message : 'unexpected error');
    }
}
//# sourceMappingURL=outbound.js.map