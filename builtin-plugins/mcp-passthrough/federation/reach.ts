/**
 * How this node reaches a contact's public routes (directory, request-key, mcp): its addresses in the order the peer
 * transport would try them (the operator's transport preference, then tor > https > http), the first that answers
 * being remembered for the next requests to the same contact. A proof's audience is the address it is sent to.
 */
import { OutboundError, type Logger, type OutboundMechanism, type OutboundResponse, type PeerApi } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import { audienceOf } from './proofs.js';

const TIMEOUT_MS = 15_000;

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface Reach {
  /** The contact's address as it is known (the key of its certificate's pin). */
  address: string;
  /** Base URL without a trailing slash. */
  base: string;
  viaTor: boolean;
  audience: string;
}

function reachOf(address: string): Reach {
  const base = (/^https?:\/\//i.test(address) ? address : `http://${address}`).replace(/\/+$/, '');
  return { address, base, viaTor: /\.onion(?::\d+)?$/i.test(new URL(base).host), audience: audienceOf(address) };
}

const pathOf = (input: string | URL | Request): string => {
  const url = new URL(input instanceof Request ? input.url : input);
  return `${url.pathname}${url.search}`;
};

/** A response's body as text, refused past `maxBytes`. */
async function textWithin(res: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) {
      await res.body?.cancel();
      throw new OutboundError('too_large', `response larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class ContactReach {
  readonly #working = new Map<string, Reach>();

  constructor(
    private readonly contacts: ContactsService,
    private readonly peer: Pick<PeerApi, 'firstAddress' | 'fetch'>,
    private readonly outbound: OutboundMechanism,
    private readonly log: Logger,
  ) {}

  /** Every way to reach the contact, the one that answered last first. */
  reaches(contactHash: string): Reach[] {
    const c = this.contacts.get(contactHash);
    if (!c) return [];
    const ordered = [this.peer.firstAddress(c.addresses), c.addresses.tor, c.addresses.https, c.addresses.http].filter((a): a is string => !!a);
    const out = [...new Set(ordered)].map(reachOf);
    const known = this.#working.get(contactHash);
    return known ? [known, ...out.filter((r) => r.base !== known.base)] : out;
  }

  /** Whether the contact has any address at all (asked for every candidate of every call: no parsing). */
  hasAddress(contactHash: string): boolean {
    const a = this.contacts.get(contactHash)?.addresses;
    return !!(a && (a.tor || a.https || a.http));
  }

  /** Remembers the way that answered, tried first next time. */
  worked(contactHash: string, reach: Reach): void {
    this.#working.set(contactHash, reach);
  }

  /**
   * A `fetch` toward one way of reaching the contact, for a client library (the MCP SDK's transport): the peer layer's
   * for a direct address (the node's pinned certificate at an https one, kept connections), the node's streamed
   * outbound exchange through Tor for an onion.
   */
  fetcher(reach: Reach): Fetch {
    return async (input, init) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
      if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new TypeError('only a text body goes to a contact here');
      const request = {
        method: init?.method ?? 'GET',
        headers,
        ...(typeof init?.body === 'string' ? { body: init.body } : {}),
        ...(init?.signal ? { signal: init.signal } : {}),
      };
      if (!reach.viaTor) return this.peer.fetch(reach.address, pathOf(input), request);
      return this.outbound.fetch(String(input instanceof Request ? input.url : input), { ...request, viaTor: true, connectTimeoutMs: TIMEOUT_MS });
    };
  }

  /**
   * POSTs JSON to `/p/mcp-passthrough/<path>` of the contact, one address after the other until one answers (any
   * HTTP status); `body` is made per address (a proof names its audience). Throws when none answers.
   */
  async post(contactHash: string, path: string, body: (reach: Reach) => unknown, maxResponseBytes: number): Promise<{ reach: Reach; res: OutboundResponse }> {
    let last: unknown = new Error('the contact has no address');
    for (const reach of this.reaches(contactHash)) {
      try {
        const res = reach.viaTor
          ? await this.outbound.request({
              method: 'POST',
              url: `${reach.base}/p/mcp-passthrough/${path}`,
              body: JSON.stringify(body(reach)),
              viaTor: true,
              connectTimeoutMs: TIMEOUT_MS,
              timeoutMs: TIMEOUT_MS,
              maxResponseBytes,
            })
          : await this.#postDirect(reach, path, JSON.stringify(body(reach)), maxResponseBytes);
        this.worked(contactHash, reach);
        return { reach, res };
      } catch (err) {
        last = err;
        this.log.debug('a contact address did not answer', { pubkey_hash: contactHash, address: reach.base, error: err instanceof Error ? err.message : String(err) });
      }
    }
    throw last;
  }

  /** A POST over the peer layer's connection to a direct address, within the same deadline as one through Tor. */
  async #postDirect(reach: Reach, path: string, body: string, maxResponseBytes: number): Promise<OutboundResponse> {
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    try {
      const res = await this.peer.fetch(reach.address, `/p/mcp-passthrough/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body,
        signal,
      });
      return { status: res.status, body: await textWithin(res, maxResponseBytes) };
    } catch (err) {
      if (signal.aborted) throw new OutboundError('timeout', `no answer within ${TIMEOUT_MS / 1000} s`);
      throw err;
    }
  }
}
