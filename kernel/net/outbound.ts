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
import { Readable, type Duplex } from 'node:stream';
import tls from 'node:tls';
import {
  OutboundError,
  type OutboundFetchInit,
  type OutboundMechanism,
  type OutboundRequest,
  type OutboundResponse,
} from '../../sdk/index.js';
import { socksConnect, type SocksEndpoint } from '../peers/transport-tor.js';
import { TransportError } from '../peers/transport.js';

export function createOutbound(socks: () => SocksEndpoint): OutboundMechanism {
  return { request: (req) => outboundRequest(req, socks()), fetch: (url, init) => outboundFetch(url, init, socks()) };
}

export interface Target {
  url: URL;
  host: string;
  port: number;
  secure: boolean;
}

export function target(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('bad_url', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad_url', `unsupported scheme ${url.protocol}`);
  const secure = url.protocol === 'https:';
  return { url, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (secure ? 443 : 80), secure };
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/** The system's error code when there is one (ECONNREFUSED...): a stack or an internal message says nothing more to an operator. */
function failedConnection(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? `connection failed (${code})` : `connection failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * A connection between its setup and the request that takes it over: an error in that gap must not go unhandled
 * (the request sees the connection fail anyway), and the setup's own listener must not reject twice.
 */
function quiet<S extends net.Socket>(socket: S): S {
  socket.removeAllListeners('error');
  socket.on('error', () => undefined);
  return socket;
}

/**
 * Resolves with the socket once it emits `event`; rejects with `failed(err)` on an error, or `connect_timeout` after
 * `timeoutMs` (`what` names the step). Either way a socket that did not get ready is destroyed.
 */
function ready<S extends net.Socket>(
  socket: S,
  event: 'connect' | 'secureConnect',
  what: string,
  timeoutMs: number,
  failed: (err: NodeJS.ErrnoException) => OutboundError,
): Promise<S> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new OutboundError('connect_timeout', `${what} not done within ${seconds(timeoutMs)}`));
    }, timeoutMs);
    socket.once(event, () => {
      clearTimeout(timer);
      resolve(quiet(socket));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(failed(err));
    });
  });
}

function direct(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  const socket = net.connect({ host, port, noDelay: true });
  return ready(socket, 'connect', 'connection', timeoutMs, (err) => new OutboundError('unreachable', failedConnection(err)));
}

async function tunnel(proxy: SocksEndpoint, host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  try {
    return quiet(await socksConnect(proxy, host, port, timeoutMs));
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    const code = err.code === 'timeout' ? 'connect_timeout' : err.code === 'tor_unavailable' ? 'tor_unavailable' : 'unreachable';
    throw new OutboundError(code, err.message);
  }
}

const TLS_FAILURE = /CERT|SELF_SIGNED|VERIFY|ALTNAME|SSL|TLS/;

function handshake(raw: net.Socket, t: Target, extraCa: string | undefined, timeoutMs: number): Promise<tls.TLSSocket> {
  const socket = tls.connect({
    socket: raw,
    host: t.host,
    // SNI takes a name, never an address.
    ...(net.isIP(t.host) ? {} : { servername: t.host }),
    ...(extraCa ? { ca: [...tls.rootCertificates, extraCa] } : {}),
  });
  return ready(socket, 'secureConnect', 'TLS handshake', timeoutMs, (err) =>
    TLS_FAILURE.test(err.code ?? '') ? new OutboundError('tls', `certificate refused (${err.code})`) : new OutboundError('unreachable', failedConnection(err)),
  );
}

type ConnectOptions = Pick<OutboundRequest, 'viaTor' | 'connectTimeoutMs' | 'timeoutMs' | 'extraCa'>;

async function connect(req: ConnectOptions, t: Target, proxy: SocksEndpoint): Promise<Duplex> {
  const started = Date.now();
  const budget = Math.min(req.connectTimeoutMs, req.timeoutMs);
  const raw = req.viaTor ? await tunnel(proxy, t.host, t.port, budget) : await direct(t.host, t.port, budget);
  if (!t.secure) return raw;
  return handshake(raw, t, req.extraCa, Math.max(1, budget - (Date.now() - started)));
}

/**
 * One request written on the connection made for it (`Connection: close`): without an agent, node writes it on the
 * connection we hand it. The caller listens for errors and ends the request with its body.
 */
function requestOn(
  socket: Duplex,
  t: Target,
  out: { method: string; headers: Record<string, string>; body?: string | undefined },
  signal: AbortSignal,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const headers: Record<string, string> = { Connection: 'close', ...out.headers };
  if (out.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(out.body));
  return http.request(
    {
      method: out.method,
      host: t.host,
      port: t.port,
      path: `${t.url.pathname}${t.url.search}`,
      headers: { Host: t.url.host, ...headers },
      signal,
      createConnection: () => socket,
    },
    onResponse,
  );
}

function exchange(req: OutboundRequest, t: Target, socket: Duplex, signal: AbortSignal): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
    if (req.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const request = requestOn(socket, t, { method: req.method, headers, body: req.body }, signal, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
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
function untilAborted<T extends Duplex>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    void work.then((late) => late.destroy(), () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      void work.then((late) => late.destroy(), () => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * What a failed exchange tells its caller: its own OutboundError as it is; `cancelled` when the caller's signal ended
 * it; `timeout` when the exchange's deadline did; `unreachable` otherwise.
 */
export function failure(err: unknown, cancel: AbortSignal | undefined, deadline?: { signal: AbortSignal; ms: number }): OutboundError {
  if (err instanceof OutboundError) return err;
  if (cancel?.aborted) return new OutboundError('cancelled', 'cancelled');
  if (deadline?.signal.aborted) return new OutboundError('timeout', `timed out after ${seconds(deadline.ms)}`);
  return new OutboundError('unreachable', failedConnection(err));
}

/** Response headers as the Fetch API has them (a repeated header is one value per line). */
function fetchHeaders(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}

const NO_BODY_STATUSES = new Set([204, 205, 304]);

/** A response as the Fetch API has it, its body streaming as it arrives; null for a status outside 200-599. */
export function webResponse(res: http.IncomingMessage): Response | null {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) return null;
  const body = NO_BODY_STATUSES.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  if (!body) res.resume();
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers: fetchHeaders(res) });
}

export async function outboundFetch(url: string, init: OutboundFetchInit, proxy: SocksEndpoint): Promise<Response> {
  const t = target(url);
  const signal = init.signal ?? new AbortController().signal;
  let socket: Duplex | null = null;
  try {
    socket = await untilAborted(connect({ ...init, timeoutMs: init.connectTimeoutMs }, t, proxy), signal);
  } catch (err) {
    socket?.destroy();
    throw failure(err, init.signal);
  }
  const connection = socket;
  return new Promise<Response>((resolve, reject) => {
    const request = requestOn(connection, t, { method: init.method ?? 'GET', headers: init.headers ?? {}, body: init.body }, signal, (res) => {
      const response = webResponse(res);
      if (!response) {
        connection.destroy();
        reject(new OutboundError('unreachable', `the server answered HTTP ${res.statusCode ?? 0}`));
        return;
      }
      resolve(response);
    });
    request.on('error', (err) => {
      connection.destroy();
      reject(failure(err, init.signal));
    });
    request.end(init.body);
  });
}

export async function outboundRequest(req: OutboundRequest, proxy: SocksEndpoint): Promise<OutboundResponse> {
  const t = target(req.url);
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
  let socket: Duplex | null = null;
  try {
    socket = await untilAborted(connect(req, t, proxy), signal);
    return await exchange(req, t, socket, signal);
  } catch (err) {
    socket?.destroy();
    throw failure(err, req.signal, { signal: deadline, ms: req.timeoutMs });
  }
}
