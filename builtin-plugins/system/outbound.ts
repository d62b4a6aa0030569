import { OutboundError as TransportFailure, type OutboundMechanism, type OutboundResponse } from '../../sdk/index.js';

/**
 * The few outbound HTTP calls of the system plugin (update check, debug-report submission), direct or through
 * the Tor SOCKS5 proxy, carried by the kernel's outbound mechanism (`ctx.kernel.outbound`). Every call has a hard
 * deadline: an unreachable server must never leave a request of ours hanging.
 */

export interface OutboundCall {
  method: 'GET' | 'POST';
  url: URL;
  body?: string;
  headers?: Record<string, string>;
  /** Deadline for the whole exchange (connect, send, receive). */
  timeoutMs: number;
  /** Through the Tor SOCKS proxy (Tor resolves the name), or directly. */
  viaTor: boolean;
  /** A larger answer is refused: these are small JSON documents. */
  maxResponseBytes: number;
  /** Aborts the call early (the plugin stopping). */
  signal?: AbortSignal;
}

/** A failure whose message is safe to show to the operator (no stack, no internals). */
export class OutboundError extends Error {
  override name = 'OutboundError';
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

export const isOnion = (url: URL): boolean => url.hostname.toLowerCase().endsWith('.onion');
export const isLoopback = (url: URL): boolean => LOOPBACK.test(url.hostname);

export async function outbound(mechanism: OutboundMechanism, call: OutboundCall): Promise<OutboundResponse> {
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
  } catch (err) {
    throw new OutboundError(err instanceof TransportFailure ? err.message : 'unexpected error');
  }
}
