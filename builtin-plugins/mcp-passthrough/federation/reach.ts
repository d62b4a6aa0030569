/**
 * How this node reaches a contact's public routes (directory, request-key, mcp): its addresses in the order the peer
 * transport would try them (the operator's transport preference, then tor > https > http), the first that answers
 * being remembered for the next requests to the same contact. A proof's audience is the address it is sent to.
 */
import type { Logger, OutboundMechanism, OutboundResponse, PeerApi } from '../../../sdk/index.js';
import type { ContactsService } from '../../contacts/api.js';
import { audienceOf } from './proofs.js';

const TIMEOUT_MS = 15_000;

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

  /** The way to reach the contact without Tor (what the MCP client can use), or null. */
  direct(contactHash: string): Reach | null {
    return this.reaches(contactHash).find((r) => !r.viaTor) ?? null;
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
        this.#working.set(contactHash, reach);
        return { reach, res };
      } catch (err) {
        last = err;
        this.log.debug('a contact address did not answer', { pubkey_hash: contactHash, address: reach.base, error: err instanceof Error ? err.message : String(err) });
      }
    }
    throw last;
  }
}
