/**
 * Payments this node originates (the router the ledger offers senders): the route request, the candidates, the
 * choice (fast: the first route; best-fee: the cheapest once every branch answered), approval when
 * autoAcceptTransaction is off (Document 1, "Routing behavior"), and the first leg.
 */
import { ApiError, formatMinor, PeerRefusal, type CounterMetric, type InboundPeerMessage, type Minor, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import { ROUTING_EVENTS } from './api.js';
import type { LedgerService, LedgerTx, LegStatement, PaymentRouter, RoutedOutcome, RoutedPayment } from '../ledger/api.js';
import type { OriginBudgets } from './budgets.js';
import { parseMinor, type CapacityProbe } from './capacity.js';
import type { Branch, Discovery, SearchListener } from './discovery.js';
import type { Legs } from './legs.js';
import { MSG, parseNote, randomHex, REFUSAL, routeHash, sha256Hex, withinMaxFee } from './protocol.js';
import type { SplitReceiver } from './split-receive.js';
import type { CandidateRow, PaymentRow, RoutingStore } from './store.js';

/** How long a send waits for the route to be chosen before it answers `searching` (the payment goes on). */
const SEND_WAIT_MS = 10_000;

/** A part of a split payment: its group (id and secret) and the first contact its route must go through. */
export interface SplitPart {
  group: string;
  secret: string;
  via: string;
  /** The legs of the route the plan's probe found through `via`: the part's search reaches at least as far. */
  hops: number;
}

interface Waiter {
  resolve(outcome: RoutedOutcome): void;
  reject(err: unknown): void;
}

/**
 * A search that found no route where another one may, which the send then makes (while its caller waits, and at most
 * MAX_SEARCHES searches in all, since each one floods the network):
 * - every route a fast search heard cost more than maxFee: relays in fast mode pass on the first route they hear,
 *   which may be dearer than one that came a moment later; the next search looks for the cheapest (best-fee);
 * - the randomized hop budget fell short: the next search goes as far as maxP2pLevel allows;
 * - the route was busy: other payments held the credit on it while the search asked, and the probe that followed
 *   found it free for this amount; the next search asks again, as far as the last.
 */
class SearchAgain extends Error {
  constructor(
    readonly why: string,
    readonly budget: number,
    readonly bestFee = false,
  ) {
    super(why);
  }
}

/**
 * Searches one send may make. Two reasons can follow each other: a budget that fell short, then a route that was busy
 * (the widened search met credit held by other payments), or whose first route found cost more than maxFee.
 */
const MAX_SEARCHES = 3;

const kindOf = (address: string): 'tor' | 'https' | 'http' => (/\.onion(:\d+)?$/i.test(address) ? 'tor' : address.startsWith('https://') ? 'https' : 'http');

/** Microseconds since the epoch, strictly increasing here (two payments never share a request time). */
let lastMicros = 0;
const nowMicros = (ms: number): number => {
  const t = ms * 1000;
  lastMicros = t > lastMicros ? t : lastMicros + 1;
  return lastMicros;
};

export class Payments implements PaymentRouter {
  readonly #waiters = new Map<string, Waiter[]>();
  /** Fast searches that refused a route over maxFee (see SearchAgain). */
  readonly #overFee = new Set<string>();
  /** Searches made again (SearchAgain), with why each earlier one failed. */
  readonly #earlier = new Map<string, readonly string[]>();
  /** The clearing this node is starting in each currency: the next one waits for it (see `clear`). */
  readonly #clearing = new Map<string, Promise<unknown>>();
  #legs: Legs | null = null;
  /** Route searches this node originated, by how they ended: `found` (a route was chosen or offered for approval) or `no_route`. */
  readonly #searches: CounterMetric;

  constructor(
    private readonly ctx: PluginContext,
    private readonly store: RoutingStore,
    private readonly ledger: LedgerService,
    private readonly contacts: ContactsService,
    private readonly discovery: Discovery,
    private readonly probe: CapacityProbe,
    private readonly splits: SplitReceiver,
    private readonly budgets: OriginBudgets,
  ) {
    this.#searches = ctx.metrics.counter({ name: 'route_discoveries_total', help: 'Route discoveries this node originated, by outcome (found, no_route)', labels: ['outcome'] });
  }

  attach(legs: Legs): void {
    this.#legs = legs;
  }

  // ---- PaymentRouter

  send(p: RoutedPayment): Promise<RoutedOutcome> {
    return this.#route(p, {});
  }

  /**
   * Searches a route for one part of a split payment through `part.via`, and stops there: it answers `searching` with
   * the route found as its candidate (or fails `no_route`); the split executes its parts once every one has a route.
   */
  searchPart(p: RoutedPayment, part: SplitPart): Promise<RoutedOutcome> {
    return this.#route(p, { part });
  }

  /**
   * One debt-cycle clearing in `currency`: a clearing probe finds the widest cycle back to this node, then a payment
   * of that amount goes around it (docs/protocol.md, "Clearing"). Null when no cycle can be cleared now.
   */
  async clear(currency: string): Promise<RoutedOutcome | null> {
    if (this.ctx.settings.get('autoCycleClearing') !== true) {
      throw new ApiError('clearing_disabled', 400, 'Debt-cycle clearing is off on this node: turn on the setting auto_cycle_clearing');
    }
    const own = this.#ownAddress();
    if (!own) throw new ApiError('clearing_disabled', 400, 'This node has no address to route a clearing to');
    // One at a time per currency, so that two runs never size their cycles on the same debts: the next one probes
    // once this one's legs are locked, when they count against what it may clear.
    const key = currency.toLowerCase();
    const before = this.#clearing.get(key) ?? Promise.resolve();
    const run = before.then(async () => {
      const amount = await this.probe.widestCycle(own, currency);
      return amount === 0n ? null : this.#route({ address: own, amount, currency, description: 'debt-cycle clearing' }, { clearing: true });
    });
    const settledRun = run.catch(() => undefined);
    this.#clearing.set(key, settledRun);
    void settledRun.then(() => {
      if (this.#clearing.get(key) === settledRun) this.#clearing.delete(key);
    });
    return run;
  }

  async #route(
    p: RoutedPayment,
    kind: { clearing?: boolean; part?: SplitPart; budget?: number; earlier?: readonly string[]; answerBy?: number },
  ): Promise<RoutedOutcome> {
    const clearing = kind.clearing === true;
    const part = kind.part ?? null;
    if (this.ctx.kernel.isRetired()) throw new ApiError('node_retired', 503, 'This node is retired: it sends no payments until it is unretired');
    const own = this.ctx.identity.pubkeyHash;
    if (!this.contacts.accepted(p.currency).some((c) => c.pubkeyHash && c.pubkeyHash !== own)) {
      throw new ApiError('no_route', 400, `No route to ${p.address} in ${p.currency}: no contact holds an accepted ${p.currency} line with this node`, { reason: 'no_line' });
    }
    const now = this.ctx.clock.now();
    const secret = randomHex(32);
    const salt = sha256Hex(Buffer.from(secret, 'hex'));
    const time = nowMicros(now);
    const hash = routeHash(p.address, salt, time);
    // A Tor destination is paid in fast mode: a best-fee search over Tor would take minutes (Document 1). A split's
    // part asks one contact only.
    const fast = !p.bestFee || kindOf(p.address) === 'tor' || part !== null;
    // A randomized budget may fall short of the route a split's probe found: that part's search goes as far as it.
    const budget = kind.budget ?? (clearing ? this.budgets.cycle() : Math.max(this.budgets.draw(p.address, p.currency), part?.hops ?? 0));
    const expires = now + Number(this.ctx.settings.get('p2pExpiration') ?? 300) * 1000;
    this.ctx.db.tx(() =>
      this.store.insertPayment({
        hash,
        secret,
        salt,
        timeMicros: time,
        destination: p.address,
        currency: p.currency,
        amount: p.amount,
        description: p.description ?? null,
        fast,
        budget,
        refundOf: p.refundOf ?? null,
        clearing,
        splitGroup: part?.group ?? null,
        splitSecret: part?.secret ?? null,
        status: 'searching',
        expiresAt: expires,
        createdAt: now,
      }),
    );
    const outcome = new Promise<RoutedOutcome>((resolve, reject) => {
      const list = this.#waiters.get(hash) ?? [];
      list.push({ resolve, reject });
      this.#waiters.set(hash, list);
    });
    // A split waits for every part's search to end (each has its deadline): it pays all parts or none. A search made
    // again answers within what is left of the first one's wait: a send waits SEND_WAIT_MS in all.
    const answerBy = kind.answerBy ?? now + SEND_WAIT_MS;
    const timer = part ? undefined : setTimeout(() => this.#answer(hash), Math.max(0, answerBy - now));
    timer?.unref();
    if (kind.earlier) this.#earlier.set(hash, kind.earlier);
    this.discovery.originate(
      { hash, salt, time, currency: p.currency, amount: p.amount, budget, fast, expires, ...(clearing ? { clearing } : {}), ...(part ? { split: part.group } : {}) },
      budget,
      this.#listener(hash),
      now + Math.floor((expires - now) / 2),
      part?.via ?? null,
    );
    try {
      return await outcome;
    } catch (err) {
      if (err instanceof SearchAgain) return await this.#route({ ...p, bestFee: p.bestFee || err.bestFee }, { ...kind, budget: err.budget, earlier: [...(kind.earlier ?? []), err.why], answerBy });
      throw err;
    } finally {
      this.#earlier.delete(hash);
      clearTimeout(timer);
    }
  }

  refundsInFlight(txid: string): Minor {
    return this.store.refundsOf(txid);
  }

  originOf(txid: string): string | null {
    const tx = this.ledger.get(txid);
    if (!tx || tx.type !== 'received' || !tx.condition) return null;
    return this.store.note(tx.memo)?.originAddress ?? null;
  }

  // ---- the search's answers

  #listener(hash: string): SearchListener {
    return {
      onAnswer: (branch) => this.#candidate(hash, branch),
      onComplete: () => this.#complete(hash),
    };
  }

  #candidate(hash: string, branch: Branch): void {
    if (branch.state !== 'found' || !branch.offer) return;
    const payment = this.store.payment(hash);
    const offer = branch.offer;
    const maxFee = String(this.ctx.settings.get('maxFee') ?? 5);
    const wanted =
      payment !== null &&
      (payment.status === 'searching' || (payment.status === 'awaiting_approval' && !payment.fast)) &&
      withinMaxFee(payment.amount, offer.amount, maxFee);
    if (!payment || !wanted) {
      if (payment && !withinMaxFee(payment.amount, offer.amount, maxFee)) {
        this.ctx.log.info('route refused: its fee is above maxFee', { hash, fee: formatMinor(offer.amount - payment.amount), max_fee_percent: maxFee });
        if (payment.fast && payment.status === 'searching') this.#overFee.add(hash);
      }
      this.#cancel(hash, branch.contact, payment?.budget ?? 1);
      return;
    }
    this.ctx.db.tx(() =>
      this.store.insertCandidate({
        hash,
        contactHash: branch.contact,
        senderAddress: branch.address,
        senderPublicKey: branch.publicKey,
        amount: offer.amount,
        hops: offer.hops + 1,
        condition: offer.condition,
        signature: offer.signature,
        timeMicros: payment.timeMicros,
        createdAt: this.ctx.clock.now(),
      }),
    );
    if (payment.fast && payment.status === 'searching') this.#decide(payment);
  }

  #complete(hash: string): void {
    const overFee = this.#overFee.delete(hash);
    const payment = this.store.payment(hash);
    if (!payment || payment.status !== 'searching') return;
    if (this.store.candidates(hash).length === 0) {
      this.#searches.inc({ outcome: 'no_route' });
      if (payment.clearing) {
        // The cycle the probe found moved meanwhile: nothing to diagnose, the next run looks again.
        this.ctx.db.tx(() => this.store.patchPayment(hash, { status: 'failed', failureReason: 'no_route: the cycle can no longer be cleared' }, this.ctx.clock.now()));
        this.#fail(hash, new ApiError('no_route', 400, 'The debt cycle found could no longer be cleared', { reason: 'destination_unreachable' }));
        return;
      }
      if (payment.splitGroup) {
        // The split's plan (a probe) counted on this route: it moved meanwhile, and the split says so as a whole.
        this.ctx.db.tx(() => this.store.patchPayment(hash, { status: 'failed', failureReason: 'no_route: the route this part of the split counted on carries it no more' }, this.ctx.clock.now()));
        this.#fail(hash, new ApiError('no_route', 400, `No route carries ${formatMinor(payment.amount)} ${payment.currency} through the contact this part counted on`, { reason: 'line_exhausted' }));
        return;
      }
      // A search over Tor takes minutes (a Tor destination is always searched in fast mode), and a send that answered
      // already has nobody to pay it.
      const mayAgain = kindOf(payment.destination) !== 'tor' && this.#waiters.has(hash) && (this.#earlier.get(hash)?.length ?? 0) + 1 < MAX_SEARCHES;
      if (overFee && mayAgain) {
        // Within the same hop budget, so that the next search reaches no further than this one did.
        this.#searchAgain(payment, new SearchAgain('the first routes found cost more than maxFee; searched again for the cheapest', payment.budget, true));
        return;
      }
      const widest = this.budgets.widest();
      if (mayAgain && payment.budget < widest) {
        this.#searchAgain(payment, new SearchAgain(`no route within the hop budget drawn (${payment.budget}); searched again within ${widest}`, widest));
        return;
      }
      void this.#failWithoutRoute(payment, mayAgain);
      return;
    }
    this.#decide(payment);
  }

  /**
   * No branch offered a route: a capacity probe tells why (no line, a line exhausted at hop k, unreachable, over
   * maxFee), which the failure reason and the `no_route` error's detail name.
   */
  async #failWithoutRoute(payment: PaymentRow, mayAgain: boolean): Promise<void> {
    let detail: Awaited<ReturnType<CapacityProbe['diagnose']>> | null = null;
    try {
      detail = await this.probe.diagnose(payment.destination, payment.currency, payment.amount, payment.budget);
    } catch (err) {
      this.ctx.log.warn('no route: the capacity probe failed', { hash: payment.hash, error: err instanceof Error ? err.message : String(err) });
    }
    if (mayAgain && this.#waiters.has(payment.hash) && detail?.reason === 'destination_unreachable' && parseMinor(detail.max_sendable) >= payment.amount) {
      this.#searchAgain(payment, new SearchAgain(`the route was busy; ${detail.max_sendable} ${payment.currency} could reach the destination a moment later: searched again`, payment.budget));
      return;
    }
    const why = detail ? `${detail.reason}: ${detail.message}` : 'every branch answered without a route within maxFee';
    if (!this.#searchFailed(payment.hash, why)) return;
    const earlier = this.#earlier.get(payment.hash) ?? [];
    const before = earlier.length === 0 ? '' : earlier.length === 1 ? ` (the first search: ${earlier[0]})` : ` (the earlier searches: ${earlier.join('; ')})`;
    const message = `No route to ${payment.destination} in ${payment.currency} for ${formatMinor(payment.amount)} within ${payment.budget} hop(s) and maxFee: ${why}${before}`;
    // The detail's own message is already in the error's; the rest rides beside `code` (merged into `error`).
    const context = detail ? { reason: detail.reason, max_sendable: detail.max_sendable, ...(detail.hop !== undefined ? { hop: detail.hop } : {}) } : undefined;
    this.#fail(payment.hash, new ApiError('no_route', 400, message, context));
  }

  /** The search failed where a second one may succeed: the send that waits for it makes that one (SearchAgain). */
  #searchAgain(payment: PaymentRow, again: SearchAgain): void {
    if (this.#searchFailed(payment.hash, again.why)) this.#fail(payment.hash, again);
  }

  /** Records that a search found no route (false when it had ended otherwise meanwhile). */
  #searchFailed(hash: string, why: string): boolean {
    return this.ctx.db.tx(() => {
      if (this.store.payment(hash)?.status !== 'searching') return false;
      this.store.patchPayment(hash, { status: 'failed', failureReason: `no_route: ${why}` }, this.ctx.clock.now());
      return true;
    });
  }

  /** The route is chosen (fast: the first; best-fee: the cheapest), or waits for the operator's approval. */
  #decide(payment: PaymentRow): void {
    this.#searches.inc({ outcome: 'found' });
    // A split's part is paid with the others, by the split (it was asked for explicitly: no approval step).
    if (payment.splitGroup) {
      this.#answer(payment.hash);
      return;
    }
    const candidates = this.store.candidates(payment.hash);
    // A clearing moves no one's net position: it needs no approval.
    if (this.ctx.settings.get('autoAcceptTransaction') === false && !payment.clearing) {
      this.ctx.db.tx(() => this.store.patchPayment(payment.hash, { status: 'awaiting_approval' }, this.ctx.clock.now()));
      this.ctx.events.publish(ROUTING_EVENTS.awaitingApproval, { hash: payment.hash });
      this.#answer(payment.hash);
      return;
    }
    try {
      this.execute(payment.hash, candidates[0]!.id);
    } catch (err) {
      const reason = `p2p_error: ${err instanceof Error ? err.message : String(err)}`;
      this.ctx.db.tx(() => this.store.patchPayment(payment.hash, { status: 'failed', failureReason: reason }, this.ctx.clock.now()));
      this.#fail(payment.hash, err);
      return;
    }
    // The first leg's prepare is written on the socket in this turn (after the promise callbacks); the REST answer,
    // which would be built in those callbacks, waits for the next turn so that the payment moves first.
    setImmediate(() => this.#answer(payment.hash));
  }

  /**
   * Pays along a candidate: the first leg is prepared toward its contact and the destination is sent its note; the
   * other candidates are cancelled. Throws ApiError (`p2p_error`) when the payment cannot be executed any more.
   */
  execute(hash: string, candidateId: number): string {
    const legs = this.#legs!;
    const now = this.ctx.clock.now();
    const { txid, others, payment } = this.ctx.db.tx(() => {
      const payment = this.store.payment(hash)!;
      if (payment.status !== 'searching' && payment.status !== 'awaiting_approval') {
        throw new ApiError('p2p_error', 400, `The P2P transaction ${hash} is ${payment.status}`);
      }
      if (payment.expiresAt <= now) throw new ApiError('p2p_error', 400, `The route search ${hash} expired`);
      const c = this.store.candidate(candidateId)!;
      const expiresAt = now + legs.windowMs();
      const prepared = this.ledger.prepareLeg({
        contactHash: c.contactHash,
        amount: c.amount,
        currency: payment.currency,
        routeHash: hash,
        condition: c.condition,
        expiresAt,
        relay: false,
        description: payment.description,
        recipientAddress: payment.destination,
        refundOf: payment.refundOf,
        clearing: payment.clearing,
      });
      this.#recordFirstLeg(hash, payment.budget - 1, c, prepared.tx, prepared.statement, expiresAt, now);
      this.store.patchPayment(hash, { status: 'executing', txid: prepared.tx.txid, candidateId }, now);
      // The destination's note (the description); a clearing's destination is this node.
      if (!payment.clearing) {
        this.ctx.peer.enqueue(
          { pubkeyHash: null, sealingKey: null, addresses: { [kindOf(payment.destination)]: payment.destination } },
          { type: MSG.note, hash, secret: payment.secret, description: payment.description, origin_address: this.#ownAddress(), ...this.#splitNote(payment) },
          { messageId: `note_${hash}` },
        );
      }
      return { txid: prepared.tx.txid, others: this.store.candidates(hash).filter((o) => o.id !== candidateId), payment };
    });
    legs.send(txid);
    for (const o of others) this.#cancel(hash, o.contactHash, payment.budget);
    return txid;
  }

  #recordFirstLeg(hash: string, budget: number, c: CandidateRow, tx: LedgerTx, statement: LegStatement, expiresAt: number, now: number): void {
    this.store.insertLeg({
      txid: tx.txid,
      hash,
      role: 'out',
      contactHash: c.contactHash,
      partnerTxid: null,
      budget,
      statement: statement.content,
      signature: statement.signature,
      recipientSignature: null,
      state: 'preparing',
      notice: 'prepare',
      nextAt: now,
      expiresAt,
      createdAt: now,
    });
  }

  /** The operator refuses the payment: cancelled, and every route offered is released. */
  reject(hash: string, reason: string): void {
    const payment = this.store.payment(hash)!;
    const candidates = this.store.candidates(hash);
    this.ctx.db.tx(() => {
      this.store.patchPayment(hash, { status: 'cancelled', failureReason: reason }, this.ctx.clock.now());
      this.store.deleteCandidates(hash);
    });
    for (const c of candidates) this.#cancel(hash, c.contactHash, payment.budget);
    this.#answer(hash);
  }

  // ---- outcomes of the first leg (Legs hooks) and of its chain entry (ledger onFinal)

  legRejected(hash: string, reason: string): void {
    this.store.patchPayment(hash, { status: 'cancelled', failureReason: reason }, this.ctx.clock.now());
    const payment = this.store.payment(hash);
    if (payment?.splitGroup) this.abortSplit(payment);
  }

  /**
   * Tells a split's destination to release every part it holds (inside a transaction): one part failed, so none may
   * complete. Only the originator knows the group's secret, which the destination checks.
   */
  abortSplit(payment: PaymentRow): void {
    this.ctx.peer.enqueue(
      { pubkeyHash: null, sealingKey: null, addresses: { [kindOf(payment.destination)]: payment.destination } },
      { type: MSG.splitAbort, group: payment.splitGroup, secret: payment.splitSecret },
      { messageId: `split_abort_${payment.splitGroup}` },
    );
  }

  /** A split part's note names its group (by the secret) and the whole the destination waits for. */
  #splitNote(payment: PaymentRow): Record<string, unknown> {
    if (!payment.splitGroup) return {};
    const total = this.store.splitParts(payment.splitGroup).reduce((sum, p) => sum + p.amount, 0n);
    return { split: { secret: payment.splitSecret, total: total.toString() } };
  }

  /** Inside the transaction that makes this node's first leg final. */
  onFinal = (tx: LedgerTx): void => {
    if (!tx.outgoing || !tx.condition) return;
    const payment = this.store.paymentByTxid(tx.txid);
    if (!payment || payment.status !== 'executing') return;
    const status = tx.status === 'completed' ? 'completed' : tx.status === 'cancelled' ? 'cancelled' : 'failed';
    this.store.patchPayment(payment.hash, { status, failureReason: tx.status === 'completed' ? null : tx.failureReason }, this.ctx.clock.now());
    if (payment.clearing && status === 'completed') {
      const done = { hash: payment.hash, currency: payment.currency, amount: formatMinor(payment.amount) };
      this.ctx.db.afterCommit(() => this.ctx.events.publish(ROUTING_EVENTS.clearingDone, done));
    }
  };

  // ---- destination side: the originator's note

  handleNote = (m: InboundPeerMessage): Record<string, unknown> => {
    const note = parseNote(m.payload);
    const state = this.discovery.state(note.hash);
    if (!state || state.role !== 'destination') throw new PeerRefusal(REFUSAL.unknownRoute, 'no route with this hash ends here');
    // Only the originator knows the secret behind the salt the route hash commits to.
    if (sha256Hex(Buffer.from(note.secret, 'hex')) !== state.req.salt) throw new PeerRefusal(REFUSAL.mismatch, 'the secret does not open this route');
    this.ctx.db.tx(() => {
      this.store.saveNote(note.hash, note.description, note.originAddress, this.ctx.clock.now());
      for (const leg of this.store.legsOf(note.hash)) {
        if (leg.role !== 'in') continue;
        this.describe(note.hash, leg.txid);
        // A leg fulfilled before its note came completes now, description and all.
        if (leg.state === 'fulfilled') this.ledger.settleLeg(leg.txid);
      }
      // A split's part: the whole its group waits for (the parts held here may all be there now).
      if (note.split) this.splits.noted(note.hash, note.split);
    });
    return { status: 'noted' };
  };

  /** Puts the originator's description on the destination's leg (inside a transaction); false while no note came. */
  describe(hash: string, txid: string): boolean {
    const note = this.store.note(hash);
    if (note?.description) this.ledger.describe(txid, note.description);
    return note !== null;
  }

  // ---- expiry (the p2p sweep)

  sweep(now: number): void {
    for (const p of this.store.expiredPayments(now)) {
      const candidates = this.store.candidates(p.hash);
      this.ctx.db.tx(() => {
        this.store.patchPayment(p.hash, { status: candidates.length === 0 ? 'failed' : 'cancelled', failureReason: 'expired: no route was chosen within p2pExpiration' }, now);
        this.store.deleteCandidates(p.hash);
      });
      for (const c of candidates) this.#cancel(p.hash, c.contactHash, p.budget);
      this.#fail(p.hash, new ApiError('no_route', 400, `No route found for ${p.hash} within p2pExpiration`));
    }
  }

  // ---- helpers

  /** Answers the sends waiting on a payment with where it stands. */
  #answer(hash: string): void {
    const waiters = this.#waiters.get(hash);
    if (!waiters) return;
    this.#waiters.delete(hash);
    const payment = this.store.payment(hash)!;
    const candidates = this.store.candidates(hash);
    const chosen = payment.candidateId !== null ? candidates.find((c) => c.id === payment.candidateId) : undefined;
    const outcome: RoutedOutcome = {
      status: payment.status === 'awaiting_approval' ? 'awaiting_approval' : payment.txid ? 'sent' : 'searching',
      hash,
      txid: payment.txid,
      total: chosen ? chosen.amount : null,
      fast: payment.fast,
      candidateCount: candidates.length,
    };
    for (const w of waiters) w.resolve(outcome);
  }

  #fail(hash: string, err: unknown): void {
    const waiters = this.#waiters.get(hash);
    if (!waiters) return;
    this.#waiters.delete(hash);
    for (const w of waiters) w.reject(err);
  }

  #cancel(hash: string, contact: string, budget: number): void {
    this.discovery.cancel(contact, hash, budget - 1);
  }

  #ownAddress(): string | null {
    const a = this.ctx.kernel.node.addresses;
    return a.tor ?? a.https ?? a.http ?? null;
  }
}
