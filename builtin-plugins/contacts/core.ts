/**
 * The contact operations shared by the REST routes, the peer handlers and the status cycle. Every local change
 * that the peer must learn about commits in one transaction with its outgoing message (ctx.peer.enqueue inside
 * ctx.db.tx); the outbox delivers it right after commit, retries, and parks it in the dead letter queue.
 */
import { ApiError, type NodeAddresses, type PeerSender, type PeerTarget, type PluginContext } from '../../sdk/index.js';
import { formatMinor, type Minor } from '../../sdk/money.js';
import { normalizeAddress } from '../../sdk/address.js';
import type { BalanceProvider, BalanceTotals, ChainProvider, HistoryProver } from './api.js';
import { CONTACT_EVENTS } from './api.js';
import { MSG, type AcceptPayload, type AddressesPayload, type CurrencyDeclinePayload, type DeclinePayload, type RequestPayload } from './protocol.js';
import { addressesOf } from './present.js';
import { AddressTrust, type AddressTrustHost } from './address-trust.js';
import { ADDRESS_COLUMN, type ContactRow, type ContactStore, type CurrencyRow } from './store.js';
import { allowedMatch, checkAddress, checkCredit, checkFee, kindOf, settingCredit } from './validate.js';
import { Decimal } from 'decimal.js';
import { sameCurrency } from '../../sdk/currency.js';

export interface LineTerms {
  fee: string;
  credit: Minor;
}

export interface RequestTerms extends LineTerms {
  requested: Minor | null;
  enforced: boolean;
  description: string | null;
}

export interface DecisionError {
  currency: string | null;
  code: string;
  message: string;
}

const b64u = (b: Buffer): string => b.toString('base64url');

/** Pending contacts unknown keys may have created at once (docs/security.md). */
export const MAX_STRANGERS = 500;

export class ContactsCore implements AddressTrustHost {
  balanceProvider: BalanceProvider | null = null;
  chainProvider: ChainProvider | null = null;
  readonly historyProvers: HistoryProver[] = [];
  readonly addressTrust = new AddressTrust(this);

  constructor(
    readonly ctx: PluginContext,
    readonly store: ContactStore,
  ) {}

  // ---- settings

  allowed(): string[] {
    return this.ctx.settings.get<string[]>('allowedCurrencies') ?? [];
  }

  defaultCurrency(): string {
    return this.ctx.settings.get<string>('defaultCurrency') || 'VWL';
  }

  defaultFee(): string {
    return this.fee(this.ctx.settings.get<number>('defaultFee') ?? 0, 'defaultFee');
  }

  /** A fee percent (0-100, 8 decimals) inside the operator's `minFee`..`maxFee` bounds; `invalid_fee` outside. */
  fee(input: unknown, field: string): string {
    const fee = checkFee(input, field);
    const min = checkFee(this.ctx.settings.get('minFee') ?? 0, 'minFee');
    const max = checkFee(this.ctx.settings.get('maxFee') ?? 100, 'maxFee');
    const d = new Decimal(fee);
    if (d.lt(min) || d.gt(max)) {
      throw new ApiError('invalid_fee', 400, `${field} must be between ${min} and ${max} percent (the minFee and maxFee settings)`, { field });
    }
    return fee;
  }

  defaultCredit(): Minor {
    return settingCredit(this.ctx.settings.get('defaultCreditLimit'));
  }

  nowIso(): string {
    return new Date(this.ctx.clock.now()).toISOString();
  }

  /** Adds a currency to allowedCurrencies (accepting a line in it says the operator wants it). */
  allowCurrency(currency: string): void {
    const allowed = this.allowed();
    if (allowedMatch(currency, allowed)) return;
    this.ctx.kernel.settings.update({ allowedCurrencies: [...allowed, currency] });
    this.ctx.log.info('currency added to allowed currencies on accept', { currency });
  }

  // ---- own identity

  isOwnAddress(normalized: string): boolean {
    const own = this.ctx.kernel.node.addresses;
    return [own.http, own.https, own.tor].some((a) => a && normalizeAddress(a) === normalized);
  }

  // ---- balances and credit

