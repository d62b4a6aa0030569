/**
 * HTTP(S) requests of plugins to servers outside the peer network (`ctx.kernel.outbound`): directly, or through the
 * Tor SOCKS5 proxy with the host name resolved by Tor (the same SOCKS client as the Tor peer transport).
 *
 * Two deadlines, as curl has them: `connectTimeoutMs` until the request can be written (TCP, SOCKS CONNECT, TLS
 * handshake), `timeoutMs` for the whole exchange. One connection per request, closed after it: these are rare calls,
 * and a pooled Tor circuit would link one call to the next.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { OutboundError } from '../../sdk/index.js';
import { socksConnect } from '../peers/transport-tor.js';
import { TransportError } from '../peers/transport.js';
export function createOutbound(socks) {
    return { request: (req) => outboundRequest(req, socks()) };
}
function target(raw) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        throw new OutboundError('bad_url', 'not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new OutboundError('bad_url', `unsupported scheme ${url.protocol}`);
    const secure = url.protocol === 'https:';
    return { url, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (secure ? 443 : 80), secure };
}
const seconds = (ms) => `${Math.round(ms / 1000)} s`;
/** The system's error code when there is one (ECONNREFUSED...): a stack or an internal message says nothing more to an operator. */
function failedConnection(err) {
    const code = err?.code;
    return typeof code === 'string' ? `connection failed (${code})` : `connection failed: ${err instanceof Error ? err.message : String(err)}`;
}
/**
 * A connection between its setup and the request that takes it over: an error in that gap must not go unhandled
 * (the request sees the connection fail anyway), and the setup's own listener must not reject twice.
 */
function quiet(socket) {
    socket.removeAllListeners('error');
    socket.on('error', () => undefined);
    return socket;
}
/**
 * Resolves with the socket once it emits `event`; rejects with `failed(err)` on an error, or `connect_timeout` after
 * `timeoutMs` (`what` names the step). Either way a socket that did not get ready is destroyed.
 */
function ready(socket, event, what, timeoutMs, failed) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            socket.destroy();
            reject(new OutboundError('connect_timeout', `${what} not done within ${seconds(timeoutMs)}`));
        }, timeoutMs);
        socket.once(event, () => {
            clearTimeout(timer);
            resolve(quiet(socket));
        });
        socket.once('error', (err) => {
            clearTimeout(timer);
            socket.destroy();
            reject(failed(err));
        });
    });
}
function direct(host, port, timeoutMs) {
    const socket = net.connect({ host, port, noDelay: true });
    return ready(socket, 'connect', 'connection', timeoutMs, (err) => new OutboundError('unreachable', failedConnection(err)));
}
async function tunnel(proxy, host, port, timeoutMs) {
    try {
        return quiet(await socksConnect(proxy, host, port, timeoutMs));
    }
    catch (err) {
        if (!(err instanceof TransportError))
            throw err;
        const code = err.code === 'timeout' ? 'connect_timeout' : err.code === 'tor_unavailable' ? 'tor_unavailable' : 'unreachable';
        throw new OutboundError(code, err.message);
    }
}
const TLS_FAILURE = /CERT|SELF_SIGNED|VERIFY|ALTNAME|SSL|TLS/;
function handshake(raw, t, extraCa, timeoutMs) {
    const socket = tls.connect({
        socket: raw,
        host: t.host,
        // SNI takes a name, never an address.
        ...(net.isIP(t.host) ? {} : { servername: t.host }),
        ...(extraCa ? { ca: [...tls.rootCertificates, extraCa] } : {}),
    });
    return ready(socket, 'secureConnect', 'TLS handshake', timeoutMs, (err) => TLS_FAILURE.test(err.code ?? '') ? new OutboundError('tls', `certificate refused (${err.code})`) : new OutboundError('unreachable', failedConnection(err)));
}
async function connect(req, t, proxy) {
    const started = Date.now();
    const budget = Math.min(req.connectTimeoutMs, req.timeoutMs);
    const raw = req.viaTor ? await tunnel(proxy, t.host, t.port, budget) : await direct(t.host, t.port, budget);
    if (!t.secure)
        return raw;
    return handshake(raw, t, req.extraCa, Math.max(1, budget - (Date.now() - started)));
}
function exchange(req, t, socket, signal) {
    return new Promise((resolve, reject) => {
        const headers = { Accept: 'application/json', Connection: 'close', ...req.headers };
        if (req.body !== undefined) {
            headers['Content-Type'] ??= 'application/json';
            headers['Content-Length'] = String(Buffer.byteLength(req.body));
        }
        const request = http.request({
            method: req.method,
            host: t.host,
            port: t.port,
            path: `${t.url.pathname}${t.url.search}`,
            headers: { Host: t.url.host, ...headers },
            signal,
            // Without an agent, node writes this one request on the connection we hand it.
            createConnection: () => socket,
        }, (res) => {
            const chunks = [];
            let size = 0;
            res.on('data', (chunk) => {
                size += chunk.length;
                if (size > req.maxResponseBytes) {
                    // Rejected first: an answer that arrived whole would otherwise still end normally.
                    reject(new OutboundError('too_large', `response larger than ${req.maxResponseBytes} bytes`));
                    request.destroy();
                    return;
                }
                chunks.push(chunk);
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
        });
        request.on('error', reject);
        request.end(req.body);
    });
}
/** Settles with the work, or rejects as soon as the signal aborts (a late connection is closed). */
function untilAborted(work, signal) {
    if (signal.aborted) {
        void work.then((late) => late.destroy(), () => undefined);
        return Promise.reject(signal.reason);
    }
    return new Promise((resolve, reject) => {
        const onAbort = () => {
            void work.then((late) => late.destroy(), () => undefined);
            reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        work.then((v) => {
            signal.removeEventListener('abort', onAbort);
            resolve(v);
        }, (err) => {
            signal.removeEventListener('abort', onAbort);
            reject(err);
        });
    });
}
export async function outboundRequest(req, proxy) {
    const t = target(req.url);
    const deadline = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    let socket = null;
    try {
        socket = await untilAborted(connect(req, t, proxy), signal);
        return await exchange(req, t, socket, signal);
    }
    catch (err) {
        socket?.destroy();
        if (err instanceof OutboundError)
            throw err;
        if (req.signal?.aborted)
            throw new OutboundError('cancelled', 'cancelled');
        if (deadline.aborted)
            throw new OutboundError('timeout', `timed out after ${seconds(req.timeoutMs)}`);
        throw new OutboundError('unreachable', failedConnection(err));
    }
}
//# sourceMappingURL=outbound.js.map