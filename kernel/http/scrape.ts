import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TrustedProxies } from '../net/proxies.js';

export const SCRAPE_PATH = '/metrics';

export interface ScrapeDeps {
  /** The bearer a scraper may present (NODE_METRICS_TOKEN); null: addresses only. */
  token: string | null;
  /** Client addresses served without a token (the `metricsAllowedAddresses` setting). */
  allowed(): TrustedProxies | null;
  clientAddress(req: IncomingMessage): string;
  exposition(): Promise<{ contentType: string; body: string }>;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The Prometheus scrape endpoint, served before the REST pipeline: a scraper sends neither an API key nor a signature,
 * so the answer is plain text (no envelope), granted to a bearer token or a listed client address.
 */
export class ScrapeEndpoint {
  readonly #token: Buffer | null;

  constructor(private readonly deps: ScrapeDeps) {
    this.#token = deps.token === null ? null : digest(deps.token);
  }

  /** Whether the request was the endpoint's; it answers it then. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if ((req.url ?? '').split('?')[0] !== SCRAPE_PATH) return false;
    void this.#answer(req, res);
    return true;
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    if (!this.#granted(req)) {
      // Without a token configured no credential can help, so nothing asks for one.
      return this.#token
        ? plain(res, 401, 'a bearer token or a listed client address is required\n', { 'WWW-Authenticate': 'Bearer realm="metrics"' })
        : plain(res, 403, 'this client address is not in metricsAllowedAddresses\n');
    }
    try {
      const { contentType, body } = await this.deps.exposition();
      res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      plain(res, 500, 'metrics could not be collected\n');
    }
  }

  #granted(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (this.#token && typeof auth === 'string' && /^Bearer /i.test(auth)) {
      return timingSafeEqual(digest(auth.slice(7).trim()), this.#token);
    }
    return this.deps.allowed()?.includes(this.deps.clientAddress(req)) ?? false;
  }
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(text);
}