  totals(pubkeyHash: string | null, currency: string): BalanceTotals {
    if (!pubkeyHash || !this.balanceProvider) return { received: 0n, sent: 0n };
    let all: Record<string, BalanceTotals>;
    try {
      all = this.balanceProvider.balances(pubkeyHash);
    } catch (err) {
      this.ctx.log.error('balance provider failed', { error: String(err) });
      return { received: 0n, sent: 0n };
    }
    for (const [code, t] of Object.entries(all)) if (sameCurrency(code, currency)) return t;
    return { received: 0n, sent: 0n };
  }

  /**
   * What this node lets the contact use in a currency: the limit it extends minus what the contact owes it
   * (received − sent from this node's side), never below zero.
   */
  availableFor(pubkeyHash: string | null, row: CurrencyRow): Minor {
    const limit = row.credit_limit ?? 0n;
    const t = this.totals(pubkeyHash, row.currency);
    const available = limit - (t.received - t.sent) - (t.held ?? 0n);
    return available < 0n ? 0n : available;
  }

  // ---- peers

  addresses(c: ContactRow): NodeAddresses {
    return addressesOf(c);
  }

  target(c: ContactRow): PeerTarget {
    return {
      pubkeyHash: c.pubkey_hash,
      sealingKey: c.sealing_key ? Buffer.from(c.sealing_key, 'base64url') : null,
      addresses: this.addresses(c),
    };
  }

  /**
   * Records what a verified message or reply from this contact's key says: the public and sealing keys that key
   * vouches for, and its claimed addresses as proposals (AddressTrust adopts one once it answers with a hello
   * signed by the same key). A sender with another key changes nothing: a contact's key is learned only from
   * the address the operator typed (`bindKey`), never from what a message claims.
   */
  learn(c: ContactRow, sender: PeerSender): ContactRow {
    if (c.pubkey_hash !== sender.pubkeyHash) return c;
    let row = c;
    if (row.pubkey !== b64u(sender.publicKey) || row.sealing_key !== b64u(sender.sealingKey)) {
      row = this.store.update(row.id, { pubkey: b64u(sender.publicKey), sealing_key: b64u(sender.sealingKey) });
    }
    this.addressTrust.propose(row, sender.addresses, false);
    return row;
  }

  /**
   * Gives a key-less contact the key that answered at the address the operator typed (a hello there, or the
   * reply to what we sent there). When a contact with that key exists already (the peer's own request reached us
   * first, as a separate pending contact), the two become one: crossing requests in a currency accept each other
   * with the terms the operator typed, and the operator's name and address carry over.
   */
  bindKey(c: ContactRow, key: { pubkeyHash: string; publicKey: Buffer; sealingKey: Buffer }): ContactRow {
    if (c.pubkey_hash) return c;
    const keys = { pubkey_hash: key.pubkeyHash, pubkey: b64u(key.publicKey), sealing_key: b64u(key.sealingKey) };
    const other = this.store.byHash(key.pubkeyHash);
    if (!other || other.id === c.id) return this.store.update(c.id, keys);
    // Our outgoing rows that cross the peer's own pending requests; the rest move over with the merge.
    const crossing = this.store.currencies(c.id).filter((mine) => {
      const theirs = this.store.currency(other.id, mine.currency);
      return theirs?.status === 'pending' && theirs.direction === 'incoming' && mine.status === 'pending' && mine.direction === 'outgoing';
    });
    this.store.merge(c.id, other.id);
    let keyed = this.placeAddresses(this.store.byId(other.id)!, addressesOf(c), true);
    if (!keyed.name && c.name) keyed = this.store.update(keyed.id, { name: c.name });
    for (const mine of crossing) {
      try {
        const theirs = this.store.currency(keyed.id, mine.currency)!;
        const terms = this.acceptTerms(theirs, mine.fee_percent ?? undefined, mine.credit_limit === null ? undefined : formatMinor(mine.credit_limit));
        this.acceptRow(keyed, theirs, terms, c.name);
        keyed = this.store.byId(keyed.id)!;
      } catch (err) {
        // The peer enforces a minimum above what the operator typed: its request waits for the operator.
        this.ctx.log.info('crossing contact requests left pending', { currency: mine.currency, reason: err instanceof Error ? err.message : String(err) });
      }
    }
    return keyed;
  }

