/**
 * HTTP and HTTPS toward peers over pooled keep-alive connections (one agent per scheme for the whole node:
 * peer traffic between two nodes can be thousands of requests per second, so connections are reused).
 *
 * HTTPS peers use self-signed certificates, so the certificate chain is not verified; instead the SHA-256
 * fingerprint of the peer certificate is compared with the one pinned for the address (trust on first use).
 * The request body is written only after the check passed, on fresh and on reused connections alike, so a
 * peer with the wrong certificate never sees it. A request marked `fresh` (the unpinned hello of a re-pin,
 * see repin.ts) goes over a connection of its own, so the fingerprint it reports is that of a new handshake.
 *
 * A request marked `stream` (a peer message) goes as a frame on the address's peer stream when its peer has one
 * (transport-stream.ts), opened here with the same pin check before its upgrade request is written.
 */
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import { STREAM_PATH, STREAM_PROTOCOL } from './frames.js';
import { ClientStream, StreamPool } from './transport-stream.js';
import {
  MAX_RESPONSE_BYTES,
  TransportError,
  normalizeAddress,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

export interface HttpTransportOptions {
  /** Response size cap in bytes (default 10 MB). */
  maxResponseBytes?: number;
  /** Concurrent connections per peer (default 64). */
  maxSocketsPerHost?: number;
}

/** Errors that mean "the peer (or the path to it) is not there", as opposed to bugs. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EPIPE',
  'EPROTO',
  'ETIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
  'HPE_INVALID_CONSTANT',
  'HPE_INVALID_VERSION',
  'HPE_INVALID_STATUS',
  'HPE_INVALID_HEADER_TOKEN',
  'HPE_HEADER_OVERFLOW',
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
]);

/** Maps whatever a socket or parser threw to a TransportError. */
export function toTransportError(err: unknown, what: string): TransportError {
  if (err instanceof TransportError) return err;
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  const message = err instanceof Error ? err.message : String(err);
  // Refused, reset, unknown host, TLS or protocol failure: for the caller all mean "not reachable now".
  const known = UNREACHABLE_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code.startsWith('HPE_');
  return new TransportError('unreachable', `${what}: ${message}${code && !known ? ` (${code})` : ''}`);
}

/** Hex SHA-256 of the DER certificate the TLS socket's peer presented, or null if none. */
export function peerFingerprint(socket: TLSSocket): string | null {
  const cert = socket.getPeerX509Certificate?.();
  return cert ? cert.fingerprint256.replace(/:/g, '').toLowerCase() : null;
}

export interface ExchangeOptions {
  /** What the request goes through (an agent, or createConnection for a one-off socket; TLS options for https). */
  request: https.RequestOptions;
  module: typeof http | typeof https;
  transport: TransportRequest;
  maxResponseBytes: number;
  /** Called once the socket is ready to carry the request; throw a TransportError to refuse it. */
  beforeSend?: (socket: Socket, onReady: (err: TransportError | null) => void) => void;
  /** Label for error messages. */
  label: string;
}

interface ExchangeResult extends TransportResponse {
  reusedSocket: boolean;
}

/** At most this many pooled connections with a superseded certificate are skipped for one request. */
const MAX_STALE_PINNED_SOCKETS = 64;

/** How a failed exchange went, for the stale-connection retry. */
const attempts = new WeakMap<TransportError, { reusedSocket: boolean; responseStarted: boolean }>();

/** One request/response over node:http(s) with an overall deadline, a size cap and error mapping. */
export function exchange(opts: ExchangeOptions, deadline: number): Promise<ExchangeResult> {
  const { transport } = opts;
  return new Promise<ExchangeResult>((resolve, reject) => {
    let settled = false;
    let responseStarted = false;
    const body = transport.body === undefined ? undefined : Buffer.from(transport.body, 'utf8');
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = body.length;
    }
    const req = opts.module.request({ ...opts.request, method: transport.method, path: transport.path, headers });
    const finish = (err: TransportError | null, result?: ExchangeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        attempts.set(err, { reusedSocket: req.reusedSocket, responseStarted });
        req.destroy();
        reject(err);
      } else {
        resolve(result!);
      }
    };
    const remaining = Math.max(1, deadline - Date.now());
    const timer = setTimeout(
      () => finish(new TransportError('timeout', `${opts.label}: no complete answer within ${transport.timeoutMs} ms`)),
      remaining,
    );
    req.on('error', (err) => finish(toTransportError(err, opts.label)));
    const beforeSend = opts.beforeSend;
    if (beforeSend) {
      // Nothing is written until the socket passed the check (headers included).
      req.on('socket', (socket: Socket) => {
        beforeSend(socket, (err) => {
          if (settled) return;
          if (err) finish(err);
          else req.end(body);
        });
      });
    } else {
      req.end(body);
    }
    req.on('response', (res) => {
      responseStarted = true;
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxResponseBytes) {
        finish(new TransportError('too_large', `${opts.label}: response of ${declared} bytes exceeds ${opts.maxResponseBytes}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxResponseBytes) {
          finish(new TransportError('too_large', `${opts.label}: response exceeds ${opts.maxResponseBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => finish(toTransportError(err, opts.label)));
      res.on('aborted', () => finish(new TransportError('unreachable', `${opts.label}: connection closed mid-response`)));
      res.on('end', () => {
        if (settled) return;
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
        finish(null, { status: res.statusCode ?? 0, body: text, reusedSocket: req.reusedSocket });
      });
    });
  });
}

/**
 * A stale keep-alive connection can be closed by the peer just as it is reused; Node reports ECONNRESET
 * before any response byte. Such a request almost always never reached the peer's handler, so it is sent once
 * more (the approach the node:http documentation recommends with `request.reusedSocket`). In the rare case it
 * did arrive, the peer's replay cache refuses the copy. Idle pooled connections are dropped before the
 * peer's announced keep-alive timeout (IDLE_SOCKET_MS plus Node's `Keep-Alive: timeout=` hint), which keeps
 * this race rare in the first place.
 *
 * A pooled connection can also be stale the other way: opened before the address was re-pinned, it presents the
 * superseded certificate and fails the pin check before anything is written. It is closed and the request goes
 * over another connection, which is checked against the same pin (a fresh one still refuses a wrong certificate).
 * Once the transport is closed nothing is sent again: the request fails at once.
 */
export async function withStaleSocketRetry(run: () => Promise<ExchangeResult>, closed: () => boolean): Promise<ExchangeResult> {
  let resets = 0;
  let stalePins = 0;
  for (;;) {
    // A closed transport (the node is stopping) destroyed its connections: no new one is opened to retry on.
    if (closed()) throw new TransportError('unreachable', 'the transport is closed: the node is stopping');
    try {
      return await run();
    } catch (err) {
      const attempt = err instanceof TransportError ? attempts.get(err) : undefined;
      if (!attempt || !attempt.reusedSocket || attempt.responseStarted) throw err;
      const code = (err as TransportError).code;
      if (code === 'unreachable' && resets++ === 0) continue;
      // Each such turn closes one pooled connection, so this ends (bounded anyway).
      if (code === 'tls_pin_mismatch' && stalePins++ < MAX_STALE_PINNED_SOCKETS) continue;
      throw err;
    }
  }
}

function stripInternal(result: ExchangeResult): TransportResponse {
  const out: TransportResponse = { status: result.status, body: result.body };
  if (result.certFingerprint !== undefined) out.certFingerprint = result.certFingerprint;
  return out;
}

/** Remembers the fingerprint of each TLS connection (computed once per connection, reused across requests). */
const fingerprints = new WeakMap<Socket, string>();

function tlsFingerprint(socket: TLSSocket): string | null {
  const cached = fingerprints.get(socket);
  if (cached) return cached;
  const seen = peerFingerprint(socket);
  if (seen) fingerprints.set(socket, seen);
  return seen;
}

interface Target {
  label: string;
  secure: boolean;
  host: string;
  port: number;
}

/** Parsed targets by address as given (addresses repeat on the hot path; bounded, cleared when full). */
const targets = new Map<string, Target | null>();
const MAX_CACHED_TARGETS = 4096;

function targetOf(address: string): Target | null {
  let target = targets.get(address);
  if (target !== undefined) return target;
  const normalized = normalizeAddress(address);
  if (normalized && normalized.includes('://')) {
    const url = new URL(normalized);
    const secure = url.protocol === 'https:';
    target = { label: normalized, secure, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (secure ? 443 : 80) };
  } else {
    target = null;
  }
  if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
  targets.set(address, target);
  return target;
}

/**
 * Socket timeout of pooled connections. Node's agent only honours a peer's `Keep-Alive: timeout=N` hint (closing
 * idle sockets a second before the peer would) when the agent has a timeout of its own; it also closes idle
 * sockets of peers that send no hint. Requests have their own deadline (timeoutMs).
 */
export const IDLE_SOCKET_MS = 30_000;

/**
 * How long opening a stream may take before the message goes over HTTP instead: a peer answers an upgrade at once, a
 * proxy in between that does not pass upgrades may leave it unanswered.
 */
const STREAM_OPEN_MS = 3_000;

/**
 * https: the check a connection passes before anything is written on it: the certificate it presented is the pinned
 * one (or, on first use, any). `seen` learns the fingerprint.
 */
export function pinGate(label: string, pin: string | null, seen: (fingerprint: string) => void) {
  return (socket: Socket, onReady: (err: TransportError | null) => void): void => {
    const tls = socket as TLSSocket;
    const check = (): void => {
      const fingerprint = tlsFingerprint(tls);
      if (!fingerprint) onReady(new TransportError('unreachable', `${label}: the peer presented no certificate`));
      else {
        seen(fingerprint);
        if (pin && fingerprint !== pin) {
          onReady(new TransportError('tls_pin_mismatch', `${label}: certificate ${fingerprint} does not match the pinned ${pin}`));
        } else onReady(null);
      }
    };
    // A reused connection finished its handshake long ago; a fresh one is checked once it has.
    if (tlsFingerprint(tls)) check();
    else tls.once('secureConnect', check);
  };
}

export class HttpTransport implements Transport {
  readonly #http: http.Agent;
  readonly #https: https.Agent;
  readonly #maxResponseBytes: number;
  #closed = false;
  readonly #isClosed = (): boolean => this.#closed;
  readonly #streams = new StreamPool((address, pin, deadline) => this.#openStream(address, pin, deadline));

  constructor(options: HttpTransportOptions = {}) {
    const maxSockets = options.maxSocketsPerHost ?? 64;
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.#http = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo', timeout: IDLE_SOCKET_MS });
    this.#https = new https.Agent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'lifo',
      timeout: IDLE_SOCKET_MS,
      // Self-signed peers: the chain is not verified, the pinned fingerprint is (see beforeSend).
      rejectUnauthorized: false,
      // No TLS session resumption: every new connection shows its certificate, which is what gets pinned.
      maxCachedSessions: 0,
    });
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const deadline = Date.now() + request.timeoutMs;
    const target = targetOf(request.address);
    if (!target) throw new TransportError('bad_address', `not an http or https address: ${request.address}`);
    const { secure, host, port } = target;
    const label = `${request.method} ${target.label}${request.path}`;
    const pin = secure && request.pin ? request.pin.replace(/:/g, '').toLowerCase() : null;
    if (request.stream && !request.fresh && request.method === 'POST' && request.body !== undefined) {
      const answer = await this.#viaStream(target, request.body, pin, deadline);
      if (answer) return answer;
    }
    if (!secure) {
      const result = await withStaleSocketRetry(() =>
        exchange(
          { module: http, request: { host, port, agent: this.#http }, transport: request, maxResponseBytes: this.#maxResponseBytes, label },
          deadline,
        ),
        this.#isClosed,
      );
      return stripInternal(result);
    }
    let seen: string | null = null;
    const beforeSend = pinGate(label, pin, (fingerprint) => (seen = fingerprint));
    const result = await withStaleSocketRetry(() =>
      exchange(
        {
          module: https,
          // A fresh request gets a one-off agent: a new handshake, closed after the answer, never pooled.
          request: request.fresh ? { host, port, agent: false, rejectUnauthorized: false } : { host, port, agent: this.#https },
          transport: request,
          maxResponseBytes: this.#maxResponseBytes,
          beforeSend,
          label,
        },
        deadline,
      ),
      this.#isClosed,
    );
    const out = stripInternal(result);
    if (seen) out.certFingerprint = seen;
    return out;
  }

  /**
   * One message as a frame on the address's stream, or null when its peer has no streams. A frame written on a stream
   * that was open before is sent once more, on a new stream, when that one closes before answering: the peer may have
   * ended it, idle, just as the frame left (and a copy it did receive is refused by its replay cache).
   */
  async #viaStream(target: Target, body: string, pin: string | null, deadline: number): Promise<TransportResponse | null> {
    for (let again = true; ; again = false) {
      const taken = await this.#streams.get(target.label, pin, deadline);
      if (!taken) return null;
      try {
        const answer = await taken.stream.send(body, deadline);
        return taken.stream.fingerprint ? { ...answer, certFingerprint: taken.stream.fingerprint } : answer;
      } catch (err) {
        if (again && taken.reused && !this.#closed && err instanceof TransportError && err.code === 'unreachable') continue;
        throw err;
      }
    }
  }

  /** Opens a stream: an upgrade request on a connection of its own, checked against the pin before it is written. */
  #openStream(address: string, pin: string | null, deadline: number): Promise<ClientStream | null> {
    const target = targetOf(address)!;
    const label = `${target.label}${STREAM_PATH}`;
    return new Promise((resolve, reject) => {
      let seen: string | null = null;
      let settled = false;
      const req = (target.secure ? https : http).request({
        host: target.host,
        port: target.port,
        method: 'GET',
        path: STREAM_PATH,
        agent: false,
        headers: { connection: 'Upgrade', upgrade: STREAM_PROTOCOL },
        ...(target.secure ? { rejectUnauthorized: false } : {}),
      });
      /** No stream (null) unless an error says why the peer cannot be reached at all. */
      const finish = (err: TransportError | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        if (err) reject(err);
        else resolve(null);
      };
      const timer = setTimeout(
        () => finish(Date.now() >= deadline ? new TransportError('timeout', `${label}: no answer within the deadline`) : null),
        Math.max(1, Math.min(STREAM_OPEN_MS, deadline - Date.now())),
      );
      req.on('error', (err) => finish(toTransportError(err, label)));
      // Answered as an ordinary request: the peer does not speak streams.
      req.on('response', (res) => {
        res.resume();
        finish(null);
      });
      req.on('upgrade', (res, socket: Socket, head: Buffer) => {
        if (settled || String(res.headers.upgrade ?? '').toLowerCase() !== STREAM_PROTOCOL) {
          socket.destroy();
          finish(null);
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolve(new ClientStream(socket, head, seen, this.#maxResponseBytes, IDLE_SOCKET_MS, label));
      });
      if (!target.secure) req.end();
      else {
        const gate = pinGate(label, pin, (fingerprint) => (seen = fingerprint));
        req.on('socket', (socket: Socket) => gate(socket, (err) => (err ? finish(err) : req.end())));
      }
    });
  }

  /** Fails the requests in flight and every later one (the node is stopping). */
  close(): void {
    this.#closed = true;
    this.#streams.close();
    this.#http.destroy();
    this.#https.destroy();
  }
}
