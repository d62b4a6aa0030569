/**
 * Tor: HTTP to `.onion` addresses through the local SOCKS5 proxy (NODE_TOR_SOCKS, 127.0.0.1:9050 by default).
 *
 * The onion name is passed to the proxy as a domain name (SOCKS5 address type 3), so Tor resolves it; nothing is
 * looked up locally. Plain HTTP runs inside the tunnel (onion services are end-to-end encrypted by Tor), port 80
 * unless the address names another. Tunnels are kept alive and reused per onion like any HTTP connection.
 *
 * Failures are classified for tor-health.ts: the proxy itself being down is `tor_unavailable` and does not count
 * against the onion; a refused or timed-out circuit, or a broken exchange, counts as a failure of that onion.
 */
import http from 'node:http';
import net from 'node:net';
import { SocksClient } from 'socks';
import { IDLE_SOCKET_MS, exchange, withStaleSocketRetry } from './transport-http.js';
import { MAX_RESPONSE_BYTES, TransportError, normalizeAddress, onionTarget, } from './transport.js';
/** Opens a TCP connection to the proxy, then a SOCKS5 CONNECT to host:port by name. */
export async function socksConnect(proxy, host, port, timeoutMs) {
    const started = Date.now();
    const raw = net.connect({ host: proxy.host, port: proxy.port, noDelay: true });
    await new Promise((resolve, reject) => {
        const timer = setTimeout(() => fail(new TransportError('tor_unavailable', `SOCKS proxy ${proxy.host}:${proxy.port} did not accept within ${timeoutMs} ms`)), timeoutMs);
        const fail = (err) => {
            clearTimeout(timer);
            raw.off('connect', ok);
            raw.destroy();
            reject(err);
        };
        const ok = () => {
            clearTimeout(timer);
            raw.off('error', onError);
            resolve();
        };
        const onError = (err) => fail(new TransportError('tor_unavailable', `SOCKS proxy ${proxy.host}:${proxy.port}: ${err.message}`));
        raw.once('connect', ok);
        raw.once('error', onError);
    });
    try {
        const { socket } = await SocksClient.createConnection({
            proxy: { host: proxy.host, port: proxy.port, type: 5 },
            command: 'connect',
            destination: { host, port },
            timeout: Math.max(1, timeoutMs - (Date.now() - started)),
            existing_socket: raw,
        });
        return socket;
    }
    catch (err) {
        raw.destroy();
        const message = err instanceof Error ? err.message : String(err);
        if (/timed out/i.test(message))
            throw new TransportError('timeout', `${host}: Tor circuit not established within ${timeoutMs} ms`);
        throw new TransportError('unreachable', `${host}: ${message}`);
    }
}
/** A keep-alive agent whose connections are SOCKS5 tunnels. */
class SocksAgent extends http.Agent {
    #proxy;
    constructor(proxy, maxSockets) {
        super({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo', timeout: IDLE_SOCKET_MS });
        this.#proxy = proxy;
    }
    createConnection(options, callback) {
        const deadline = options.torDeadline ?? Date.now() + 30_000;
        socksConnect(this.#proxy(), String(options.host), Number(options.port), Math.max(1, deadline - Date.now())).then((socket) => callback?.(null, socket), (err) => callback?.(err, undefined));
        return undefined;
    }
}
export class TorTransport {
    #agent;
    #health;
    #maxResponseBytes;
    #closed = false;
    constructor(options) {
        const socks = options.socks;
        this.#agent = new SocksAgent(typeof socks === 'function' ? socks : () => socks, options.maxSocketsPerHost ?? 16);
        this.#health = options.health;
        this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    }
    get health() {
        return this.#health;
    }
    async send(request) {
        const deadline = Date.now() + request.timeoutMs;
        const target = onionTarget(request.address);
        if (!target)
            throw new TransportError('bad_address', `not a v3 onion address: ${request.address}`);
        const onion = target.host;
        this.#health.check(onion);
        const label = `${request.method} ${normalizeAddress(request.address)}${request.path}`;
        const requestOptions = { host: target.host, port: target.port, agent: this.#agent, torDeadline: deadline };
        try {
            const result = await withStaleSocketRetry(() => exchange({ module: http, request: requestOptions, transport: request, maxResponseBytes: this.#maxResponseBytes, label }, deadline), () => this.#closed);
            this.#health.recordSuccess(onion);
            return { status: result.status, body: result.body };
        }
        catch (err) {
            const error = err instanceof TransportError ? err : new TransportError('unreachable', `${label}: ${String(err)}`);
            // The proxy being down says nothing about this onion; an oversized answer means the circuit worked.
            if (error.code !== 'tor_unavailable' && error.code !== 'too_large')
                this.#health.recordFailure(onion);
            else if (error.code === 'too_large')
                this.#health.recordSuccess(onion);
            throw error;
        }
    }
    /** Fails the requests in flight and every later one (the node is stopping). */
    close() {
        this.#closed = true;
        this.#agent.destroy();
    }
}
//# sourceMappingURL=transport-tor.js.map