import { CliError, type CliApi, type CliQuery } from '../../sdk/cli.js';
import type { ResolvedCredentials } from './credentials.js';
import { apiErrorOf, NodeApiError, NodeClient, NodeUnreachableError, REQUEST_TIMEOUT_MS, RestVerbs, unreachable, type CallOptions } from './node-client.js';
import type { ApiResponse } from './rest-client.js';

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
 * The REST API as commands see it: the client library's NodeClient (`wallet-node/client`), with its errors turned
 * into CliError (the node's code, `status` = HTTP status, the error's other fields kept, a hint where one helps).
 * Credentials are resolved at the first call, so commands that need no node (help) work without them.
 */
export class CliApiClient extends RestVerbs implements CliApi {
  #client: NodeClient | null = null;
  #creds: ResolvedCredentials | null = null;

  constructor(private readonly credentials: () => ResolvedCredentials) {
    super();
  }

  get resolved(): ResolvedCredentials | null {
    return this.#creds;
  }

  /** The credentials (resolving them now; throws NO_CREDENTIALS). */
  creds(): ResolvedCredentials {
    this.#creds ??= this.credentials();
    return this.#creds;
  }

  #node(): NodeClient {
    this.#client ??= new NodeClient(this.creds());
    return this.#client;
  }

  baseUrl(): string {
    return this.creds().baseUrl;
  }

  async raw(method: string, path: string, options: { query?: CliQuery; body?: unknown; timeoutMs?: number } = {}): Promise<ApiResponse> {
    return this.#cli(() => this.#node().raw(method, path, options));
  }

  async stream(path: string, query?: CliQuery): Promise<{ headers: Headers; body: AsyncIterable<Uint8Array> }> {
    const node = this.#node();
    // One deadline for the answer and then for each chunk: a long transfer is fine, a stalled one is not.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    const lost = (err: unknown): CliError => this.#fromClient(unreachable(err, node.baseUrl, REQUEST_TIMEOUT_MS));
    let res: Response;
    try {
      res = await node.signed.open('GET', path, { ...(query ? { query } : {}), signal: controller.signal });
    } catch (err) {
      clearTimeout(timer);
      throw lost(err);
    }
    if (res.status !== 200 || !res.body) {
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw lost(err);
      } finally {
        clearTimeout(timer);
      }
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not an envelope: reported as text
      }
      throw this.#fromClient(apiErrorOf({ status: res.status, headers: res.headers, body: parsed }));
    }
    const source = res.body;
    const chunks = async function* (): AsyncGenerator<Uint8Array> {
      try {
        for await (const chunk of source) {
          timer.refresh();
          yield chunk;
        }
      } catch (err) {
        throw lost(err);
      } finally {
        clearTimeout(timer);
        if (!controller.signal.aborted) controller.abort();
      }
    };
    return { headers: res.headers, body: chunks() };
  }

  override async request<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    return this.#cli(() => this.#node().request<T>(method, path, options));
  }

  async #cli<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.#cliError(err);
    }
  }

  #cliError(err: unknown): unknown {
    return err instanceof NodeApiError || err instanceof NodeUnreachableError ? this.#fromClient(err) : err;
  }

  /** The client library's errors as the command line reports them. */
  #fromClient(err: NodeApiError | NodeUnreachableError): CliError {
    if (err instanceof NodeUnreachableError) return new CliError(err.code, err.message);
    return new CliError(err.code, err.message + hint(err.code, this.creds().source), { status: err.status, ...err.details });
  }
}
