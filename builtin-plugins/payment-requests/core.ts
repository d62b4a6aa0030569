/**
 * Payment request operations: the REST actions, the `payment_request` message handler, the ledger hook that
 * turns a completed (or failed) payment into an approved (or failed) request, and the expiry sweep.
 *
 * Every state change that the other side must learn commits in one transaction with its outgoing message
 * (ctx.peer.enqueue inside ctx.db.tx); the outbox delivers after commit, retries, then dead-letters.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, PeerRefusal, type InboundPeerMessage, type PeerTarget, type PluginContext } from '../../sdk/index.js';
import { MAX_AMOUNT, formatMinor, type Minor } from '../../sdk/money.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService, LedgerTx, PaymentRouter, RoutedOutcome } from '../ledger/api.js';
import { checkCurrency } from '../../sdk/amounts.js';
import { resolveRecipient } from '../wallet/api.js';
import { paymentDescription } from './note.js';
import type { RequestRow, RequestStore } from './store.js';

export const MSG_TYPE = 'payment_request';
/** A pending request expires this long after its creation (on each side, by the expiry sweep). */
export const REQUEST_TTL_MS = 30 * 86_400_000;

export type RequestEvent = 'created' | 'approved' | 'declined' | 'cancelled';

export interface RequestMessage {
  type: typeof MSG_TYPE;
  event: RequestEvent;
  request_id: string;
  /** created: minor units as a decimal string. */
  amount?: string;
  currency?: string;
  description?: string;
  /** created: ms since the epoch. */
  created_at?: number;
  expires_at?: number;
  /** approved: the payment's txid (over a route: the payer's first leg). */
  txid?: string;
  /** approved over a route: the route's hash, the memo of the leg that reached the requester. */
  route_hash?: string;
  [key: string]: unknown;
}

/** A request's payment as it starts: the payment's txid (a routed one's first leg, once a route was chosen). */
export interface Payment {
  row: RequestRow;
  txid: string | null;
  routeHash: string | null;
}

const REQUEST_ID = /^[A-Za-z0-9_-]{8,80}$/;
const preferred = (a: { tor?: string | null; https?: string | null; http?: string | null } | null | undefined): string | null =>
  a ? (a.tor ?? a.https ?? a.http ?? null) : null;

export class RequestsCore {
  constructor(
    readonly ctx: PluginContext,
    readonly store: RequestStore,
    readonly contacts: ContactsService,
    readonly ledger: LedgerService,
  ) {}

  now(): number {
    return this.ctx.clock.now();
  }

  contactName(hash: string): string | null {
    return this.contacts.get(hash)?.name ?? null;
  }