  /**
   * Makes room for one more contact created by an unknown key: beyond MAX_STRANGERS the oldest such contacts
   * (pending, never named by the operator) expire, so strangers can neither grow the database nor the pending
   * list without bound. Call inside the transaction that inserts.
   */
  makeRoomForStranger(): void {
    const excess = this.store.strangerCount() - MAX_STRANGERS + 1;
    if (excess <= 0) return;
    this.store.deleteOldestStrangers(excess);
    this.ctx.log.warn('oldest pending contact requests from unknown keys expired to make room', { expired: excess, cap: MAX_STRANGERS });
  }

  /** A reply to what we sent to the contact's own addresses: a key-less contact takes the key that answered there. */
  answered(c: ContactRow, sender: PeerSender): ContactRow {
    return this.learn(this.bindKey(c, sender), sender);
  }

  /** Stores addresses this node trusts for the contact (typed by the operator, or verified by AddressTrust). */
  placeAddresses(c: ContactRow, addresses: Partial<NodeAddresses>, replace: boolean): ContactRow {
    const patch: Partial<Record<'addr_http' | 'addr_https' | 'addr_tor', string>> = {};
    for (const raw of [addresses.http, addresses.https, addresses.tor]) {
      const normalized = raw ? normalizeAddress(raw) : null;
      if (!normalized || this.isOwnAddress(normalized)) continue;
      const col = ADDRESS_COLUMN[kindOf(normalized)];
      if (c[col] === normalized || (c[col] !== null && !replace)) continue;
      const owner = this.store.byAddress(normalized);
      if (owner && owner.id !== c.id) continue;
      patch[col] = normalized;
    }
    return Object.keys(patch).length ? this.store.update(c.id, patch) : c;
  }

  /**
   * A key we do not know claims an address where a key-less contact of ours waits (its node was offline when the
   * operator added it, and now asks us itself). The claim proves nothing; that address is asked who it is, and
   * the contact takes the key only when the hello there is signed by the same key (AddressTrust.checkKeyless).
   */
  keylessClaimedBy(sender: PeerSender): void {
    for (const raw of [sender.addresses.tor, sender.addresses.https, sender.addresses.http]) {
      const address = raw ? normalizeAddress(raw) : null;
      const c = address ? this.store.byAddress(address) : null;
      if (c && !c.pubkey_hash && address) this.addressTrust.checkKeyless(c.id, address, sender.pubkeyHash);
    }
  }

  /** The contact a verified sender is: by its key only (an address in a message is a claim, not an identity). */
  findSender(sender: PeerSender): ContactRow | null {
    return this.store.byHash(sender.pubkeyHash);
  }

  // ---- outgoing messages (call inside ctx.db.tx)

  enqueueRequest(c: ContactRow, currency: string, terms: RequestTerms): void {
    const name = String(this.ctx.settings.get('name') ?? '').trim();
    const payload: RequestPayload = {
      type: MSG.request,
      currency,
      ...(terms.requested !== null ? { requested_credit_limit: formatMinor(terms.requested), requested_credit_enforced: terms.enforced } : {}),
      ...(terms.description ? { description: terms.description } : {}),
      ...(name ? { sender_name: name.slice(0, 50) } : {}),
    };
    this.ctx.peer.enqueue(this.target(c), payload);
  }

  /** `to`: the one address the operator confirmed for this acceptance; else every address the contact holds. */
  enqueueAccept(c: ContactRow, row: CurrencyRow, to: string | null = null): void {
    const payload: AcceptPayload = {
      type: MSG.accept,
      currency: row.currency,
      credit_limit: formatMinor(row.credit_limit ?? 0n),
      available_credit: formatMinor(this.availableFor(c.pubkey_hash, row)),
    };
    const target = this.target(c);
    this.ctx.peer.enqueue(to ? { ...target, addresses: { [kindOf(to)]: to } } : target, payload);
  }

  enqueueCurrencyDecline(c: ContactRow, currency: string, reason: CurrencyDeclinePayload['reason']): void {
    const payload: CurrencyDeclinePayload = { type: MSG.currencyDecline, currency, reason };
    if (!this.undeliverable(c)) this.ctx.peer.enqueue(this.target(c), payload);
  }

