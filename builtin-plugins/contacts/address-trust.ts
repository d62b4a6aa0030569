/**
 * Addresses a peer supplies (the list in every envelope header and hello, a `contact.addresses` notice) are
 * claims, not facts: anyone can write any address there. A claimed address is adopted for a contact only once
 * a hello fetched from that very address is signed by the contact's key, and, unless the operator allows it,
 * only when it points outside loopback, link-local and private ranges (a stranger must not make this node probe
 * its own network). Addresses the operator typed are not claims and never pass through here.
 */
import type { NodeAddresses, PeerHello, PluginContext } from '../../sdk/index.js';
import { normalizeAddress } from '../../sdk/address.js';
import { resolvesToPublic } from '../../sdk/public-host.js';
import { ADDRESS_COLUMN, type ContactRow, type ContactStore } from './store.js';
import { kindOf } from './validate.js';

/** The setting (and its environment variable) that lets peers name addresses in private ranges. */
export const PRIVATE_ADDRESSES_SETTING = 'peerPrivateAddressesAllowed';

/** A claim checked lately (adopted, refused or unreachable) is not checked again for this long. */
const RECHECK_AFTER_MS = 10 * 60_000;
/** Bounds the memory of recent checks; a stranger cycling addresses only pushes out its own entries. */
const MAX_REMEMBERED = 10_000;

/** Whether a normalized http(s) address resolves only to public addresses; onion addresses always qualify. */
export async function pointsOutside(address: string): Promise<boolean> {
  return kindOf(address) === 'tor' || resolvesToPublic(new URL(address).hostname);
}

/** What the checks need of the contacts core (core.ts), which holds the trust and adopts what passes it. */
export interface AddressTrustHost {
  readonly ctx: PluginContext;
  readonly store: ContactStore;
  isOwnAddress(normalized: string): boolean;
  bindKey(c: ContactRow, hello: PeerHello): ContactRow;
  placeAddresses(c: ContactRow, addresses: Partial<NodeAddresses>, replace: boolean): ContactRow;
}

export class AddressTrust {
  /** `pubkey_hash address` → when it was last checked. */
  readonly #checked = new Map<string, number>();

  constructor(private readonly core: AddressTrustHost) {}

  /**
   * Checks each address the contact's peer claims that the contact does not hold yet, after the current
   * transaction commits. With `replace`, an adopted address takes the place of the one of its kind (a move);
   * without, it only fills a kind the contact has no address for.
   */
  propose(c: ContactRow, claimed: Partial<NodeAddresses>, replace: boolean): void {
    const hash = c.pubkey_hash;
    if (!hash) return;
    for (const raw of [claimed.http, claimed.https, claimed.tor]) {
      const address = raw ? normalizeAddress(raw) : null;
      if (!address || this.core.isOwnAddress(address)) continue;
      const held = c[ADDRESS_COLUMN[kindOf(address)]];
      if (held === address || (held !== null && !replace)) continue;
      if (!this.#due(`${hash} ${address}`)) continue;
      this.core.ctx.db.afterCommit(() => void this.#check(hash, address, replace));
    }
  }

  /** Asks the address a key-less contact was added at who it is; binds the contact when `claimed` answers there. */
  checkKeyless(contactId: number, address: string, claimed: string): void {
    if (!this.#due(`${claimed} ${address}`)) return;
    this.core.ctx.db.afterCommit(() => void this.#bindIfAnswers(contactId, address, claimed));
  }

  async #bindIfAnswers(contactId: number, address: string, claimed: string): Promise<void> {
    const { ctx, store } = this.core;
    try {
      const hello = await this.#helloFrom(address, claimed);
      if (!hello) return;
      ctx.db.tx(() => {
        const c = store.byId(contactId);
        if (!c || c.pubkey_hash || c.status === 'blocked' || c.addr_http !== address && c.addr_https !== address && c.addr_tor !== address) return;
        this.core.bindKey(c, hello);
        ctx.log.info('contact added while offline now has its key: its own address answered with it', { pubkey_hash: claimed, address });
      });
    } catch (err) {
      ctx.log.error('binding a key-less contact failed', { address, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** The hello at `address` when it is signed by `expected`; null (logged) when unreachable or another key. */
  async #helloFrom(address: string, expected: string): Promise<PeerHello | null> {
    const { ctx } = this.core;
    let hello: PeerHello;
    try {
      hello = await ctx.peer.hello(address);
    } catch (err) {
      ctx.log.info('no hello at a peer-supplied address', { pubkey_hash: expected, address, error: err instanceof Error ? err.message : String(err) });
      return null;
    }
    if (hello.pubkeyHash !== expected) {
      ctx.log.warn('another key answers at a peer-supplied address; the claim is ignored', { pubkey_hash: expected, address, answered: hello.pubkeyHash });
      return null;
    }
    return hello;
  }

  /** Whether a claim is due for a check now (not checked within RECHECK_AFTER_MS); records the check. */
  #due(key: string): boolean {
    const now = Date.now();
    if (now - (this.#checked.get(key) ?? -Infinity) < RECHECK_AFTER_MS) return false;
    this.#remember(key, now);
    return true;
  }

  #remember(key: string, at: number): void {
    this.#checked.delete(key);
    this.#checked.set(key, at);
    if (this.#checked.size > MAX_REMEMBERED) this.#checked.delete(this.#checked.keys().next().value!);
  }

  async #check(hash: string, address: string, replace: boolean): Promise<void> {
    const { ctx, store } = this.core;
    try {
      if (!ctx.settings.get<boolean>(PRIVATE_ADDRESSES_SETTING) && !(await pointsOutside(address))) {
        ctx.log.warn('peer-supplied address refused: it points into a private or loopback range', { pubkey_hash: hash, address });
        return;
      }
      if (!(await this.#helloFrom(address, hash))) return;
      ctx.db.tx(() => {
        const c = store.byHash(hash);
        if (!c || c.status === 'blocked') return;
        const after = this.core.placeAddresses(c, { [kindOf(address)]: address }, replace);
        if (after !== c) ctx.log.info('contact address adopted: its hello there is signed by the contact', { pubkey_hash: hash, address });
      });
    } catch (err) {
      ctx.log.error('checking a peer-supplied address failed', { pubkey_hash: hash, address, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