  #target(row: RequestRow): PeerTarget | null {
    const target = this.contacts.target(row.contactHash);
    if (!target) return null;
    if (row.addressType && row.direction === 'outgoing') {
      const kind = row.addressType as 'tor' | 'https' | 'http';
      const address = target.addresses[kind];
      if (address) return { ...target, addresses: { [kind]: address } };
    }
    return target;
  }

  /** Queues a message about a request (inside the caller's transaction). */
  #notify(row: RequestRow, message: Omit<RequestMessage, 'type' | 'request_id'>): void {
    const target = this.#target(row);
    if (!target) {
      this.store.patch(row.id, { delivery: 'dead', deliveryError: 'the contact has no known keys or address' }, this.now());
      return;
    }
    this.ctx.peer.enqueue(target, { type: MSG_TYPE, request_id: row.requestId, ...message });
    this.store.patch(row.id, { delivery: 'queued', deliveryError: null }, this.now());
  }

  // ---- REST actions

  create(input: { contact: string; amount: Minor; currency: string; description: string | null; addressType: string | null }): RequestRow {
    const c = this.contacts.resolve(input.contact);
    if (c.pubkeyHash === this.ctx.identity.pubkeyHash) throw new ApiError('self_send', 400, 'You cannot request a payment from yourself');
    if (!c.pubkeyHash || c.status !== 'accepted') {
      throw new ApiError('contact_not_accepted', 400, `${c.name ?? input.contact} is not an accepted contact`);
    }
    if (!this.contacts.isAccepted(c.pubkeyHash, input.currency)) {
      throw new ApiError('invalid_currency', 400, `You and ${c.name ?? input.contact} have no accepted ${input.currency} line`, { field: 'currency' });
    }
    if (input.addressType) {
      const a = c.addresses[input.addressType as 'tor' | 'https' | 'http'];
      if (!a) throw new ApiError('invalid_address', 400, `${c.name} has no ${input.addressType} address`, { field: 'address_type' });
    }
    const contactHash = c.pubkeyHash;
    return this.ctx.db.tx(() => {
      const now = this.now();
      const row = this.store.insert({
        requestId: randomBytes(16).toString('hex'),
        direction: 'outgoing',
        contactHash,
        requesterHash: this.ctx.identity.pubkeyHash,
        recipientHash: contactHash,
        storedContactName: c.name,
        requesterAddress: preferred(this.ctx.kernel.node.addresses),
        addressType: input.addressType,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        delivery: 'queued',
        createdAt: now,
        expiresAt: now + REQUEST_TTL_MS,
      });
      this.#notify(row, {
        event: 'created',
        amount: input.amount.toString(),
        currency: input.currency,
        ...(input.description ? { description: input.description } : {}),
        created_at: now,
        expires_at: row.expiresAt,
      });
      return this.store.get(row.requestId, 'outgoing')!;
    });
  }

  #incoming(requestId: string, code: string, status = 400): RequestRow {
    const rows = this.store.find(requestId);
    if (rows.length === 0) throw new ApiError(code === 'retry_failed' ? code : 'request_not_found', code === 'retry_failed' ? 400 : 404, `No payment request ${requestId}`);
    const row = rows.find((r) => r.direction === 'incoming');
    if (!row) throw new ApiError(code, status, `Payment request ${requestId} is one you sent, not one addressed to you`);
    return this.#expireIfDue(row);
  }

  #expireIfDue(row: RequestRow): RequestRow {
    if (row.status === 'pending' && row.expiresAt <= this.now()) {
      return this.ctx.db.tx(() => this.store.patch(row.id, { status: 'expired', respondedAt: this.now() }, this.now()));
    }
    return row;
  }

  /** Starts the payment of an incoming request (pending → sending); returns the payment's txid. */
  approve(requestId: string, payerNote: unknown): Promise<Payment> {
    if (payerNote !== undefined && payerNote !== null && typeof payerNote !== 'string') {
      throw new ApiError('validation_error', 400, 'payer_note must be a string', { field: 'payer_note' });
    }
    const row = this.#incoming(requestId, 'invalid_request');
    if (row.status !== 'pending') throw new ApiError('invalid_request', 400, `Payment request ${requestId} is ${row.status}, not pending`);
    return this.#pay(row, (payerNote as string | null | undefined) ?? null, 'invalid_request');
  }

  /**
   * A failed incoming request is paid again (failed → sending). When its payment failed for delivery (it may even
   * have reached the requester, its answer lost), that same payment goes out again: the requester settles it at most
   * once. A payment the requester refused is replaced by a fresh one.
   */
  async retry(requestId: string): Promise<Payment> {
    const row = this.#incoming(requestId, 'retry_failed');
    if (row.status !== 'failed') throw new ApiError('retry_failed', 400, `Payment request ${requestId} is ${row.status}; only failed requests can be retried`);
    const resent = this.ctx.db.tx(() => {
      const tx = row.resultingTxid && !row.routeHash ? this.ledger.resend(row.resultingTxid, `payment request ${requestId} retried`) : null;
      return tx ? { row: this.store.patch(row.id, { status: 'sending', failureReason: null }, this.now()), txid: tx.txid, routeHash: null } : null;
    });
    return resent ?? this.#pay(row, row.payerNote, 'retry_failed');
  }

  /**
   * Pays a request through the whole pipeline (Document 1): straight over the line with the requester when that line
   * can carry the amount as far as this node knows (the credit the requester last reported), otherwise over a route,
   * the fees on top.
   */
  async #pay(row: RequestRow, payerNote: string | null, code: string): Promise<Payment> {
    const described = paymentDescription(row.description, payerNote);
    if (!described.ok) throw new ApiError('payer_note_too_long', 400, described.message, { field: 'payer_note', max_length: described.cap });
    if (!this.contacts.target(row.contactHash)) {
      throw new ApiError(code, 400, `Payment request ${row.requestId} has no return address: the requester's keys or addresses are unknown`);
    }
    if (row.amount <= 0n || row.amount > MAX_AMOUNT) throw new ApiError('invalid_amount', 400, 'The requested amount is out of range');
    const currency = checkCurrency(this.ctx, row.currency);
    const router = this.ledger.router();
    const line = this.contacts.line(row.contactHash, currency);
    const carries = line !== null && (line.myAvailableCredit === null || line.myAvailableCredit >= row.amount);
    const claim = (patch: Parameters<RequestStore['patch']>[1]): RequestRow => {
      const fresh = this.store.get(row.requestId, 'incoming')!;
      if (fresh.status !== row.status) throw new ApiError(code, 400, `Payment request ${row.requestId} is ${fresh.status} now`);
      return this.store.patch(row.id, { ...patch, payerNote: described.note, failureReason: null, respondedAt: null }, this.now());
    };
    const direct = (): Payment => {
      const to = resolveRecipient(this.ctx, this.contacts, row.contactHash, currency);
      return this.ctx.db.tx(() => {
        const tx = this.ledger.send({ contactHash: to.pubkeyHash, amount: row.amount, currency, description: described.description, recipientAddress: to.address });
        return { row: claim({ status: 'sending', resultingTxid: tx.txid, routeHash: null }), txid: tx.txid, routeHash: null };
      });
    };
    if (carries || !router) return direct();
    const address = row.requesterAddress ?? preferred(this.contacts.get(row.contactHash)?.addresses);
    // With no route either, the direct payment goes out all the same: refused, it fails the request, which the payer
    // can retry once the line is raised.
    const routed = address ? await this.#payRouted(row, router, address, currency, described.description, claim) : null;
    return routed ?? direct();
  }

  /** The routed payment of a request, or null when no route was found (nothing was paid, the request is as it was). */
  async #payRouted(
    row: RequestRow,
    router: PaymentRouter,
    address: string,
    currency: string,
    description: string | null,
    claim: (patch: Parameters<RequestStore['patch']>[1]) => RequestRow,
  ): Promise<Payment | null> {
    // Claimed before the route search, so a second approval meanwhile is refused rather than paying twice.
    const claimed = this.ctx.db.tx(() => claim({ status: 'sending', resultingTxid: null, routeHash: null }));
    let routed: RoutedOutcome;
    try {
      routed = await router.send({ address, amount: row.amount, currency, description });
    } catch (err) {
      this.ctx.db.tx(() => {
        const now = this.store.get(row.requestId, 'incoming')!;
        if (now.status === 'sending' && now.routeHash === null) this.store.patch(row.id, { status: row.status }, this.now());
      });
      if (err instanceof ApiError && err.code === 'no_route') return null;
      throw err;
    }
    const updated = this.ctx.db.tx(() => {
      const now = this.store.get(row.requestId, 'incoming')!;
      // The route may have completed (and settled the request) before this line ran.
      return now.routeHash === null ? this.store.patch(claimed.id, { routeHash: routed.hash, resultingTxid: now.resultingTxid ?? routed.txid }, this.now()) : now;
    });
    return { row: updated, txid: routed.txid, routeHash: routed.hash };
  }

  decline(requestId: string): RequestRow {
    const row = this.#incoming(requestId, 'invalid_request');
    if (row.status !== 'pending') throw new ApiError('invalid_request', 400, `Payment request ${requestId} is ${row.status}, not pending`);
    return this.ctx.db.tx(() => {
      const updated = this.store.patch(row.id, { status: 'declined', respondedAt: this.now() }, this.now());
      this.#notify(updated, { event: 'declined' });
      return this.store.get(row.requestId, 'incoming')!;
    });
  }

  cancel(requestId: string): RequestRow {
    const rows = this.store.find(requestId);
    if (rows.length === 0) throw new ApiError('request_not_found', 404, `No payment request ${requestId}`);
    let row = rows.find((r) => r.direction === 'outgoing');
    if (!row) throw new ApiError('invalid_request', 400, `Payment request ${requestId} was sent to you; decline it instead of cancelling`);
    row = this.#expireIfDue(row);
    if (row.status !== 'pending') throw new ApiError('invalid_request', 400, `Payment request ${requestId} is ${row.status}, not pending`);
    return this.ctx.db.tx(() => {
      const updated = this.store.patch(row.id, { status: 'cancelled', respondedAt: this.now() }, this.now());
      this.#notify(updated, { event: 'cancelled' });
      return this.store.get(row.requestId, 'outgoing')!;
    });
  }

  // ---- the ledger hook (inside the transaction that makes the payment final)

  /**
   * A payment that failed may still complete later (a dead-letter retry, or a revival when the requester turns out
   * to hold it): the request it pays is then approved all the same and the requester is told, even when a
   * cancellation arrived meanwhile (the payment takes priority), so it is never left `failed` or `cancelled` (the
   * former open to a second payment by retry) while the requester has been paid.
   */
  onPaymentFinal = (tx: LedgerTx): void => {
    if (tx.type !== 'sent') return;
    const routed = tx.txType === 'p2p';
    const row = this.store.byTxid(tx.txid) ?? (routed ? this.store.byRouteHash(tx.memo) : null);
    if (!row) return;
    if (tx.status === 'completed') {
      if (row.status === 'approved') return;
      const updated = this.store.patch(
        row.id,
        { status: 'approved', resultingTxid: tx.txid, ...(routed ? { routeHash: tx.memo } : {}), failureReason: null, respondedAt: this.now() },
        this.now(),
      );
      this.#notify(updated, { event: 'approved', txid: tx.txid, ...(routed ? { route_hash: tx.memo } : {}) });
    } else if (row.status === 'sending') {
      this.store.patch(row.id, { status: 'failed', failureReason: tx.failureReason ?? tx.status }, this.now());
    }
  };

  // ---- the expiry sweep

  expireDue(): number {
    const due = this.store.duePending(this.now());
    if (due.length === 0) return 0;
    this.ctx.db.tx(() => {
      for (const r of due) this.store.patch(r.id, { status: 'expired', respondedAt: this.now() }, this.now());
    });
    return due.length;
  }

  // ---- delivery outcomes of our messages

  delivered(requestId: string, outcome: 'delivered' | 'refused' | 'dead', error: string | null, event: unknown): void {
    if (event === 'approved' || event === 'declined' || event === 'cancelled' || event === 'created') {
      const direction = event === 'created' || event === 'cancelled' ? 'outgoing' : 'incoming';
      const row = this.store.get(requestId, direction);
      if (row) this.ctx.db.tx(() => this.store.patch(row.id, { delivery: outcome, deliveryError: error }, this.now()));
    }
  }

  // ---- the message handler

  handle = (message: InboundPeerMessage): Record<string, unknown> => {
    const p = message.payload as Partial<RequestMessage>;
    const sender = message.sender;
    if (typeof p.request_id !== 'string' || !REQUEST_ID.test(p.request_id)) throw new PeerRefusal('invalid_request', 'request_id is malformed');
    switch (p.event) {
      case 'created':
        return this.#received(p, message);
      case 'approved':
        return this.ctx.db.tx(() => {
          const row = this.store.get(p.request_id!, 'outgoing');
          if (!row || row.contactHash !== sender.pubkeyHash) throw new PeerRefusal('unknown_request', 'no such request from this node to you');
          if (row.status === 'approved') return { status: row.status };
          const tx = this.#paymentOf(p, sender.pubkeyHash);
          // A routed leg is paid once this node released its preimage (the relay can no longer keep it back).
          const paid = tx !== null && (tx.status === 'completed' || (tx.status === 'accepted' && tx.fulfillment !== null));
          if (!tx || !paid || tx.type !== 'received' || tx.amount !== row.amount || this.store.settlesARequest(tx.txid)) {
            throw new PeerRefusal('payment_mismatch', 'the named payment is not a completed payment of this request');
          }
          // The payment takes priority over a cancellation, a decline or an expiry that crossed it.
          const updated = this.store.patch(row.id, { status: 'approved', resultingTxid: tx.txid, respondedAt: this.now() }, this.now());
          return { status: updated.status };
        });
      case 'declined':
        return this.ctx.db.tx(() => {
          const row = this.store.get(p.request_id!, 'outgoing');
          if (!row || row.contactHash !== sender.pubkeyHash) throw new PeerRefusal('unknown_request', 'no such request from this node to you');
          if (row.status !== 'pending') return { status: row.status, ignored: true };
          return { status: this.store.patch(row.id, { status: 'declined', respondedAt: this.now() }, this.now()).status };
        });
      case 'cancelled':
        return this.ctx.db.tx(() => {
          const row = this.store.get(p.request_id!, 'incoming');
          if (!row || row.contactHash !== sender.pubkeyHash) throw new PeerRefusal('unknown_request', 'no such request from you');
          // Once the payment is under way (or done) it takes priority: the cancellation is ignored.
          if (row.status !== 'pending' && row.status !== 'failed') return { status: row.status, ignored: true };
          return { status: this.store.patch(row.id, { status: 'cancelled', respondedAt: this.now() }, this.now()).status };
        });
      default:
        throw new PeerRefusal('invalid_request', `unknown payment_request event ${String(p.event)}`);
    }
  };

  /**
   * The received payment an approval names: the payer's own direct payment, or the leg of the named route that
   * reached this node (from the route's last relay; the payer pays its fees on top).
   */
  #paymentOf(p: Partial<RequestMessage>, payerHash: string): LedgerTx | null {
    if (typeof p.route_hash === 'string') {
      return this.ledger.legsOf(p.route_hash).find((leg) => leg.type === 'received') ?? null;
    }
    const tx = typeof p.txid === 'string' ? this.ledger.get(p.txid) : null;
    return tx && tx.contactHash === payerHash ? tx : null;
  }

  #received(p: Partial<RequestMessage>, message: InboundPeerMessage): Record<string, unknown> {
    const sender = message.sender;
    if (!this.contacts.isAccepted(sender.pubkeyHash)) throw new PeerRefusal('contact_not_accepted', 'you are not an accepted contact of this node');
    if (typeof p.amount !== 'string' || !/^[1-9][0-9]{0,29}$/.test(p.amount) || BigInt(p.amount) > MAX_AMOUNT) {
      throw new PeerRefusal('invalid_request', 'amount must be a positive integer of minor units');
    }
    if (typeof p.currency !== 'string' || !/^[A-Za-z0-9]{3,10}$/.test(p.currency)) throw new PeerRefusal('invalid_request', 'currency is malformed');
    if (p.description !== undefined && (typeof p.description !== 'string' || [...p.description].length > 255)) {
      throw new PeerRefusal('invalid_request', 'description must be at most 255 characters');
    }
    const now = this.now();
    const created = typeof p.created_at === 'number' && Number.isSafeInteger(p.created_at) ? Math.min(p.created_at, now) : now;
    const expires = typeof p.expires_at === 'number' && Number.isSafeInteger(p.expires_at) ? Math.min(p.expires_at, now + REQUEST_TTL_MS) : now + REQUEST_TTL_MS;
    return this.ctx.db.tx(() => {
      const existing = this.store.get(p.request_id!, 'incoming');
      if (existing) {
        if (existing.contactHash !== sender.pubkeyHash) throw new PeerRefusal('duplicate_request', 'this request id is already used');
        return { status: existing.status };
      }
      const row = this.store.insert({
        requestId: p.request_id!,
        direction: 'incoming',
        contactHash: sender.pubkeyHash,
        requesterHash: sender.pubkeyHash,
        recipientHash: this.ctx.identity.pubkeyHash,
        storedContactName: this.contactName(sender.pubkeyHash),
        requesterAddress: preferred(sender.addresses) ?? preferred(this.contacts.get(sender.pubkeyHash)?.addresses),
        addressType: null,
        amount: BigInt(p.amount!),
        currency: p.currency!,
        description: p.description ?? null,
        delivery: 'none',
        createdAt: created,
        expiresAt: expires,
      });
      this.ctx.log.info('payment request received', { request_id: row.requestId, amount: formatMinor(row.amount), currency: row.currency });
      return { status: row.status };
    });
  }
}