  /**
   * Why no message can reach this contact, or null. A requester whose claimed addresses are all loopback or private
   * holds none while peerPrivateAddressesAllowed is off (address-trust.ts): a notice to it would only wait in the
   * outbox and end in the dead letter queue, so it is not queued, and the route says so.
   */
  undeliverable(c: ContactRow): string | null {
    if (Object.values(this.addresses(c)).some(Boolean)) return null;
    return 'no address of this contact is trusted (a requester may name only loopback or private addresses, which are not trusted while peer_private_addresses_allowed is off): the decision is recorded here and the contact is not told';
  }

  /** Tells a contact our addresses changed; the new ones travel in the signed envelope header. */
  enqueueAddresses(c: ContactRow): void {
    const payload: AddressesPayload = { type: MSG.addresses };
    this.ctx.peer.enqueue(this.target(c), payload);
  }

  enqueueDecline(c: ContactRow): void {
    const payload: DeclinePayload = { type: MSG.decline };
    if (!this.undeliverable(c)) this.ctx.peer.enqueue(this.target(c), payload);
  }

  // ---- local transitions

  /**
   * Opens (or re-opens) an outgoing request for a currency and queues it. A pending incoming request for the
   * same currency is a mutual request: it is accepted instead (with these terms) and the peer is told.
   * Returns what happened.
   */
  requestCurrency(c: ContactRow, currency: string, terms: RequestTerms): { outcome: 'requested' | 'resent' | 'accepted'; row: CurrencyRow } {
    return this.ctx.db.tx(() => {
      const row = this.store.currency(c.id, currency);
      if (row && row.status === 'accepted') {
        throw new ApiError('contact_exists', 409, `${c.name ?? c.pubkey_hash} is already a contact in ${row.currency}`);
      }
      if (row && row.status === 'pending' && row.direction === 'incoming') {
        // A mutual request: the peer asked first, asking back accepts (its enforced minimum still applies).
        this.acceptTerms(row, terms.fee, formatMinor(terms.credit));
        return { outcome: 'accepted' as const, row: this.acceptRow(c, row, terms, null) };
      }
      const fields = {
        currency,
        fee_percent: terms.fee,
        credit_limit: terms.credit,
        status: 'pending' as const,
        direction: 'outgoing' as const,
        requested_credit: terms.requested,
        requested_enforced: terms.enforced,
        description: terms.description,
        decline_reason: null,
        warning: null,
        request_delivered: false,
        requested_min_unmet: false,
      };
      if (row && row.status === 'pending') {
        // Asking again resends the request as it stands: terms change only through an explicit update.
        this.enqueueRequest(c, row.currency, {
          fee: row.fee_percent ?? terms.fee,
          credit: row.credit_limit ?? terms.credit,
          requested: row.requested_credit,
          enforced: row.requested_enforced,
          description: row.description,
        });
        return { outcome: 'resent' as const, row };
      }
      const updated = row ? this.store.updateCurrency(c.id, row.currency, fields)! : this.store.insertCurrency(c.id, fields);
      this.enqueueRequest(c, updated.currency, terms);
      return { outcome: 'requested' as const, row: updated };
    });
  }

  /**
   * Accepts a pending incoming row with these terms (call inside a transaction): the row becomes accepted, a
   * pending contact becomes accepted (named `name`, else its suggested name, else "Contact <hash>"), and the
   * acceptance is queued to the peer.
   */
  acceptRow(c: ContactRow, row: CurrencyRow, terms: LineTerms, name: string | null, to: string | null = null): CurrencyRow {
    const updated = this.store.updateCurrency(c.id, row.currency, {
      fee_percent: terms.fee,
      credit_limit: terms.credit,
      status: 'accepted',
      decline_reason: null,
      warning: null,
    })!;
    let contact = c;
    if (c.status === 'pending') {
      contact = this.store.update(c.id, {
        status: 'accepted',
        name: name ?? c.name ?? this.fallbackName(c),
      });
    } else if (name && !c.name) {
      contact = this.store.update(c.id, { name });
    }
    this.enqueueAccept(contact, updated, to);
    this.ctx.db.afterCommit(() => {
      if (c.status === 'pending') this.ctx.events.publish(CONTACT_EVENTS.accepted, { pubkey_hash: c.pubkey_hash });
      this.ctx.events.publish(CONTACT_EVENTS.currencyAccepted, { pubkey_hash: c.pubkey_hash, currency: updated.currency });
    });
    return updated;
  }

