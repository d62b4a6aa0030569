/** An HTTP(S) request of a plugin to a server outside the peer network (a release feed, a report collector). */
export interface OutboundRequest {
  method: 'GET' | 'POST';
  /** http: or https: URL. */
  url: string;
  headers?: Record<string, string>;
  /** Sent as is; `Content-Type` defaults to application/json. */
  body?: string;
  /** Through the node's Tor SOCKS5 proxy (NODE_TOR_SOCKS), the host name handed to the proxy: DNS stays inside Tor. */
  viaTor: boolean;
  /** Until the request can be written: TCP connect (to the proxy), the SOCKS5 CONNECT and the TLS handshake. */
  connectTimeoutMs: number;
  /** The whole exchange, the connection included. */
  timeoutMs: number;
  /** A larger answer fails the request. */
  maxResponseBytes: number;
  /** PEM certificates trusted for an https URL besides the system's roots (a private collector's own CA). */
  extraCa?: string;
  /** Cancels the request (the caller stopping). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  body: string;
}

export type OutboundErrorCode =
  /** The connection was not ready within connectTimeoutMs. */
  | 'connect_timeout'
  /** The exchange did not finish within timeoutMs. */
  | 'timeout'
  /** The local SOCKS5 proxy (Tor) could not be reached. */
  | 'tor_unavailable'
  /** Refused, reset, unknown host, or the proxy could not reach it. */
  | 'unreachable'
  /** The server's certificate is not trusted for the host name. */
  | 'tls'
  | 'too_large'
  | 'bad_url'
  | 'cancelled';

/** Why an outbound request failed; the message names no secret and is fit for a log or an operator. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/**
 * A streamed exchange (`OutboundMechanism.fetch`): what a client library that takes a `fetch` (an SSE or streaming
 * HTTP client) needs, over Tor too. There is no overall deadline: the caller's signal ends a long stream.
 */
export interface OutboundFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** As in OutboundRequest. */
  viaTor: boolean;
  connectTimeoutMs: number;
  extraCa?: string;
}

export interface OutboundMechanism {
  /** Resolves with any HTTP status (the caller judges it); rejects with `OutboundError`. */
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /**
   * The same connection (direct or through Tor), answered as a WHATWG Response whose headers are there at once and
   * whose body streams as it arrives. One connection per exchange, closed after it. Rejects with `OutboundError`.
   */
  fetch(url: string, init: OutboundFetchInit): Promise<Response>;
}
