/**
 * HTTP exchanges with the routes a plugin serves on a peer node (`PeerApi.fetch`): a plugin's own protocol toward a
 * known peer (a client library's session, say), trusted as peer messages are. A node's HTTPS certificate is
 * self-signed, so no chain is verified: at an https address the connection must show the certificate pinned for that
 * address (the pin the peer transport keeps, or on first use the one shown, pinned then), checked before anything is
 * written on it.
 * Connections are kept alive per address: a session of many requests pays for one TLS handshake (about 2.5 ms here,
 * against 0.15-0.35 ms for an exchange on a kept connection).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { OutboundError, type PeerFetchInit } from '../../sdk/index.js';
import { failure, target, webResponse, type Target } from '../net/outbound.js';
import type { TlsPins } from './client.js';
import { pinGate } from './transport-http.js';

/** Idle connections close before the peer's own keep-alive timeout (Node's default: 5 s) could close them under a request. */
const IDLE_MS = 4_000;
const MAX_SOCKETS_PER_ADDRESS = 16;

export class PeerRouteFetch {
  readonly #http = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_ADDRESS, timeout: IDLE_MS, scheduling: 'lifo' });
  readonly #https = new https.Agent({
    keepAlive: true,
    maxSockets: MAX_SOCKETS_PER_ADDRESS,
    timeout: IDLE_MS,
    scheduling: 'lifo',
    // Self-signed nodes: the pinned fingerprint is checked instead of a chain (see #gate).
    rejectUnauthorized: false,
    // No session resumption: every new connection shows its certificate.
    maxCachedSessions: 0,
  });

  constructor(private readonly pins: Pick<TlsPins, 'get' | 'pin'>) {}

  async fetch(address: string, path: string, init: PeerFetchInit = {}): Promise<Response> {
    if (!path.startsWith('/')) throw new OutboundError('bad_url', `a path starts with "/": ${path}`);
    const t = target(address);
    // A kept connection the peer closed just as it was reused fails before any answer: the request never reached
    // the peer's handler (Node's documented case for `reusedSocket`), so it goes once more on a new connection.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(address, t, path, init);
      } catch (err) {
        const stale = (err as { reusedSocket?: boolean }).reusedSocket === true;
        if (!stale || attempt > 0 || init.signal?.aborted) throw failure(err, init.signal);
      }
    }
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #once(address: string, t: Target, path: string, init: PeerFetchInit): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Host: t.url.host, ...init.headers };
      if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
      let answered = false;
      const request = (t.secure ? https : http).request(
        {
          method: init.method ?? 'GET',
          host: t.host,
          port: t.port,
          path,
          headers,
          agent: t.secure ? this.#https : this.#http,
          ...(init.signal ? { signal: init.signal } : {}),
          // SNI takes a name, never an address.
          ...(t.secure && !net.isIP(t.host) ? { servername: t.host } : {}),
        },
        (res) => {
          answered = true;
          const response = webResponse(res);
          if (response) resolve(response);
          else {
            request.destroy();
            reject(new OutboundError('unreachable', `the peer answered HTTP ${res.statusCode ?? 0}`));
          }
        },
      );
      request.on('error', (err) => {
        if (!answered && request.reusedSocket && !init.signal?.aborted) Object.assign(err, { reusedSocket: true });
        reject(err);
      });
      request.on('socket', (socket) => {
        if (!t.secure) return void request.end(init.body);
        this.#gate(address, socket as TLSSocket, (refused) => (refused ? request.destroy(refused) : request.end(init.body)));
      });
    });
  }

  /**
   * Before the request is written: the certificate the connection shows is the one pinned for the address (the
   * transport's own gate; on first use the one shown is pinned).
   */
  #gate(address: string, socket: TLSSocket, done: (refused: OutboundError | null) => void): void {
    pinGate(address, this.pins.get(address), (seen) => this.pins.pin(address, seen))(socket, (err) => {
      if (!err) return done(null);
      done(new OutboundError('tls', err.code === 'tls_pin_mismatch' ? `the certificate at ${address} is not the one pinned for it` : err.message));
    });
  }
}
