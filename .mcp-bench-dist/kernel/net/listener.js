/**
 * One TCP port serving both HTTP and HTTPS with the same request handler.
 *
 * Each accepted connection is held until its first data arrives: a first byte 0x16 is a TLS handshake record
 * (ClientHello), so the socket goes to the HTTPS server; anything else goes to the HTTP server. The data is pushed
 * back into the socket first, so either server reads the stream from the start. The node's https address is therefore
 * `https://<same host:port>` as its http one.
 *
 * The inner servers never listen themselves; the outer net.Server owns the port and counts every connection,
 * so `server.close(cb)` calls back once all of them (HTTP, HTTPS and undecided) are closed.
 *
 * Nobody is authenticated at this level, so it bounds what any client address can hold: connections served at once
 * (more wait, unread, for a slot) and how long a request may take to arrive.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { normalizeIp } from './proxies.js';
import { certificateFingerprint } from './tls.js';
const TLS_HANDSHAKE_RECORD = 0x16;
/**
 * Connections served at once from one address. A peer's pooled agent opens at most 64 toward one node, so an honest
 * peer never waits; all Tor traffic arrives from the local tor daemon's address and shares these slots.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;
/**
 * Connections from one address waiting, unread, for a slot; beyond this they are closed at once. A wait is bounded
 * by the first-byte timeout, like an idle new connection.
 */
export const MAX_WAITING_PER_ADDRESS = 256;
/** Headers must be complete this long after a request's first byte (Node's default is a minute). */
export const HEADERS_TIMEOUT_MS = 15_000;
/**
 * A whole request, body included, must arrive within this (Node's default is five minutes). 1 MiB, the largest body
 * the node takes, needs only 35 KB/s to make it; a peer's own transport gives up after 15 s (HTTP) or 45 s (Tor)
 * for request and answer together by default.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks the two timeouts above (its default, 30 s, would let a request overstay by as much). */
