import { CliError, type CliApi, type CliQuery } from '../../sdk/cli.js';
import type { ResolvedCredentials } from './credentials.js';
import { SignedClient, type ApiResponse } from './rest-client.js';

/** Requests that take longer than this are abandoned (a node that accepts but never answers). */
const REQUEST_TIMEOUT_MS = 60_000;

interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: ({ code?: unknown; message?: unknown } & Record<string, unknown>) | string;
  /** Some validation failures carry their message beside a string `error` (Document 1, convention 8). */
  message?: unknown;
}

/** What the command line says about a few node errors so the operator knows what to do. */
function hint(code: string, source: string): string {
  if (code.startsWith('auth_invalid_key') || code === 'auth_key_disabled' || code === 'auth_key_expired') {
    return source === 'environment'
      ? ' (check NODE_API_KEY and NODE_API_SECRET)'
      : ` (the key in ${source} is not usable; restarting the node re-creates it)`;
  }
  if (code === 'auth_invalid_signature') return ' (the secret does not match the key)';
  if (code === 'auth_expired_timestamp') return ' (is the clock of this machine right?)';
  return '';
}

/**
 * The REST API as commands see it: signed calls that return `data` of the success envelope or throw CliError
 * with the node's error code (`status` = HTTP status, other fields of `error` kept). Credentials are resolved at
 * the first call, so commands that need no node (help) work without them.
 */
export class CliApiClient implements CliApi {
  #client: SignedClient | null = null;
  #creds: ResolvedCredentials | null = null;

  constructor(private readonly credentials: () => ResolvedCredentials) {}

  get resolved(): ResolvedCredentials | null {
    return this.#creds;
  }

  /** The credentials (resolving them now; throws NO_CREDENTIALS). */
  creds(): ResolvedCredentials {
    this.#creds ??= this.credentials();
    return this.#creds;
  }

  #signed(): SignedClient {
    this.#client ??= new SignedClient(this.creds());
    return this.#client;
  }

  baseUrl(): string {
    return this.creds().baseUrl;
  }

  async raw(
    method: string,
    path: string,
    options: { query?: CliQuery; body?: unknown; timeoutMs?: number } = {},
  ): Promise<ApiResponse> {
    const client = this.#signed();
    const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await client.request(method, path, { ...(options.query ? { query: options.query } : {}), body: options.body, signal });
    } catch (err) {
      throw this.#transportError(err, timeoutMs);
    }
  }

  #transportError(err: unknown, timeoutMs: number): CliError {
    const base = this.#signed().credentials.baseUrl;
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      return new CliError('NODE_TIMEOUT', `the node at ${base} did not answer within ${Math.round(timeoutMs / 1000)} s`);
    }
    const cause = e.cause?.code ? ` (${e.cause.code})` : '';
    return new CliError('NODE_UNREACHABLE', `cannot reach the node at ${base}${cause}: is wallet-node running?`);
  }

  async stream(path: string, query?: CliQuery): Promise<{ headers: Headers; body: AsyncIterable<Uint8Array> }> {
    const client = this.#signed();
    // One deadline for the answer and then for each chunk: a long transfer is fine, a stalled one is not.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    let res: Response;
    try {
      res = await client.open('GET', path, { ...(query ? { query } : {}), signal: controller.signal });
    } catch (err) {
      clearTimeout(timer);
      throw this.#transportError(err, REQUEST_TIMEOUT_MS);
    }
    if (res.status !== 200 || !res.body) {
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw this.#transportError(err, REQUEST_TIMEOUT_MS);
      } finally {
        clearTimeout(timer);
      }
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not an envelope: reported as text
      }
      throw this.#failure({ status: res.status, headers: res.headers, body: parsed });
    }
    const source = res.body;
    const chunks = async function* (api: CliApiClient): AsyncGenerator<Uint8Array> {
      try {
        for await (const chunk of source) {
          timer.refresh();
          yield chunk;
        }
      } catch (err) {
        throw api.#transportError(err, REQUEST_TIMEOUT_MS);
      } finally {
        clearTimeout(timer);
        if (!controller.signal.aborted) controller.abort();
      }
    };
    return { headers: res.headers, body: chunks(this) };
  }

  async request<T>(method: string, path: string, options: { query?: CliQuery; body?: unknown } = {}): Promise<T> {
    const res = await this.raw(method, path, options);
    const env = (res.body && typeof res.body === 'object' ? res.body : {}) as Envelope;
    if (res.status < 400 && env.success !== false) {
      return (env.success === true ? env.data : res.body) as T;
    }
    throw this.#failure(res);
  }

  /** A failed answer as the command line reports it: the node's code and message, the HTTP status, the other fields. */
  #failure(res: ApiResponse): CliError {
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
    const { code: _code, message: _message, ...rest } = error;
    return new CliError(code, message + hint(code, this.creds().source), { status: res.status, ...rest });
  }

  get<T = unknown>(path: string, query?: CliQuery): Promise<T> {
    return this.request<T>('GET', path, query ? { query } : {});
  }
  post<T = unknown>(path: string, body?: unknown, query?: CliQuery): Promise<T> {
    return this.request<T>('POST', path, { body: body ?? {}, ...(query ? { query } : {}) });
  }
  put<T = unknown>(path: string, body?: unknown, query?: CliQuery): Promise<T> {
    return this.request<T>('PUT', path, { body: body ?? {}, ...(query ? { query } : {}) });
  }
  delete<T = unknown>(path: string, query?: CliQuery): Promise<T> {
    return this.request<T>('DELETE', path, query ? { query } : {});
  }
}
