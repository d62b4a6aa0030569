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
 *
 * An upgrade request goes to the optional upgrade handler (the peer layer's streams); a connection it takes over is
 * closed with the others (when idle on closeIdle and a certificate swap, at once on closeAll), and one it declines is
 * answered by the request handler like any request.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { normalizeIp } from './proxies.js';
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

/** A connection an upgrade took over from HTTP: the listener closes it with the others. */
export interface UpgradedConnection {
  /** Closes once nothing is in flight on it (draining, a certificate swap). */
  closeWhenIdle(): void;
  destroy(): void;
}

/** Takes over an upgrade request's connection, or declines it (null): the request is then served as an ordinary one. */
export type UpgradeHandler = (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => UpgradedConnection | null;

export interface DualListenerOptions {
  /** A connection that sends nothing for this long before its first byte is dropped (default 10 s). */
  firstByteTimeoutMs?: number;
  upgrade?: UpgradeHandler;
  /** Connections one client address may hold at once, read at each new connection (default: 64 for every address). */
  connectionsPer?: (address: string) => number;
}

const TLS_HANDSHAKE_RECORD = 0x16;

/**
 * Connections served at once from one address, unless the node says otherwise (its settings). A peer's pooled agent
 * opens at most 64 toward one node, so an honest peer never waits.
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

/**
 * How long a keep-alive connection may stay idle, announced on every answer (`Keep-Alive: timeout=3`). Clients that
 * read it stop reusing a connection before that: Node's agent a second before, undici (hence fetch) two seconds
 * before, so an idle connection holds its slot one or two seconds, and one the node closes is never one such a client
 * is about to reuse (closing one then fails the request already on its way: ECONNRESET, UND_ERR_SOCKET). At 2 s
 * undici's window was nothing: fetch clients (and the client libraries built on it) opened a connection per request.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 3000;

/**
 * A keep-alive connection must have been idle this long before it gives its slot to a waiting one: past the point
 * where clients reading the keep-alive timeout have let it go, so this only reaches clients that ignore it.
 */
export const MIN_IDLE_BEFORE_CLOSE_MS = 2500;

/**
 * Keep-alive connections between requests, per client address: a new connection over the address's cap takes the
 * slot of one of them (closed, as a keep-alive timeout would) rather than waiting behind a connection nobody uses.
 */
class IdleConnections {
  readonly #busy = new Map<net.Socket, number>();
  /** Per address, oldest idle first: when each became idle. */
  readonly #idle = new Map<string, Map<net.Socket, number>>();

  constructor(
    private readonly now: () => number,
    /** A connection of the address became idle (a waiting one may get its slot in a moment). */
    private readonly onIdle: (address: string) => void,
  ) {}

  /** A request began on the socket (an HTTP one, or the TLS socket over a raw one). */
  begin(socket: net.Socket): void {
    if (!this.#busy.has(socket)) socket.once('close', () => this.#forget(socket));
    this.#busy.set(socket, (this.#busy.get(socket) ?? 0) + 1);
    this.#idle.get(addressOf(socket))?.delete(socket);
  }

  end(socket: net.Socket): void {
    const left = (this.#busy.get(socket) ?? 1) - 1;
    if (left > 0 || socket.destroyed) {
      if (left > 0) this.#busy.set(socket, left);
      return;
    }
    this.#busy.set(socket, 0);
    const address = addressOf(socket);
    const idle = this.#idle.get(address) ?? new Map<net.Socket, number>();
    idle.set(socket, this.now());
    this.#idle.set(address, idle);
    this.onIdle(address);
  }

  /**
   * Closes the address's connection idle the longest when it has been idle long enough: 0 when one was closed, else
   * the milliseconds until the oldest will be (null: none is idle).
   */
  closeOne(address: string): number | null {
    const oldest = this.#idle.get(address)?.entries().next().value;
    if (!oldest) return null;
    const [socket, since] = oldest;
    const wait = since + MIN_IDLE_BEFORE_CLOSE_MS - this.now();
    if (wait > 0) return wait;
    this.#forget(socket);
    socket.destroy();
    return 0;
  }

  #forget(socket: net.Socket): void {
    this.#busy.delete(socket);
    const address = addressOf(socket);
    const idle = this.#idle.get(address);
    idle?.delete(socket);
    if (idle?.size === 0) this.#idle.delete(address);
  }
}

const addressOf = (socket: net.Socket): string => normalizeIp(socket.remoteAddress ?? '');

/** Connection slots per client address: a connection over the cap waits, unread, until one closes. */
class AddressSlots {
  readonly #open = new Map<string, number>();
  /** Per address, in arrival order; the value undoes what waiting set on the socket. */
  readonly #waiting = new Map<string, Map<net.Socket, () => void>>();
  /** Addresses whose idle connections are looked at again soon. */
  readonly #rechecks = new Map<string, ReturnType<typeof setTimeout>>();
  readonly idle = new IdleConnections(Date.now, (address) => this.reclaim(address));

  constructor(
    private readonly waitMs: number,
    private readonly serve: (socket: net.Socket) => void,
    private readonly capOf: (address: string) => number,
  ) {}

  /** Whether connections of the address wait for a slot. */
  crowded(address: string): boolean {
    return this.#waiting.has(address);
  }

  /** Every waiting connection (closing the listener drops them). */
  waiting(): net.Socket[] {
    return [...this.#waiting.values()].flatMap((queue) => [...queue.keys()]);
  }

  admit(socket: net.Socket): void {
    const address = addressOf(socket);
    if ((this.#open.get(address) ?? 0) < this.capOf(address)) {
      this.#take(address, socket);
      return;
    }
    const queue = this.#waiting.get(address) ?? new Map<net.Socket, () => void>();
    if (queue.size >= MAX_WAITING_PER_ADDRESS) {
      socket.destroy();
      return;
    }
    this.#waiting.set(address, queue);
    const drop = (): void => {
      socket.destroy();
    };
    const timer = setTimeout(drop, this.waitMs);
    socket.on('error', drop);
    socket.once('close', () => this.#leaveQueue(address, socket));
    queue.set(socket, () => {
      clearTimeout(timer);
      socket.off('error', drop);
    });
    this.reclaim(address);
  }

  /**
   * While connections of the address wait: closes one of its idle keep-alive connections (its slot passes to the first
   * waiting one as it closes), or looks again when the oldest has been idle long enough.
   */
  reclaim(address: string): void {
    if (!this.#waiting.has(address) || this.#rechecks.has(address)) return;
    const wait = this.idle.closeOne(address);
    if (!wait) return;
    const timer = setTimeout(() => {
      this.#rechecks.delete(address);
      this.reclaim(address);
    }, wait);
    timer.unref();
    this.#rechecks.set(address, timer);
  }

  #take(address: string, socket: net.Socket): void {
    this.#open.set(address, (this.#open.get(address) ?? 0) + 1);
    socket.once('close', () => {
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left > 0) this.#open.set(address, left);
      else this.#open.delete(address);
      const next = this.#waiting.get(address)?.keys().next().value;
      if (next) {
        this.#leaveQueue(address, next);
        this.#take(address, next);
      }
    });
    this.serve(socket);
  }

  #leaveQueue(address: string, socket: net.Socket): void {
    const queue = this.#waiting.get(address);
    queue?.get(socket)?.();
    queue?.delete(socket);
    if (queue?.size === 0) this.#waiting.delete(address);
  }
}

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
  // Once closing, every response says `Connection: close`, so keep-alive clients let go as their requests end; so does
  // one while connections of its address wait, whose slot then passes on at its end without racing the client.
  const wrapped: http.RequestListener = (req, res) => {
    fresh.delete(req.socket);
    if (draining || slots.crowded(addressOf(req.socket))) res.shouldKeepAlive = false;
    // `slots` exists by the time any request arrives (made below, before the port listens).
    slots.idle.begin(req.socket);
    res.once('close', () => slots.idle.end(req.socket));
    handler(req, res);
  };
  const timeouts = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS };
  const httpServer = http.createServer(timeouts, wrapped);
  const httpsServer = https.createServer({ ...timeouts, cert: tls.cert, key: tls.key, ALPNProtocols: ['http/1.1'] }, wrapped);
  httpServer.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  httpsServer.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // The inner servers never listen, yet their connection tracking (closeIdleConnections, header and request
  // timeouts) starts on 'listening'.
  httpServer.emit('listening');
  httpsServer.emit('listening');
  httpsServer.on('secureConnection', track);

  const upgraded = new Set<UpgradedConnection>();
  const onUpgrade = (req: http.IncomingMessage, socket: net.Socket, head: Buffer): void => {
    fresh.delete(socket);
    // Closing: a connection that would stay open is not taken (the peer reconnects to the node once it is back).
    if (draining) {
      socket.destroy();
      return;
    }
    const taken = options.upgrade?.(req, socket, head) ?? null;
    if (taken) {
      upgraded.add(taken);
      socket.once('close', () => upgraded.delete(taken));
      return;
    }
    // Not an upgrade this node makes: answered like any request, on a connection that then ends.
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    wrapped(req, res);
  };
  httpServer.on('upgrade', onUpgrade);
  httpsServer.on('upgrade', onUpgrade);

  const undecided = new Set<net.Socket>();
  /** A connection with a slot: held until its first byte tells TLS from plain HTTP. */
  const serve = (socket: net.Socket): void => {
    undecided.add(socket);
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    socket.setTimeout(firstByteTimeoutMs, () => {
      socket.destroy();
    });
    socket.once('close', () => undecided.delete(socket));
    // The listening socket is half-open capable: a client that hangs up before saying anything would otherwise keep
    // its slot until the first-byte timeout.
    const onEnd = (): void => {
      socket.destroy();
    };
    socket.once('end', onEnd);
    socket.once('data', (chunk: Buffer) => {
      socket.off('end', onEnd);
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
    // Accepted paused (see the server below): reading starts only now that the connection has a slot.
    socket.resume();
  };
  const slots = new AddressSlots(firstByteTimeoutMs, serve, options.connectionsPer ?? (() => MAX_CONNECTIONS_PER_ADDRESS));
  // Paused on connect: a connection waiting for a slot is not read at all, so it holds no buffered bytes.
  const server = net.createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: true }, (socket) => slots.admit(socket));

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
      for (const connection of upgraded) connection.closeWhenIdle();
    },
    fingerprint: () => fingerprint,
    closeIdle() {
      draining = true;
      for (const socket of [...slots.waiting(), ...undecided, ...fresh]) socket.destroy();
      undecided.clear();
      fresh.clear();
      httpServer.closeIdleConnections();
      httpsServer.closeIdleConnections();
      for (const connection of upgraded) connection.closeWhenIdle();
    },
    closeAll() {
      draining = true;
      for (const socket of [...slots.waiting(), ...undecided, ...fresh]) socket.destroy();
      undecided.clear();
      fresh.clear();
      httpServer.closeAllConnections();
      httpsServer.closeAllConnections();
      for (const connection of upgraded) connection.destroy();
    },
  };
}
