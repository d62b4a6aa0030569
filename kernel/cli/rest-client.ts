import { randomBytes } from 'node:crypto';
import { signRequest } from '../auth/verifier.js';

export interface ApiCredentials {
  baseUrl: string;
  keyId: string;
  secret: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** The parsed JSON body (an envelope), or the raw text when the body is not JSON. */
  body: T;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON unless it is already a string (sent verbatim). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Override the signing inputs (tests of the auth rules). */
  timestamp?: string;
  nonce?: string;
  signal?: AbortSignal;
}

/**
 * A REST client that signs every request as Document 1 says: HMAC-SHA256 over method, path, timestamp,
 * nonce and the exact body bytes. node-cli and the tests both use it.
 */
export class SignedClient {
  constructor(readonly credentials: ApiCredentials) {}

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const res = await this.open(method, path, options);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (exports, plugin raw replies): keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  /**
   * Sends the signed request and resolves at the answer's headers, its body not read yet (streamed downloads).
   * A GET or HEAD whose connection closes before any answer is sent once more, signed afresh, on a new connection:
   * a kept-alive connection the node closes just as a request sets off on it (its idle time ran out while this
   * process was too busy to notice) fails that request though the node never saw it (RFC 9112 §9.3.1 allows the
   * retry for safe methods; other methods may have taken effect, so their failure is the caller's to judge).
   */
  async open(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    try {
      return await this.#send(method, path, options);
    } catch (err) {
      if (!SAFE_METHODS.has(method) || !closedBeforeAnswer(err)) throw err;
      return this.#send(method, path, options);
    }
  }

  #send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const url = new URL(path, this.credentials.baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const body =
      options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
    const nonce = options.nonce ?? randomBytes(16).toString('hex');
    const signature = signRequest(this.credentials.secret, method, url.pathname, timestamp, nonce, body);
    return fetch(url, {
      method,
      headers: {
        'X-API-Key': this.credentials.keyId,
        'X-API-Timestamp': timestamp,
        'X-API-Nonce': nonce,
        'X-API-Signature': signature,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(body ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  get<T = unknown>(path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, options);
  }
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = unknown>(path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, options);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** fetch's failure when the connection closed (or was reset) with no answer's headers read. */
function closedBeforeAnswer(err: unknown): boolean {
  const code = err instanceof TypeError ? (err.cause as { code?: unknown } | undefined)?.code : undefined;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}
