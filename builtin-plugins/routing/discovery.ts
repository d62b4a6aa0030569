/**
 * Route discovery, in memory (docs/protocol.md, "Routing", "Discovery"). Every node keeps, per route hash, one search
 * per hop budget it was asked for: "the cheapest way from here to the destination within `budget` legs". A search asks
 * its contacts holding a line in the currency with `budget - 1` (all but the one whose request started it), and
 * answers each asker with the cheapest route found through a contact other than that asker, plus its own fee for the
 * asker's line, if that line can carry it. A second asker also needs the routes through the first one, so the first
 * asker is asked too once a second one comes. Fast mode answers with the first route found; best-fee once every other
 * branch answered.
 *
 * No search waits on a search of the same or a larger budget, so no two nodes can wait on each other: at budget 0
 * only the destination finds anything, and every dead end answers at once. The result is the cheapest route within
 * the budget (a dynamic programme over the hop count: fees only grow along a route, so a cheaper route downstream is
 * never worse upstream, and a route through a node twice is never cheaper than the same route without the loop), with
 * at most one request per contact and search, and at most `budget` searches per node.
 *
 * What a node offers it reserves on the asker's line (the credit it extends to the asker) until the asker cancels, the
 * leg is prepared, or the search expires, so that concurrent searches cannot both be offered the same credit.
 */
