import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { SocksClient } from 'socks';

/**
 * The few outbound HTTP calls of the system plugin (update check, debug-report submission), direct or
 * tunnelled through the Tor SOCKS5 proxy. Every call has a hard deadline: an unreachable server must never
 * leave a request of ours hanging.
 */

export interface SocksProxy {
  host: string;
  port: number;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: URL;
  body?: string;
  headers?: Record<string, string>;
  /** Deadline for the whole exchange (connect, send, receive). */
  timeoutMs: number;
  /** Tunnel through this SOCKS5 proxy (Tor resolves the name), or connect directly when null. */
  socks: SocksProxy | null;
  /** A larger answer is refused: these are small JSON documents. */
  maxResponseBytes: number;
  /** Aborts the call early (the plugin stopping). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  body: string;
}

/** A failure whose message is safe to show to the operator (no stack, no internals). */
export class OutboundError extends Error {
  override name = 'OutboundError';
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

export const isOnion = (url: URL): boolean => url.hostname.toLowerCase().endsWith('.onion');
export const isLoopback = (url: URL): boolean => LOOPBACK.test(url.hostname);

function describe(err: unknown, signal: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof Error && reason.name === 'TimeoutError') {
      return new OutboundError(`timed out after ${Math.round(timeoutMs / 1000)} s`);
    }
    return new OutboundError('cancelled');
  }
  const code = (err as { code?: unknown }).code;
  const text = err instanceof Error ? err.message : String(err);
  return new OutboundError(typeof code === 'string' ? `connection failed (${code})` : `connection failed: ${text}`);
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

async function tunnel(url: URL, proxy: SocksProxy, timeoutMs: number, signal: AbortSignal): Promise<Duplex> {
  const secure = url.protocol === 'https:';
  const port = Number(url.port) || (secure ? 443 : 80);
  const pending = SocksClient.createConnection({
    proxy: { host: proxy.host, port: proxy.port, type: 5 },
    command: 'connect',
    // A host name (not an address) goes to the proxy: Tor resolves it, so DNS never leaks.
    destination: { host: url.hostname, port },
    timeout: timeoutMs,
  });
  let socket;
  try {
    ({ socket } = await Promise.race([pending, aborted(signal)]));
  } catch (err) {
    void pending.then(({ socket: late }) => late.destroy(), () => undefined);
    throw err;
  }
  return secure ? tls.connect({ socket, servername: url.hostname }) : socket;
}

export async function outbound(req: OutboundRequest): Promise<OutboundResponse> {
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
  try {
    const socket = req.socks ? await tunnel(req.url, req.socks, req.timeoutMs, signal) : null;
    return await new Promise<OutboundResponse>((resolve, reject) => {
      const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
      if (req.body !== undefined) {
        headers['Content-Type'] ??= 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(req.body));
      }
      const options: http.RequestOptions = {
        method: req.method,
        hostname: req.url.hostname.replace(/^\[|\]$/g, ''),
        port: req.url.port || undefined,
        path: `${req.url.pathname}${req.url.search}`,
        headers,
        signal,
      };
      // Without an agent, node uses the socket we hand it (the SOCKS tunnel) for this one request.
      if (socket) options.createConnection = () => socket;
      const lib = socket || req.url.protocol === 'http:' ? http : https;
      const request = lib.request(options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > req.maxResponseBytes) {
            request.destroy(new OutboundError(`response larger than ${req.maxResponseBytes} bytes`));
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
  } catch (err) {
    throw describe(err, signal, req.timeoutMs);
  }
}
