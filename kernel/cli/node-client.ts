import { resolveCredentials, resolveDataDir } from './credentials.js';
import { SignedClient, type ApiCredentials, type ApiResponse } from './rest-client.js';

/** Requests that take longer than this are abandoned (a node that accepts but never answers). */
export const REQUEST_TIMEOUT_MS = 60_000;

export type Query = Record<string, string | number | boolean | undefined>;

export interface CallOptions {
  query?: Query;
  /** Sent as JSON (a string is sent verbatim). */
  body?: unknown;
  timeoutMs?: number;
}

interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: ({ code?: unknown; message?: unknown } & Record<string, unknown>) | string;
  /** Some validation failures carry their message beside a string `error` (Document 1, convention 8). */
  message?: unknown;
  request_id?: unknown;
}

/**
 * An answer that is not a success: the node's error `code` and `message` (Document 1), the HTTP status, the error's
 * other fields (`details`: `errors`, `retry_after`...) and the request id, which the node's log lines of it carry.
 */
export class NodeApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details: Record<string, unknown>,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'NodeApiError';
  }
}

/** No answer: the node cannot be reached (`NODE_UNREACHABLE`) or went silent past the timeout (`NODE_TIMEOUT`). */
export class NodeUnreachableError extends Error {
  constructor(
    readonly code: 'NODE_UNREACHABLE' | 'NODE_TIMEOUT',
    message: string,
  ) {
    super(message);
    this.name = 'NodeUnreachableError';
  }
}

/** A failed answer as a NodeApiError: the envelope's code and message when there is one, the HTTP status otherwise. */
export function apiErrorOf(res: ApiResponse): NodeApiError {
  const env = (res.body && typeof res.body === 'object' ? res.body : {}) as Envelope;
  const error: Record<string, unknown> = env.error && typeof env.error === 'object' ? env.error : {};
  const code = typeof error.code === 'string' ? error.code : typeof env.error === 'string' ? env.error : `http_${res.status}`;
  const message =
    typeof error.message === 'string'
      ? error.message
      : typeof env.message === 'string'
        ? env.message
        : typeof res.body === 'string' && res.body
          ? res.body.slice(0, 200)
          : `HTTP ${res.status}`;
  const { code: _code, message: _message, ...details } = error;
  const requestId = typeof env.request_id === 'string' ? env.request_id : res.headers.get('x-request-id');
  return new NodeApiError(code, message, res.status, details, requestId);
}

/** A failed fetch as a NodeUnreachableError naming the node. */
export function unreachable(err: unknown, baseUrl: string, timeoutMs: number): NodeUnreachableError {
  const e = err as Error & { cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new NodeUnreachableError('NODE_TIMEOUT', `the node at ${baseUrl} did not answer within ${Math.round(timeoutMs / 1000)} s`);
  }
  const cause = e.cause?.code ? ` (${e.cause.code})` : '';
  return new NodeUnreachableError('NODE_UNREACHABLE', `cannot reach the node at ${baseUrl}${cause}: is wallet-node running?`);
}

/** The verbs over one `request`, shared by the library's client and node-cli's (which changes only the errors). */
export abstract class RestVerbs {
  abstract request<T = unknown>(method: string, path: string, options?: CallOptions): Promise<T>;

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, query ? { query } : {});
  }
  post<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.request<T>('POST', path, { body: body ?? {}, ...(query ? { query } : {}) });
  }
  put<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.request<T>('PUT', path, { body: body ?? {}, ...(query ? { query } : {}) });
  }
  delete<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>('DELETE', path, query ? { query } : {});
  }
}

/**
 * The node's REST API for scripts, and node-cli's way to it: every request signed with an API key (Document 1's
 * HMAC), a success answer's `data` returned, anything else thrown as NodeApiError or NodeUnreachableError.
 */
export class NodeClient extends RestVerbs {
  readonly signed: SignedClient;

  constructor(
    credentials: ApiCredentials,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    super();
    this.signed = new SignedClient(credentials);
  }

  /**
   * The credentials node-cli would use: NODE_API_URL, NODE_API_KEY and NODE_API_SECRET when set, else the admin key
   * the node wrote to `cli.json` in `dataDir` (default: NODE_DATA_DIR, else `./data`).
   */
  static local(dataDir?: string, env: Record<string, string | undefined> = process.env): NodeClient {
    return new NodeClient(resolveCredentials(resolveDataDir(dataDir ?? null, env, process.cwd()), env));
  }

  get baseUrl(): string {
    return this.signed.credentials.baseUrl;
  }

  /** The whole answer, whatever its status; throws NodeUnreachableError only. */
  async raw(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      return await this.signed.request(method, path, {
        ...(options.query ? { query: options.query } : {}),
        body: options.body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw unreachable(err, this.baseUrl, timeoutMs);
    }
  }

  /** `data` of a success envelope (a body that is no envelope, such as a CSV export, as it came). */
  override async request<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const res = await this.raw(method, path, options);
    const env = (res.body && typeof res.body === 'object' ? res.body : {}) as Envelope;
    if (res.status < 400 && env.success !== false) return (env.success === true ? env.data : res.body) as T;
    throw apiErrorOf(res);
  }


  /**
   * The rows of a paged list route (Document 1's `limit` and `offset`), read `pageSize` at a time as the caller
   * iterates: `field` names the list in `data`. Ends at the first short page.
   */
  async *pages<T = Record<string, unknown>>(path: string, field: string, query: Query = {}, pageSize = 100): AsyncGenerator<T> {
    for (let offset = 0; ; offset += pageSize) {
      const data = await this.get<Record<string, unknown>>(path, { ...query, limit: pageSize, offset });
      const rows = Array.isArray(data[field]) ? (data[field] as T[]) : [];
      yield* rows;
      if (rows.length < pageSize) return;
    }
  }
}