  fallbackName(c: ContactRow): string {
    const hint = c.suggested_name && /^[A-Za-z0-9 _-]{2,50}$/.test(c.suggested_name) ? c.suggested_name : null;
    return hint ?? `Contact ${(c.pubkey_hash ?? 'unknown').slice(0, 8)}`;
  }

  /**
   * Declines a pending row and queues the notice: an incoming request is declined, an outgoing one withdrawn
   * (only when `allowOutgoing`). Call inside a transaction.
   */
  declineRow(c: ContactRow, row: CurrencyRow, allowOutgoing: boolean): CurrencyRow {
    if (row.status !== 'pending') {
      throw new ApiError('currency_not_pending', 400, `${row.currency} is ${row.status}, not pending`);
    }
    if (row.direction === 'outgoing' && !allowOutgoing) {
      throw new ApiError('currency_not_pending', 400, `${row.currency} is your own request, not one waiting for your decision`);
    }
    const reason = row.direction === 'incoming' ? 'declined' : 'withdrawn';
    const updated = this.store.updateCurrency(c.id, row.currency, { status: 'declined', decline_reason: reason })!;
    this.enqueueCurrencyDecline(c, row.currency, reason);
    this.ctx.db.afterCommit(() => this.ctx.events.publish(CONTACT_EVENTS.declined, { pubkey_hash: c.pubkey_hash, currency: row.currency }));
    return updated;
  }

  /**
   * Terms of a decision (accept). The fee defaults to the `defaultFee` setting, the credit to `unstatedCredit`.
   * An enforced minimum is honoured: a credit below it is refused.
   */
  acceptTerms(row: CurrencyRow, fee: unknown, credit: unknown): LineTerms {
    const terms = {
      fee: fee === undefined || fee === null ? this.defaultFee() : this.fee(fee, 'fee'),
      credit: credit === undefined || credit === null ? this.unstatedCredit(row) : checkCredit(credit, 'credit'),
    };
    if (row.requested_enforced && row.requested_credit !== null && terms.credit < row.requested_credit) {
      throw new ApiError(
        'requested_minimum_unmet',
        400,
        `The contact requires a credit limit of at least ${formatMinor(row.requested_credit)} ${row.currency}; ${formatMinor(terms.credit)} was given`,
      );
    }
    return terms;
  }

  /**
   * The credit of an acceptance the operator gave none for: the `defaultCreditLimit` setting, or the requester's
   * suggestion when it is lower. The requester suggests; it never chooses a limit above what the operator set.
   */
  unstatedCredit(row: CurrencyRow): Minor {
    const fallback = this.defaultCredit();
    return row.requested_credit !== null && row.requested_credit < fallback ? row.requested_credit : fallback;
  }

  /**
   * The address the operator confirms in a decision, where the acceptance goes. One the contact holds is taken
   * as it is; another is asked who it is and taken only when the contact's own key answers there.
   */
  async confirmAddress(c: ContactRow, input: unknown): Promise<string> {
    const field = 'contact_address';
    const address = checkAddress(input, field);
    if ([c.addr_http, c.addr_https, c.addr_tor].includes(address)) return address;
    let answered: string | null = null;
    try {
      answered = (await this.ctx.peer.hello(address)).pubkeyHash;
    } catch (err) {
      this.ctx.log.info('confirmed contact address does not answer', { address, error: err instanceof Error ? err.message : String(err) });
    }
    if (answered === null || answered !== c.pubkey_hash) {
      const why = answered === null ? 'it does not answer' : 'another key answers there';
      throw new ApiError('invalid_address', 400, `contact_address ${address} is not an address of this contact (${why})`, { field });
    }
    this.ctx.db.tx(() => this.placeAddresses(this.store.byId(c.id) ?? c, { [kindOf(address)]: address }, true));
    return address;
  }
}
