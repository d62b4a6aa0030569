/**
 * How this node reaches a contact's public routes (directory, request-key, mcp): its addresses in the order the peer
 * transport would try them (the operator's transport preference, then tor > https > http), the first that answers
 * being remembered for the next requests to the same contact. A proof's audience is the address it is sent to.
 */
import type { Logger, OutboundMechanism, OutboundResponse, PeerApi } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import { audienceOf } from './proofs.js';

const TIMEOUT_MS = 15_000;

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface Reach {
  /** Base URL without a trailing slash. */
  base: string;
  viaTor: boolean;
  audience: string;
}

function reachOf(address: string): Reach {
  const base = (/^https?:\/\//i.test(address) ? address : `http://${address}`).replace(/\/+$/, '');
  return { base, viaTor: /\.onion(?::\d+)?$/i.test(new URL(base).host), audience: audienceOf(address) };
}

export class ContactReach {
  readonly #working = new Map<string, Reach>();

  constructor(
    private readonly contacts: ContactsService,
    private readonly peer: Pick<PeerApi, 'firstAddress'>,
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
   * A `fetch` toward one way of reaching the contact, for a client library (the MCP SDK's transport): the platform's
   * own for a direct address, the node's streamed outbound exchange through Tor for an onion.
   */
  fetcher(reach: Reach): Fetch {
    if (!reach.viaTor) return fetch;
    return async (input, init) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
      if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new TypeError('only a text body goes over Tor here');
      return this.outbound.fetch(String(input instanceof Request ? input.url : input), {
        method: init?.method ?? 'GET',
        headers,
        ...(typeof init?.body === 'string' ? { body: init.body } : {}),
        ...(init?.signal ? { signal: init.signal } : {}),
        viaTor: true,
        connectTimeoutMs: TIMEOUT_MS,
      });
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
        const res = await this.outbound.request({
          method: 'POST',
          url: `${reach.base}/p/mcp-passthrough/${path}`,
          body: JSON.stringify(body(reach)),
          viaTor: reach.viaTor,
          connectTimeoutMs: TIMEOUT_MS,
          timeoutMs: TIMEOUT_MS,
          maxResponseBytes,
        });
        this.worked(contactHash, reach);
        return { reach, res };
      } catch (err) {
        last = err;
        this.log.debug('a contact address did not answer', { pubkey_hash: contactHash, address: reach.base, error: err instanceof Error ? err.message : String(err) });
      }
    }
    throw last;
  }
}