const TIMEOUT_CHECK_MS = 1_000;
/** Connection slots per client address: a connection over the cap waits, unread, until one closes. */
class AddressSlots {
    waitMs;
    serve;
    #open = new Map();
    /** Per address, in arrival order; the value undoes what waiting set on the socket. */
    #waiting = new Map();
    constructor(waitMs, serve) {
        this.waitMs = waitMs;
        this.serve = serve;
    }
    /** Every waiting connection (closing the listener drops them). */
    waiting() {
        return [...this.#waiting.values()].flatMap((queue) => [...queue.keys()]);
    }
    admit(socket) {
        const address = normalizeIp(socket.remoteAddress ?? '');
        if ((this.#open.get(address) ?? 0) < MAX_CONNECTIONS_PER_ADDRESS) {
            this.#take(address, socket);
            return;
        }
        const queue = this.#waiting.get(address) ?? new Map();
        if (queue.size >= MAX_WAITING_PER_ADDRESS) {
            socket.destroy();
            return;
        }
        this.#waiting.set(address, queue);
        const drop = () => {
            socket.destroy();
        };
        const timer = setTimeout(drop, this.waitMs);
        socket.on('error', drop);
        socket.once('close', () => this.#leaveQueue(address, socket));
        queue.set(socket, () => {
            clearTimeout(timer);
            socket.off('error', drop);
        });
    }
    #take(address, socket) {
        this.#open.set(address, (this.#open.get(address) ?? 0) + 1);
        socket.once('close', () => {
            const left = (this.#open.get(address) ?? 1) - 1;
            if (left > 0)
                this.#open.set(address, left);
            else
                this.#open.delete(address);
            const next = this.#waiting.get(address)?.keys().next().value;
            if (next) {
                this.#leaveQueue(address, next);
                this.#take(address, next);
            }
        });
        this.serve(socket);
    }
    #leaveQueue(address, socket) {
        const queue = this.#waiting.get(address);
        queue?.get(socket)?.();
        queue?.delete(socket);
        if (queue?.size === 0)
            this.#waiting.delete(address);
    }
}
export function createDualListener(handler, tls, options = {}) {
    const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 10_000;
    let fingerprint = certificateFingerprint(tls.cert);
    let draining = false;
    /** Connections handed over that have not started a request yet (Node counts those as active, not idle). */
    const fresh = new Set();
    const track = (socket) => {
        // A TLS handshake that finishes while closing: nothing was asked yet, nothing is lost.
        if (draining) {
            socket.destroy();
            return;
        }
        fresh.add(socket);
        socket.once('close', () => fresh.delete(socket));
    };
    // Once closing, every response says `Connection: close`, so keep-alive clients let go as their requests end.
    const wrapped = (req, res) => {
        fresh.delete(req.socket);
        if (draining)
            res.shouldKeepAlive = false;
        handler(req, res);
    };
    const timeouts = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS };
    const httpServer = http.createServer(timeouts, wrapped);
    const httpsServer = https.createServer({ ...timeouts, cert: tls.cert, key: tls.key, ALPNProtocols: ['http/1.1'] }, wrapped);
    // The inner servers never listen, yet their connection tracking (closeIdleConnections, header and request
    // timeouts) starts on 'listening'.
    httpServer.emit('listening');
    httpsServer.emit('listening');
    httpsServer.on('secureConnection', track);
    const undecided = new Set();
    /** A connection with a slot: held until its first byte tells TLS from plain HTTP. */
    const serve = (socket) => {
        undecided.add(socket);
        const onError = () => {
            socket.destroy();
        };
        socket.on('error', onError);
        socket.setTimeout(firstByteTimeoutMs, () => {
            socket.destroy();
        });
        socket.once('close', () => undecided.delete(socket));
        socket.once('data', (chunk) => {
            socket.pause();
            socket.setTimeout(0);
            undecided.delete(socket);
            socket.unshift(chunk);
            if (draining) {
                socket.destroy();
                return;
            }
            if (chunk[0] === TLS_HANDSHAKE_RECORD) {
                // TLS takes over the socket's handle and first drains what is buffered (the chunk pushed back above).
                // The raw socket keeps its error listener: errors surface on the TLS socket, this one must not throw.
                // Not half-open: once the peer is gone the raw socket must close too, or server.close() never returns.
                socket.allowHalfOpen = false;
                httpsServer.emit('connection', socket);
            }
            else {
                socket.off('error', onError);
                track(socket);
                httpServer.emit('connection', socket);
                // The HTTP server reads the pushed-back data once the stream flows again.
                socket.resume();
            }
        });
        // Accepted paused (see the server below): reading starts only now that the connection has a slot.
        socket.resume();
    };
    const slots = new AddressSlots(firstByteTimeoutMs, serve);
    // Paused on connect: a connection waiting for a slot is not read at all, so it holds no buffered bytes.
    const server = net.createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: true }, (socket) => slots.admit(socket));
    const stopInner = () => {
        // close() on a server that never listened still runs its pre-close step (stop timers, close idle).
        httpServer.close(() => undefined);
        httpsServer.close(() => undefined);
    };
    server.once('close', stopInner);
    return {
        server,
        httpServer,
        httpsServer,
        setCertificate(cert, key) {
            const next = certificateFingerprint(cert);
            httpsServer.setSecureContext({ cert, key });
            fingerprint = next;
            httpsServer.closeIdleConnections();
        },
        fingerprint: () => fingerprint,
        closeIdle() {
            draining = true;
            for (const socket of [...slots.waiting(), ...undecided, ...fresh])
                socket.destroy();
            undecided.clear();
            fresh.clear();
            httpServer.closeIdleConnections();
            httpsServer.closeIdleConnections();
        },
        closeAll() {
            draining = true;
            for (const socket of [...slots.waiting(), ...undecided, ...fresh])
                socket.destroy();
            undecided.clear();
            fresh.clear();
            httpServer.closeAllConnections();
            httpsServer.closeAllConnections();
        },
    };
}
//# sourceMappingURL=listener.js.map