import { createHmac } from 'node:crypto';
import { PeerDeliveryError, PeerRefusal, type InboundPeerMessage, type Minor, type PeerPayload, type PluginContext } from '../../sdk/index.js';
import type { ContactInfo, ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { ClearingTerms } from './store.js';
import {
  answerPayload,
  conditionOf,
  destinationCapacity,
  lineTag,
  MSG,
  offerBytes,
  parseAnswer,
  parseCancel,
  parseRequest,
  parseResponse,
  randomHex,
  REFUSAL,
  relayCapacity,
  relayFee,
  requestPayload,
  routeHash,
  type Capacity,
  type Offer,
  type RouteAnswer,
  type RouteRequest,
} from './protocol.js';

export interface Branch {
  contact: string;
  state: 'asked' | 'none' | 'found';
  offer: Offer | null;
  /** When it answered (arrival order decides in fast mode). */
  seq: number;
  /** The responder's key (base64url) and address, for the candidate listing. */
  publicKey: string | null;
  address: string | null;
}

/** What an originator's search reports to the payment (the originator decides itself; relays answer their askers). */
export interface SearchListener {
  onAnswer(branch: Branch): void;
  /** Every branch answered, or the deadline passed. */
  onComplete(): void;
}

/** What this node offered one asker: `amount` for the route through `via`, which this node pays `pay`. */
export interface Offered {
  amount: Minor;
  via: string;
  pay: Minor;
  hops: number;
  /** A probe's answer (nothing is reserved for it). */
  capacity?: Capacity;
}

interface Asker {
  /** Answered (found or not): its answer does not change any more. */
  answered: boolean;
  offer: Offered | null;
  cancelled: boolean;
  /** Its request is still open: answering resolves the reply. */
  hold: (() => void) | null;
  /** Its request was answered `pending`: the answer goes as a route.response. */
  waiting: boolean;
}

export interface Search {
  /** Legs this node may use from here to the destination. */
  budget: number;
  branches: Map<string, Branch>;
  /** Contacts asked only when the contact known to be the destination finds nothing. */
  fallback: string[];
  askers: Map<string, Asker>;
  /** The asker whose request started the search (not asked back unless another asker needs it). */
  first: string | null;
  /** The branch a prepared leg goes through: the route is fixed, every other offer can go. */
  used: string | null;
  /** Branches told their offer is not needed. */
  released: Set<string>;
  deadline: number;
  expired: boolean;
  listener: SearchListener | null;
  /** Originator: its listener heard that every branch answered. */
  completed: boolean;
}

export interface RouteState {
  req: RouteRequest;
  role: 'origin' | 'relay' | 'destination';
  /** Destination: the preimage only it knows; everyone: the condition routes lock to (the first one seen). */
  preimage: string | null;
  condition: string | null;
  searches: Map<number, Search>;
  /** Destination: what it offered each asker per budget (reserved on the asker's line). */
  offers: Map<string, Minor>;
}

const WINDOW_MS = 60_000;
/**
 * How long a route request's reply waits for the search it started: a search that ends in time is answered in the
 * reply itself (one exchange per hop instead of two), a longer one with a route.response later.
 */
const HOLD_MS = 1500;

export class Discovery {
  readonly #states = new Map<string, RouteState>();
  /** Reserved credit per contact and currency: route hash → budget → amount offered. */
  readonly #reserved = new Map<string, Map<string, Map<number, Minor>>>();
  readonly #requestsBy = new Map<string, number[]>();
  #seq = 0;
  #stopped = false;
  #preimageKey: Buffer | null = null;
  /** Route messages sent since start, by type, for the figures tests and benchmarks print (system metrics). */
  readonly sent = { requests: 0, responses: 0, cancels: 0 };

  constructor(
    private readonly ctx: PluginContext,
    private readonly contacts: ContactsService,
    private readonly ledger: LedgerService,
    /** The terms of the line with a contact for debt-cycle clearing: its switch, and the fee a clearing pays here. */
    private readonly clearingTerms: (contact: string, currency: string) => ClearingTerms,
    /** The preimage the parts of a split payment's group lock to here, its destination; null once the group is over. */
    private readonly splitPreimage: (group: string, hash: string) => string | null,
  ) {}

  /**
   * The preimage this node, as a route's destination, locks its legs to: derived from the node's seed and the route's
   * hash, not drawn. A destination that restarts forgets its routes; when a late search teaches it the route again, it
   * draws the same condition, so the leg a relay locked before the restart can still be paid rather than refused as
   * locked to another route. Only this node can derive it, as only it could know a drawn one.
   */
  #preimageFor(hash: string): string {
    this.#preimageKey ??= this.ctx.identity.storageKey('routing-destination-preimages');
    return createHmac('sha256', this.#preimageKey).update(hash, 'utf8').digest('hex');
  }

  /** The node stops: answers still arriving change nothing (the database is about to close). */
  stop(): void {
    this.#stopped = true;
    this.#states.clear();
    this.#reserved.clear();
  }

  state(hash: string): RouteState | null {
    return this.#states.get(hash) ?? null;
  }

  // ---- reservations

  #reserveKey = (contact: string, currency: string): string => `${contact}:${currency.toLowerCase()}`;

  /** Credit reserved by offers on a contact's line, for every route but `exceptHash` (one offer per route counts). */
  reservedFor(contact: string, currency: string, exceptHash: string | null): Minor {
    const byHash = this.#reserved.get(this.#reserveKey(contact, currency));
    if (!byHash) return 0n;
    let sum = 0n;
    for (const [hash, budgets] of byHash) {
      if (hash === exceptHash) continue;
      let max = 0n;
      for (const amount of budgets.values()) if (amount > max) max = amount;
      sum += max;
    }
    return sum;
  }

  #reserve(contact: string, currency: string, hash: string, budget: number, amount: Minor): void {
    const key = this.#reserveKey(contact, currency);
    const byHash = this.#reserved.get(key) ?? new Map<string, Map<number, Minor>>();
    const budgets = byHash.get(hash) ?? new Map<number, Minor>();
    budgets.set(budget, amount);
    byHash.set(hash, budgets);
    this.#reserved.set(key, byHash);
  }

  #release(contact: string, currency: string, hash: string, budget: number): void {
    const key = this.#reserveKey(contact, currency);
    const byHash = this.#reserved.get(key);
    const budgets = byHash?.get(hash);
    if (!byHash || !budgets) return;
    budgets.delete(budget);
    if (budgets.size === 0) byHash.delete(hash);
    if (byHash.size === 0) this.#reserved.delete(key);
  }

  /** What a contact may still be offered on its line for a route: its free credit here minus other routes' reservations. */
  capacityFor(contact: string, currency: string, hash: string): Minor {
    const free = this.ledger.creditAvailable(contact, currency) - this.reservedFor(contact, currency, hash);
    return free > 0n ? free : 0n;
  }

  /** What this node owes a contact in a currency, from its settled payments (negative: the contact owes this node). */
  owedTo(contact: string, currency: string): Minor {
    const b = this.ledger.balance(contact, currency);
    return b.sent - b.received;
  }

  /**
   * The most an asker may pay this node on a route: the free credit on its line, or in a clearing the debt it cancels
   * (less the legs it has locked here), less what other routes' offers reserved on that line: two clearings at once
   * cannot both be offered one debt, before or after the first one's leg locked.
   */
  #bound(state: RouteState, asker: string): Minor {
    const { currency, hash } = state.req;
    return state.req.clearing ? this.ledger.clearable(asker, currency) - this.reservedFor(asker, currency, hash) : this.capacityFor(asker, currency, hash);
  }

  // ---- originator

  /**
   * Starts this node's own search for a payment it originates: routes of at most `budget` legs, through the contact
   * `via` only when it is given (a part of a split payment follows the route its plan counted on).
   */
  originate(req: RouteRequest, budget: number, listener: SearchListener, deadline: number, via: string | null = null): Search {
    // A clearing's originator is its destination too: it draws the preimage.
    const preimage = req.clearing ? randomHex(32) : null;
    const state: RouteState = { req, role: 'origin', preimage, condition: preimage ? conditionOf(preimage) : null, searches: new Map(), offers: new Map() };
    this.#states.set(req.hash, state);
    return this.#start(state, budget, null, listener, deadline, via);
  }

  /** Forgets a route (it expired): every reservation it holds goes too. */
  forget(hash: string): void {
    if (!this.#states.delete(hash)) return;
    for (const key of [...this.#reserved.keys()]) {
      const byHash = this.#reserved.get(key)!;
      byHash.delete(hash);
      if (byHash.size === 0) this.#reserved.delete(key);
    }
  }

  // ---- messages

  handleRequest = (m: InboundPeerMessage): Record<string, unknown> | Promise<Record<string, unknown>> => {
    const req = parseRequest(m.payload);
    const from = m.sender.pubkeyHash;
    this.#rateLimit(from);
    const now = this.ctx.clock.now();
    if (req.expires <= now) throw new PeerRefusal(REFUSAL.expired, 'the route request expired');
    const allowed = this.ctx.settings.get<string[]>('allowedCurrencies') ?? [];
    const currency = allowed.find((c) => c.toLowerCase() === req.currency.toLowerCase());
    if (!currency) throw new PeerRefusal(REFUSAL.currency, `${req.currency} is not an allowed currency on this node`);
    if (!this.contacts.line(from, currency)) throw new PeerRefusal(REFUSAL.notAccepted, `no accepted ${currency} line with you on this node`);
    if (req.clearing && (this.ctx.settings.get('autoCycleClearing') !== true || !this.clearingTerms(from, currency).enabled)) {
      throw new PeerRefusal(REFUSAL.clearingOff, 'this node, or its line with you, takes no part in debt-cycle clearing');
    }
    if (!req.probe && req.amount > this.capacityFor(from, currency, req.hash)) {
      throw new PeerRefusal(REFUSAL.insufficientCredit, 'the credit this node extends to you cannot carry the amount');
    }
    let state = this.#states.get(req.hash);
    if (!state) {
      const destination = this.#isOwn(req);
      const preimage = !destination ? null : req.split ? this.splitPreimage(req.split, req.hash) : this.#preimageFor(req.hash);
      state = { req, role: destination ? 'destination' : 'relay', preimage, condition: preimage ? conditionOf(preimage) : null, searches: new Map(), offers: new Map() };
      this.#states.set(req.hash, state);
    } else if (state.req.salt !== req.salt || state.req.time !== req.time || state.req.amount !== req.amount || state.req.currency.toLowerCase() !== req.currency.toLowerCase()) {
      throw new PeerRefusal(REFUSAL.mismatch, 'this route hash is known here with other terms');
    }
    // The originator never relays its own payment: a route back through it is a loop. A clearing ends there.
    if (state.role === 'origin') return answered(state.req.clearing ? this.#destinationOffer(state, from, req.budget) : { found: false });
    if (state.role === 'destination') return answered(this.#destinationOffer(state, from, req.budget));
    if (req.budget === 0) return answered({ found: false });
    const search = state.searches.get(req.budget) ?? this.#start(state, req.budget, from, null, this.#relayDeadline(req, now));
    const asker = this.#asker(state, search, from);
    if (asker.answered) return answered(this.#answerOf(asker, state, search));
    const open = state;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        asker.hold = null;
        asker.waiting = true;
        resolve({ status: 'pending' });
      }, HOLD_MS);
      timer.unref();
      asker.hold = () => {
        clearTimeout(timer);
        asker.hold = null;
        resolve(answered(this.#answerOf(asker, open, search)));
      };
    });
  };

  handleResponse = (m: InboundPeerMessage): Record<string, unknown> => {
    const { hash, budget, answer } = parseResponse(m.payload);
    const state = this.#states.get(hash);
    const search = state?.searches.get(budget + 1);
    const branch = search?.branches.get(m.sender.pubkeyHash);
    if (!state || !search || !branch || branch.state !== 'asked') {
      // Nobody here waits for it any more: the offer's reservation is released at once.
      if (answer.found) this.cancel(m.sender.pubkeyHash, hash, budget);
      return { status: 'ignored' };
    }
    this.#answered(state, search, branch.contact, answer, m.sender.publicKey.toString('base64url'));
    return { status: 'received' };
  };

  handleCancel = (m: InboundPeerMessage): Record<string, unknown> => {
    const { hash, budget } = parseCancel(m.payload);
    if (!this.#states.has(hash)) return { status: 'ignored' };
    this.dropOffer(hash, budget, m.sender.pubkeyHash);
    return { status: 'cancelled' };
  };

  /** Marks the search an incoming leg was prepared on: the route is fixed, every other offer of the search can go. */
  markUsed(hash: string, budget: number, asker: string): void {
    const found = this.#unreserve(hash, budget, asker);
    const offer = found?.asker.offer;
    if (!found || !offer) return;
    found.search.used = offer.via;
    this.#prune(found.state, found.search);
  }

  /**
   * The asker does not need the offer (it cancelled, or its prepare was refused: that payment will not use the route):
   * its reservation goes at once, and with it, once nobody else needs them, the offers downstream.
   */
  dropOffer(hash: string, budget: number, asker: string): void {
    const found = this.#unreserve(hash, budget, asker);
    if (!found) return;
    found.asker.cancelled = true;
    found.asker.offer = null;
    found.asker.waiting = false;
    this.#prune(found.state, found.search);
  }

  /** Releases what was reserved for an asker's offer; its search and asker record, when there are. */
  #unreserve(hash: string, budget: number, from: string): { state: RouteState; search: Search; asker: Asker } | null {
    const state = this.#states.get(hash);
    if (!state) return null;
    this.#release(from, state.req.currency, hash, budget);
    state.offers.delete(`${from}:${budget}`);
    const search = state.searches.get(budget);
    const asker = search?.askers.get(from);
    return search && asker ? { state, search, asker } : null;
  }

  /** What this search offered an asker (the route a prepare from it must follow). */
  offerTo(hash: string, budget: number, asker: string): Offered | null {
    return this.#states.get(hash)?.searches.get(budget)?.askers.get(asker)?.offer ?? null;
  }

  // ---- searches

  #start(state: RouteState, budget: number, first: string | null, listener: SearchListener | null, deadline: number, via: string | null = null): Search {
    const search: Search = {
      budget,
      branches: new Map(),
      fallback: [],
      askers: new Map(),
      first,
      used: null,
      released: new Set(),
      deadline,
      expired: false,
      listener,
      completed: false,
    };
    state.searches.set(budget, search);
    const own = this.ctx.identity.pubkeyHash;
    const neighbours = this.contacts
      .accepted(state.req.currency)
      .filter((c): c is ContactInfo & { pubkeyHash: string } => !!c.pubkeyHash && c.pubkeyHash !== own && c.pubkeyHash !== first && (via === null || c.pubkeyHash === via))
      // A clearing pays only contacts that owe this node: each leg cancels debt, none creates any.
      .filter((c) => !state.req.clearing || (this.owedTo(c.pubkeyHash, state.req.currency) < 0n && this.clearingTerms(c.pubkeyHash, state.req.currency).enabled));
    // A contact whose address the hash names is the destination: ask it alone first (it is the cheapest route there
    // is, with no fee and one leg), and the others only if its line cannot carry the payment.
    // A probe wants every route, the destination's own line among them.
    const direct = state.req.probe
      ? []
      : neighbours.filter((c) => [c.addresses.http, c.addresses.https, c.addresses.tor].some((a) => !!a && routeHash(a, state.req.salt, state.req.time) === state.req.hash));
    const ask = direct.length ? direct : neighbours;
    search.fallback = direct.length ? neighbours.filter((c) => !direct.includes(c)).map((c) => c.pubkeyHash) : [];
    for (const c of ask) this.#branch(state, search, c.pubkeyHash);
    if (ask.length === 0) queueMicrotask(() => this.#progress(state, search));
    return search;
  }

  #branch(state: RouteState, search: Search, contact: string): void {
    if (search.branches.has(contact)) return;
    const c = this.contacts.get(contact);
    search.branches.set(contact, { contact, state: 'asked', offer: null, seq: 0, publicKey: null, address: this.#addressOf(c) });
    void this.#ask(state, search, contact);
  }

  #asker(state: RouteState, search: Search, from: string): Asker {
    let asker = search.askers.get(from);
    if (!asker) {
      asker = { answered: false, offer: null, cancelled: false, hold: null, waiting: false };
      search.askers.set(from, asker);
      // Another asker may need the routes through the one whose request started the search.
      if (search.first && search.first !== from && !search.branches.has(search.first) && !search.fallback.includes(search.first)) {
        // While the destination's own line is being tried, the first asker waits with the other fallbacks.
        if (search.fallback.length) search.fallback.push(search.first);
        else this.#branch(state, search, search.first);
      }
      this.#progress(state, search);
    }
    return asker;
  }

  async #ask(state: RouteState, search: Search, contact: string): Promise<void> {
    const target = this.contacts.target(contact);
    const payload = requestPayload({ ...state.req, budget: search.budget - 1 });
    let answer: RouteAnswer = { found: false };
    let publicKey: string | null = null;
    try {
      if (!target) throw new PeerDeliveryError('no_target', 'the contact has no known keys or address');
      this.sent.requests++;
      const reply = await this.ctx.peer.request(target, payload);
      publicKey = reply.sender.publicKey.toString('base64url');
      if (reply.ok && reply.data.status === 'pending') return; // a route.response follows
      if (reply.ok && reply.data.status === 'answered') answer = parseAnswer(reply.data.response);
    } catch (err) {
      if (err instanceof PeerDeliveryError) this.#deadLetter(MSG.request, `${state.req.hash}:${search.budget - 1}:${contact}`, contact, payload, err);
      else if (!(err instanceof PeerRefusal)) this.ctx.log.warn('route request failed', { error: err instanceof Error ? err.message : String(err) });
    }
    if (this.#stopped || this.#states.get(state.req.hash) !== state) return;
    this.#answered(state, search, contact, answer, publicKey);
  }

  #answered(state: RouteState, search: Search, contact: string, answer: RouteAnswer, publicKey: string | null): void {
    const branch = search.branches.get(contact);
    if (!branch || branch.state !== 'asked') return;
    // Every route to one destination locks to the condition its destination made; another one cannot be paid.
    const usable = answer.found && (state.condition === null || answer.condition === state.condition);
    branch.seq = ++this.#seq;
    branch.publicKey = publicKey;
    if (usable) {
      state.condition ??= answer.condition;
      branch.state = 'found';
      branch.offer = answer;
    } else {
      branch.state = 'none';
      if (answer.found) this.cancel(contact, state.req.hash, search.budget - 1);
    }
    if (search.listener) search.listener.onAnswer(branch);
    this.#progress(state, search);
  }

  /** After any answer: ask the fallback contacts if the direct one found nothing, answer every asker that can be. */
  #progress(state: RouteState, search: Search): void {
    const settled = [...search.branches.values()].every((b) => b.state !== 'asked');
    if (settled && search.fallback.length) {
      // The destination's own line carried it (no route is cheaper than that one), or the others are needed now.
      const more = search.fallback;
      search.fallback = [];
      if (![...search.branches.values()].some((b) => b.state === 'found')) {
        for (const c of more) this.#branch(state, search, c);
        return;
      }
    }
    if (search.listener) {
      if (!search.completed && (search.expired || (settled && search.fallback.length === 0))) {
        search.completed = true;
        search.listener.onComplete();
      }
      return;
    }
    for (const [contact, asker] of search.askers) {
      if (asker.answered || asker.cancelled) continue;
      const pick = this.#pick(state, search, contact);
      if (pick === undefined) continue;
      asker.answered = true;
      asker.offer = pick ? this.#offerFor(state, search, contact, pick) : null;
      if (asker.hold) asker.hold();
      else if (asker.waiting) {
        asker.waiting = false;
        void this.#respond(state, search.budget, contact, this.#answerOf(asker, state, search));
      }
    }
    this.#prune(state, search);
  }

  /**
   * The route for one asker, among the branches other than itself: the first found (fast mode) or the cheapest once
   * they all answered (best-fee, fewest legs on a tie); null when there is none; undefined while it is too early.
   */
  #pick(state: RouteState, search: Search, asker: string): Branch | null | undefined {
    const others = [...search.branches.values()].filter((b) => b.contact !== asker);
    const found = others.filter((b) => b.state === 'found' && !search.released.has(b.contact));
    if (state.req.fast && found.length) return found.reduce((a, b) => (b.seq < a.seq ? b : a));
    const pendingFallback = search.fallback.some((c) => c !== asker);
    if (!search.expired && (others.some((b) => b.state === 'asked') || pendingFallback)) return undefined;
    if (state.req.probe) return widest(found);
    let best: Branch | null = null;
    for (const b of found) {
      const o = b.offer!;
      const cur = best?.offer;
      if (!cur || o.amount < cur.amount || (o.amount === cur.amount && (o.hops < cur.hops || (o.hops === cur.hops && b.contact < best!.contact)))) best = b;
    }
    return best;
  }

  #offerFor(state: RouteState, search: Search, asker: string, via: Branch): Offered | null {
    const line = this.contacts.line(asker, state.req.currency);
    if (!line) return null;
    const pay = via.offer!.amount;
    // A clearing carries no fee unless the line's clearing terms name one, and an asker may clear at most what this
    // node owes it.
    const fee = state.req.clearing ? this.clearingTerms(asker, state.req.currency).feePercent : line.feePercent;
    const offered: Offered = { amount: pay + relayFee(pay, fee), via: via.contact, pay, hops: via.offer!.hops + 1 };
    const credit = this.#bound(state, asker);
    if (state.req.probe) {
      const downstream = via.offer!.capacity;
      const line = lineTag(state.req.hash, this.ctx.identity.pubkeyHash, asker);
      return downstream ? { ...offered, capacity: relayCapacity(downstream, via.offer!.hops, fee, credit, line) } : null;
    }
    if (offered.amount > credit) return null;
    this.#reserve(asker, state.req.currency, state.req.hash, search.budget, offered.amount);
    return offered;
  }

  #answerOf(asker: Asker, state: RouteState, search: Search): RouteAnswer {
    const o = asker.offer;
    if (!o || !state.condition) return { found: false };
    return {
      found: true,
      amount: o.amount,
      hops: o.hops,
      condition: state.condition,
      signature: this.#sign(state, search.budget, o.amount, o.hops),
      ...(o.capacity ? { capacity: o.capacity } : {}),
    };
  }

  /**
   * Releases the offers no asker needs any more: every found branch but the used one once a leg was prepared, and
   * every one when all askers are answered and none uses it (fast mode: at once; best-fee: once the askers cancelled,
   * since a later asker may still want the cheapest of them).
   */
  #prune(state: RouteState, search: Search): void {
    if (search.listener) return;
    // Askers that may still take a route from this search: not cancelled, and not answered without one.
    const live = [...search.askers.values()].filter((a) => !a.cancelled && (!a.answered || a.offer !== null));
    const pending = live.some((a) => !a.answered);
    const inUse = new Set(live.map((a) => a.offer?.via).filter((v): v is string => !!v));
    const keepUnused = !search.used && !state.req.fast && live.length > 0;
    for (const b of search.branches.values()) {
      if (b.state !== 'found' || search.released.has(b.contact)) continue;
      const needed = search.used ? b.contact === search.used : pending || inUse.has(b.contact) || keepUnused;
      if (needed) continue;
      search.released.add(b.contact);
      this.cancel(b.contact, state.req.hash, search.budget - 1);
    }
  }

  #destinationOffer(state: RouteState, asker: string, budget: number): RouteAnswer {
    const { req } = state;
    const bound = this.#bound(state, asker);
    if (req.probe && state.condition) {
      const capacity = destinationCapacity(bound > 0n ? bound : 0n, lineTag(req.hash, this.ctx.identity.pubkeyHash, asker));
      return { found: true, amount: req.amount, hops: 0, condition: state.condition, signature: this.#sign(state, budget, req.amount, 0), capacity };
    }
    if (req.amount > bound || !state.condition) return { found: false };
    this.#reserve(asker, req.currency, req.hash, budget, req.amount);
    state.offers.set(`${asker}:${budget}`, req.amount);
    return { found: true, amount: req.amount, hops: 0, condition: state.condition, signature: this.#sign(state, budget, req.amount, 0) };
  }

  #sign(state: RouteState, budget: number, amount: Minor, hops: number): string {
    const { req } = state;
    return this.ctx.identity.sign(offerBytes({ hash: req.hash, budget, amount, hops, condition: state.condition!, currency: req.currency })).toString('base64url');
  }

  async #respond(state: RouteState, budget: number, asker: string, answer: RouteAnswer): Promise<void> {
    const target = this.contacts.target(asker);
    const payload = { type: MSG.response, hash: state.req.hash, budget, ...answerPayload(answer) };
    for (let attempt = 1; ; attempt++) {
      try {
        if (!target) throw new PeerDeliveryError('no_target', 'the contact has no known keys or address');
        this.sent.responses++;
        await this.ctx.peer.request(target, payload);
        return;
      } catch (err) {
        const failure = err instanceof PeerDeliveryError ? err : new PeerDeliveryError('error', err instanceof Error ? err.message : String(err));
        if (attempt < 2 && failure.transient && !this.#stopped) {
          await new Promise((r) => setTimeout(r, 200).unref());
          continue;
        }
        if (this.#stopped) return;
        this.#release(asker, state.req.currency, state.req.hash, budget);
        const a = state.searches.get(budget)?.askers.get(asker);
        if (a) a.cancelled = true;
        this.#deadLetter(MSG.response, `${state.req.hash}:${budget}:${asker}`, asker, payload, failure);
        return;
      }
    }
  }

  /** Tells a contact its offer for this route is not needed (it releases the reservation, and so on downstream). */
  cancel(contact: string, hash: string, budget: number): void {
    const target = this.contacts.target(contact);
    if (!target || this.#stopped) return;
    this.sent.cancels++;
    this.ctx.peer.request(target, { type: MSG.cancel, hash, budget }).catch(() => undefined);
  }

  // ---- helpers

  #isOwn(req: RouteRequest): boolean {
    const own = this.ctx.kernel.node.addresses;
    return [own.http, own.https, own.tor].some((a) => !!a && routeHash(a, req.salt, req.time) === req.hash);
  }

  #addressOf(c: ContactInfo | null): string | null {
    if (!c) return null;
    return this.ctx.peer.firstAddress(c.addresses) ?? c.addresses.tor ?? c.addresses.https ?? c.addresses.http ?? null;
  }

  /**
   * A relay answers its askers before they give up: a third of the time left, so each level of the search ends
   * before the one that asked it (the originator collects for half of the window).
   */
  #relayDeadline(req: RouteRequest, now: number): number {
    return now + Math.max(0, Math.floor((req.expires - now) / 3));
  }

  #rateLimit(sender: string): void {
    const limit = Number(this.ctx.settings.get<number>('p2pRateLimitPerMinute') ?? 60);
    const now = this.ctx.clock.now();
    const times = (this.#requestsBy.get(sender) ?? []).filter((t) => t > now - WINDOW_MS);
    if (times.length >= limit) {
      this.#requestsBy.set(sender, times);
      throw new PeerRefusal(REFUSAL.rateLimited, `more than ${limit} route requests per minute`);
    }
    times.push(now);
    this.#requestsBy.set(sender, times);
  }

  #deadLetter(type: string, messageId: string, contact: string, payload: PeerPayload, failure: PeerDeliveryError): void {
    if (this.#stopped) return;
    const target = this.contacts.target(contact) ?? { pubkeyHash: contact, addresses: {} };
    try {
      this.ctx.db.tx(() =>
        this.ctx.peer.deadLetter({ messageId, type, target, payload, attempts: 1, reason: `${failure.code}: ${failure.message}` }),
      );
    } catch (err) {
      this.ctx.log.warn('route message not parked', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Deadlines and expiries (the p2p processor's sweep): searches past their deadline answer with what they have. */
  sweep(now: number): void {
    for (const [hash, state] of this.#states) {
      const gone = state.req.expires <= now;
      for (const search of state.searches.values()) {
        if (search.expired || (search.deadline > now && !gone)) continue;
        search.expired = true;
        search.fallback = [];
        this.#progress(state, search);
      }
      if (gone) this.forget(hash);
    }
    for (const [sender, times] of this.#requestsBy) if (!times.some((t) => t > now - WINDOW_MS)) this.#requestsBy.delete(sender);
  }
}

/** The branch of a probe that carries the most (the cheaper on a tie), or null. */
export function widest(found: readonly Branch[]): Branch | null {
  let best: Branch | null = null;
  for (const b of found) {
    const c = b.offer?.capacity;
    const cur = best?.offer?.capacity;
    if (!c) continue;
    if (!cur || c.max > cur.max || (c.max === cur.max && Number(c.rate) < Number(cur.rate))) best = b;
  }
  return best;
}

const answered = (answer: RouteAnswer): Record<string, unknown> => ({ status: 'answered', response: answerPayload(answer) });
