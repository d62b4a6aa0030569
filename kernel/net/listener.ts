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
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { certificateFingerprint } from './tls.js';

export interface DualListener {
  /** Owns the port: listen(), address(), close(). */
  readonly server: net.Server;
  readonly httpServer: http.Server;
  readonly httpsServer: https.Server;
  /**
   * Swaps the certificate for new connections. Idle HTTPS connections are closed so that clients reconnect
   * and see the new certificate at once; a connection busy with a request keeps the old one until it ends.
   */
  setCertificate(cert: string, key: string): void;
  /** Lower-case hex SHA-256 of the DER of the certificate new HTTPS connections get (what peers pin). */
  fingerprint(): string;
  /**
   * Closes connections with no request in flight, including those that never sent one; connections busy with
   * a request close once it is answered (`Connection: close`).
   */
  closeIdle(): void;
  /** Destroys every connection. */
  closeAll(): void;
}

export interface DualListenerOptions {
  /** A connection that sends nothing for this long before its first byte is dropped (default 10 s). */
  firstByteTimeoutMs?: number;
}

const TLS_HANDSHAKE_RECORD = 0x16;

export function createDualListener(
  handler: http.RequestListener,
  tls: { cert: string; key: string },
  options: DualListenerOptions = {},
): DualListener {
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 10_000;
  let fingerprint = certificateFingerprint(tls.cert);
  let draining = false;
  /** Connections handed over that have not started a request yet (Node counts those as active, not idle). */
  const fresh = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    // A TLS handshake that finishes while closing: nothing was asked yet, nothing is lost.
    if (draining) {
      socket.destroy();
      return;
    }
    fresh.add(socket);
    socket.once('close', () => fresh.delete(socket));
  };
  // Once closing, every response says `Connection: close`, so keep-alive clients let go as their requests end.
  const wrapped: http.RequestListener = (req, res) => {
    fresh.delete(req.socket);
    if (draining) res.shouldKeepAlive = false;
    handler(req, res);
  };
  const httpServer = http.createServer(wrapped);
  const httpsServer = https.createServer({ cert: tls.cert, key: tls.key, ALPNProtocols: ['http/1.1'] }, wrapped);
  // The inner servers never listen, yet their connection tracking (closeIdleConnections, header and request
  // timeouts) starts on 'listening'.
  httpServer.emit('listening');
  httpsServer.emit('listening');
  httpsServer.on('secureConnection', track);

  const undecided = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: false }, (socket) => {
    undecided.add(socket);
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    socket.setTimeout(firstByteTimeoutMs, () => {
      socket.destroy();
    });
    socket.once('close', () => undecided.delete(socket));
    socket.once('data', (chunk: Buffer) => {
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
      } else {
        socket.off('error', onError);
        track(socket);
        httpServer.emit('connection', socket);
        // The HTTP server reads the pushed-back data once the stream flows again.
        socket.resume();
      }
    });
  });

  const stopInner = (): void => {
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
      for (const socket of [...undecided, ...fresh]) socket.destroy();
      undecided.clear();
      fresh.clear();
      httpServer.closeIdleConnections();
      httpsServer.closeIdleConnections();
    },
    closeAll() {
      draining = true;
      for (const socket of [...undecided, ...fresh]) socket.destroy();
      undecided.clear();
      fresh.clear();
      httpServer.closeAllConnections();
      httpsServer.closeAllConnections();
    },
  };
}
