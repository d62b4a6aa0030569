/**
 * The contact operations shared by the REST routes, the peer handlers and the status cycle. Every local change
 * that the peer must learn about commits in one transaction with its outgoing message (ctx.peer.enqueue inside
 * ctx.db.tx); the outbox delivers it right after commit, retries, and parks it in the dead letter queue.
 */
import { ApiError, type NodeAddresses, type PeerSender, type PeerTarget, type PluginContext } from '../../sdk/index.js';
import { formatMinor, type Minor } from '../../kernel/money.js';
import { normalizeAddress } from '../../kernel/peers/transport.js';
import type { BalanceProvider, BalanceTotals, ChainProvider } from './api.js';
import { CONTACT_EVENTS } from './api.js';
import { MSG, type AcceptPayload, type AddressesPayload, type CurrencyDeclinePayload, type DeclinePayload, type RequestPayload } from './protocol.js';
import { addressesOf } from './present.js';
import { ADDRESS_COLUMN, type ContactRow, type ContactStore, type CurrencyRow } from './store.js';
import { allowedMatch, checkAddress, checkCredit, checkFee, kindOf, settingCredit } from './validate.js';
import { sameCurrency } from '../system/currency.js';

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

export class ContactsCore {
  balanceProvider: BalanceProvider | null = null;
  chainProvider: ChainProvider | null = null;

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
    return checkFee(this.ctx.settings.get<number>('defaultFee') ?? 0);
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
    const available = limit - (t.received - t.sent);
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
   * Records what a verified message or reply says about its sender: its keys (when the contact had none yet)
   * and any address kind we did not know. Known addresses are never overwritten: the one the operator typed
   * may be the only one that reaches the peer (a node without a hostname announces its loopback URL).
   * Returns the contact row to use afterwards (a key-less duplicate is merged into the keyed one).
   */
  learn(c: ContactRow, sender: PeerSender): ContactRow {
    let row = c;
    if (!row.pubkey_hash) {
      const other = this.store.byHash(sender.pubkeyHash);
      if (other && other.id !== row.id) {
        this.store.merge(row.id, other.id);
        row = other;
      } else {
        row = this.store.update(row.id, { pubkey_hash: sender.pubkeyHash, pubkey: b64u(sender.publicKey), sealing_key: b64u(sender.sealingKey) });
      }
    } else if (row.pubkey_hash === sender.pubkeyHash && row.sealing_key !== b64u(sender.sealingKey)) {
      row = this.store.update(row.id, { pubkey: b64u(sender.publicKey), sealing_key: b64u(sender.sealingKey) });
    }
    return this.fillAddresses(row, sender.addresses);
  }

  fillAddresses(c: ContactRow, addresses: Partial<NodeAddresses>): ContactRow {
    return this.#setAddresses(c, addresses, false);
  }

  /**
   * The contact told us its addresses changed (a signed `contact.addresses`): each address it announces replaces the
   * one of its kind we hold; kinds it does not announce stay as they are. An address another contact holds is skipped.
   */
  replaceAddresses(c: ContactRow, addresses: Partial<NodeAddresses>): ContactRow {
    return this.#setAddresses(c, addresses, true);
  }

  #setAddresses(c: ContactRow, addresses: Partial<NodeAddresses>, replace: boolean): ContactRow {
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

  /** The contact a verified sender is: by key, else a key-less contact at one of its addresses (learning the key). */
  findSender(sender: PeerSender): ContactRow | null {
    const byHash = this.store.byHash(sender.pubkeyHash);
    if (byHash) return byHash;
    for (const raw of [sender.addresses.tor, sender.addresses.https, sender.addresses.http]) {
      const normalized = raw ? normalizeAddress(raw) : null;
      if (!normalized) continue;
      const c = this.store.byAddress(normalized);
      if (c && !c.pubkey_hash) return this.learn(c, sender);
    }
    return null;
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

  enqueueAccept(c: ContactRow, row: CurrencyRow): void {
    const payload: AcceptPayload = {
      type: MSG.accept,
      currency: row.currency,
      credit_limit: formatMinor(row.credit_limit ?? 0n),
      available_credit: formatMinor(this.availableFor(c.pubkey_hash, row)),
    };
    this.ctx.peer.enqueue(this.target(c), payload);
  }

  enqueueCurrencyDecline(c: ContactRow, currency: string, reason: CurrencyDeclinePayload['reason']): void {
    const payload: CurrencyDeclinePayload = { type: MSG.currencyDecline, currency, reason };
    this.ctx.peer.enqueue(this.target(c), payload);
  }

  /** Tells a contact our addresses changed; the new ones travel in the signed envelope header. */
  enqueueAddresses(c: ContactRow): void {
    const payload: AddressesPayload = { type: MSG.addresses };
    this.ctx.peer.enqueue(this.target(c), payload);
  }

  enqueueDecline(c: ContactRow): void {
    const payload: DeclinePayload = { type: MSG.decline };
    this.ctx.peer.enqueue(this.target(c), payload);
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
      const resent = row !== null && row.status === 'pending';
      const updated = row ? this.store.updateCurrency(c.id, row.currency, fields)! : this.store.insertCurrency(c.id, fields);
      this.enqueueRequest(c, updated.currency, terms);
      return { outcome: resent ? ('resent' as const) : ('requested' as const), row: updated };
    });
  }

  /**
   * Accepts a pending incoming row with these terms (call inside a transaction): the row becomes accepted, a
   * pending contact becomes accepted (named `name`, else its suggested name, else "Contact <hash>"), and the
   * acceptance is queued to the peer.
   */
  acceptRow(c: ContactRow, row: CurrencyRow, terms: LineTerms, name: string | null): CurrencyRow {
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
    this.enqueueAccept(contact, updated);
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
   * Terms of a decision (accept). The fee defaults to the `defaultFee` setting. The credit defaults to what the
   * requester suggested (`requested_credit_limit`, "shown pre-filled to the recipient" in Document 1), else to the
   * `defaultCreditLimit` setting. An enforced minimum is honoured: an explicit credit below it is refused.
   */
  acceptTerms(row: CurrencyRow, fee: unknown, credit: unknown): LineTerms {
    const terms = {
      fee: fee === undefined || fee === null ? this.defaultFee() : checkFee(fee, 'fee'),
      credit: credit === undefined || credit === null ? (row.requested_credit ?? this.defaultCredit()) : checkCredit(credit, 'credit'),
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

  /** A contact address given in a decision must be one of the addresses the contact announced. */
  checkOwnAddress(c: ContactRow, input: unknown): void {
    const normalized = checkAddress(input, 'contact_address');
    if (![c.addr_http, c.addr_https, c.addr_tor].includes(normalized)) {
      throw new ApiError('invalid_address', 400, `contact_address ${normalized} is not an address of this contact`, { field: 'contact_address' });
    }
  }
}
