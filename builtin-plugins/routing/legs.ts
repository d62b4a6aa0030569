/**
 * Hash-locked legs (docs/protocol.md, "Routing", "Execution"). The payee of a leg alone decides its fate: it fulfils
 * it (it knows the preimage, from its downstream or because it is the destination) or rejects it (its downstream
 * refused, or the leg reached it after its expiry); the payer follows. So nobody pays downstream without being paid
 * upstream: a relay fulfils its incoming leg with the very preimage that fulfilled its outgoing one, and rejects its
 * incoming leg only once its outgoing leg was rejected. Every decision and the message that announces it commit in one
 * transaction (the leg's `notice`), and the message is sent after commit and again until the peer has it.
 */
import { PeerDeliveryError, PeerRefusal, type InboundPeerMessage, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { LedgerService } from '../ledger/api.js';
import type { Discovery, RouteState } from './discovery.js';
import { conditionOf, MSG, parseFulfil, parsePrepare, parseReject, REFUSAL } from './protocol.js';
import type { LegRow, RoutingStore } from './store.js';

/** What the originator's side hears about its own first leg. */
export interface OriginHooks {
  fulfilled(hash: string, txid: string): void;
  rejected(hash: string, txid: string, reason: string): void;
  /** The originator's note of a payment (its description) onto the destination's leg; false while no note came. */
  describe(hash: string, txid: string): boolean;
}

/** What the destination of split payments (split-receive.ts) hears about the legs of their parts. */
export interface SplitHooks {
  /** Refuses a part's leg once its group is over (inside the transaction that would lock it). */
  admit(group: string): void;
  /** A part's leg `txid` is locked here (inside that transaction). */
  held(group: string, txid: string): void;
}

const DEFAULT_LEG_WINDOW_MS = 120_000;
const MAX_RETRY_MS = 15_000;
/**
 * How long a relay's reply to a prepare waits for its own downstream's answer: a decision within that time travels
 * back in the replies (no separate fulfil or reject message), a later one as a message of its own.
 */
const HOLD_MS = 1500;

export class Legs {
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Incoming legs whose prepare is still open: their decision goes back in its reply. */
  readonly #answering = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #stopped = false;

  constructor(
    private readonly ctx: PluginContext,
    private readonly store: RoutingStore,
    private readonly ledger: LedgerService,
    private readonly contacts: ContactsService,
    private readonly discovery: Discovery,
    private readonly origin: OriginHooks,
    private readonly splits: SplitHooks,
  ) {}

  /**
   * How long the first leg of a route may wait for its payee (Document 2's 120 s delivery window); each relay gives
   * its downstream a twelfth of it less, so a downstream always decides before its upstream's deadline. Tests of
   * expiry shorten it with NODE_ROUTE_LEG_WINDOW_MS (test mode only).
   */
  windowMs(): number {
    const raw = process.env.NODE_ROUTE_LEG_WINDOW_MS;
    if (this.ctx.kernel.node.testMode && raw && /^\d+$/.test(raw)) return Math.max(100, Number(raw));
    return DEFAULT_LEG_WINDOW_MS;
  }

  stepMs(): number {
    return Math.min(10_000, Math.floor(this.windowMs() / 12));
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  // ---- payee side

  handlePrepare = async (m: InboundPeerMessage): Promise<Record<string, unknown>> => {
    const p = parsePrepare(m.payload);
    const from = m.sender.pubkeyHash;
    const txid = txidOf(p.statement);
    const known = txid ? this.store.leg(txid) : null;
    if (known) {
      if (known.role !== 'in' || known.contactHash !== from) throw new PeerRefusal(REFUSAL.mismatch, 'this leg is known here as another');
      return this.#prepareAnswer(known);
    }
    const state = this.discovery.state(p.hash);
    if (!state || (state.role === 'origin' && !state.req.clearing) || !state.condition) throw new PeerRefusal(REFUSAL.unknownRoute, 'no route with this hash is known here (expired, or this node restarted)');
    const now = this.ctx.clock.now();
    let reply: Record<string, unknown>;
    try {
      reply = this.#lockAndPass(m, p, state, now);
    } catch (err) {
      if (err instanceof PeerRefusal) this.discovery.dropOffer(p.hash, p.budget, from);
      throw err;
    }
    this.discovery.markUsed(p.hash, p.budget, from);
    if (typeof reply.out !== 'string') return reply;
    const inTxid = reply.in as string;
    this.#answering.add(inTxid);
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.send(reply.out) ?? Promise.resolve(), new Promise<void>((r) => (timer = setTimeout(r, HOLD_MS)))]);
      clearTimeout(timer);
    } finally {
      this.#answering.delete(inTxid);
    }
    return this.#prepareAnswer(this.store.leg(inTxid)!);
  };

  /**
   * In one transaction: the incoming leg locked (the ledger checks it and the credit), then either fulfilled at once
   * (this node is the destination) or passed on as this node's own leg along the route it offered the payer.
   */
  #lockAndPass(m: InboundPeerMessage, p: ReturnType<typeof parsePrepare>, state: RouteState, now: number): Record<string, unknown> {
    const from = m.sender.pubkeyHash;
    return this.ctx.db.tx((): Record<string, unknown> => {
      const accepted = this.ledger.acceptLeg(m.sender, { content: p.statement, signature: p.signature }, {
        relay: state.role === 'relay',
        reserved: this.discovery.reservedFor(from, state.req.currency, p.hash),
      });
      const leg = accepted.tx;
      if (leg.memo !== p.hash || leg.condition !== state.condition) throw new PeerRefusal(REFUSAL.mismatch, 'the leg is not locked to this route');
      // A clearing's legs say so in their signed content (tx_type clearing), and only a clearing's legs do.
      if ((leg.txType === 'clearing') !== (state.req.clearing === true)) throw new PeerRefusal(REFUSAL.mismatch, 'the leg is not marked as its route is (clearing or not)');
      const base = {
        txid: leg.txid,
        hash: p.hash,
        role: 'in' as const,
        contactHash: from,
        budget: p.budget,
        statement: p.statement,
        signature: p.signature,
        recipientSignature: accepted.recipientSignature,
        expiresAt: accepted.expiresAt,
        createdAt: now,
      };
      // A clearing's originator is its destination: the last leg comes back to it.
      if (state.role === 'destination' || state.role === 'origin') {
        if (leg.amount !== state.req.amount) throw new PeerRefusal(REFUSAL.mismatch, 'the leg does not carry the amount of the route');
        if (state.req.split) {
          // A part of a split payment waits, locked, for the others: the group fulfils them all at once.
          this.splits.admit(state.req.split);
          this.store.insertLeg({ ...base, partnerTxid: null, state: 'locked', notice: null, nextAt: 0 });
          this.splits.held(state.req.split, leg.txid);
          return this.#prepareAnswer(this.store.leg(leg.txid)!);
        }
        // The destination decides at once: it holds the preimage. It is paid once it fulfils, and completes the leg
        // then if the originator's note (the description) is here (a clearing's originator needs none); else when the
        // note or the chain entry comes.
        if (state.role === 'origin' || this.origin.describe(p.hash, leg.txid)) this.ledger.settleLeg(leg.txid, state.preimage!);
        else this.ledger.fulfilLeg(leg.txid, state.preimage!);
        this.store.insertLeg({ ...base, partnerTxid: null, state: 'fulfilled', notice: null, nextAt: 0 });
        this.store.patchLeg(leg.txid, { fulfillment: state.preimage! }, now);
        return { status: 'fulfilled', fulfillment: state.preimage!, recipient_signature: accepted.recipientSignature };
      }
      const offered = this.discovery.offerTo(p.hash, p.budget, from);
      if (!offered) throw new PeerRefusal(REFUSAL.unknownRoute, 'this node offered you no route for this budget');
      if (offered.amount !== leg.amount) throw new PeerRefusal(REFUSAL.mismatch, 'the leg does not carry the amount this node offered you');
      const expiresOut = accepted.expiresAt - this.stepMs();
      if (expiresOut <= now) throw new PeerRefusal(REFUSAL.expired, 'too little time is left to pass the leg on');
      const out = this.ledger.prepareLeg({
        contactHash: offered.via,
        amount: offered.pay,
        currency: leg.currency,
        routeHash: p.hash,
        condition: state.condition!,
        expiresAt: expiresOut,
        relay: true,
        clearing: state.req.clearing === true,
      });
      this.store.insertLeg({ ...base, partnerTxid: out.tx.txid, state: 'locked', notice: null, nextAt: 0 });
      this.store.insertLeg({
        txid: out.tx.txid,
        hash: p.hash,
        role: 'out',
        contactHash: offered.via,
        partnerTxid: leg.txid,
        budget: p.budget - 1,
        statement: out.statement.content,
        signature: out.statement.signature,
        recipientSignature: null,
        state: 'preparing',
        notice: 'prepare',
        nextAt: now,
        expiresAt: expiresOut,
        createdAt: now,
      });
      return { status: 'locked', recipient_signature: accepted.recipientSignature, out: out.tx.txid, in: leg.txid };
    });
  }

  #prepareAnswer(leg: LegRow): Record<string, unknown> {
    if (leg.state === 'rejected') throw new PeerRefusal(REFUSAL.rejected, leg.reason ?? 'the leg was rejected');
    if (leg.state === 'fulfilled') return { status: 'fulfilled', fulfillment: leg.fulfillment, recipient_signature: leg.recipientSignature };
    return { status: 'locked', recipient_signature: leg.recipientSignature };
  }

  // ---- payer side

  handleFulfil = (m: InboundPeerMessage): Record<string, unknown> => {
    const { txid, fulfillment } = parseFulfil(m.payload);
    const leg = this.#outgoing(txid, m.sender.pubkeyHash);
    this.ctx.db.tx(() => this.fulfilled(leg.txid, fulfillment));
    return { status: 'fulfilled' };
  };

  handleReject = (m: InboundPeerMessage): Record<string, unknown> => {
    const { txid, reason } = parseReject(m.payload);
    const leg = this.#outgoing(txid, m.sender.pubkeyHash);
    if (leg.state === 'fulfilled') {
      this.ctx.log.error('a payee rejected a leg it had fulfilled', { txid, reason });
      return { status: 'ignored' };
    }
    this.ctx.db.tx(() => this.rejected(leg.txid, `rejected by the payee: ${reason}`));
    return { status: 'cancelled' };
  };

  #outgoing(txid: string, from: string): LegRow {
    const leg = this.store.leg(txid);
    if (!leg || leg.role !== 'out' || leg.contactHash !== from) throw new PeerRefusal(REFUSAL.unknownLeg, 'no leg of yours with this txid is known here');
    return leg;
  }

  /**
   * The payee fulfilled an outgoing leg (call inside a transaction): it settles as a chain entry, and a relay fulfils
   * its incoming leg with the same preimage and tells its payer.
   */
  fulfilled(txid: string, fulfillment: string): void {
    const leg = this.store.leg(txid)!;
    if (leg.state === 'fulfilled') return;
    if (leg.state === 'rejected') {
      this.ctx.log.error('a leg released here was fulfilled by its payee', { txid });
      return;
    }
    const row = this.ledger.get(txid);
    if (!row?.condition || conditionOf(fulfillment) !== row.condition) throw new PeerRefusal(REFUSAL.badFulfillment, 'the fulfillment is not the preimage of the condition');
    const now = this.ctx.clock.now();
    this.ledger.fulfilLeg(txid, fulfillment);
    this.store.patchLeg(txid, { state: 'fulfilled', notice: null, fulfillment, lastError: null }, now);
    if (leg.partnerTxid) {
      // While the upstream's prepare is still open, the reply carries the preimage: no message of its own.
      const notice = this.#answering.has(leg.partnerTxid) ? null : 'fulfil';
      // Paid upstream the moment it fulfils there: the incoming leg completes before its chain entry comes.
      this.ledger.settleLeg(leg.partnerTxid, fulfillment);
      this.store.patchLeg(leg.partnerTxid, { state: 'fulfilled', notice, fulfillment, attempts: 0, nextAt: now }, now);
      const upstream = leg.partnerTxid;
      if (notice) this.ctx.db.afterCommit(() => this.send(upstream));
    } else this.origin.fulfilled(leg.hash, txid);
  }

  /** The payee rejected an outgoing leg (call inside a transaction): released here, and a relay rejects its incoming leg. */
  rejected(txid: string, reason: string): void {
    const leg = this.store.leg(txid)!;
    if (leg.state === 'fulfilled' || leg.state === 'rejected') return;
    const now = this.ctx.clock.now();
    this.ledger.cancelLeg(txid, reason);
    this.store.patchLeg(txid, { state: 'rejected', notice: null, reason }, now);
    if (leg.partnerTxid) {
      const notice = this.#answering.has(leg.partnerTxid) ? null : 'reject';
      this.ledger.cancelLeg(leg.partnerTxid, reason);
      this.store.patchLeg(leg.partnerTxid, { state: 'rejected', notice, reason, attempts: 0, nextAt: now }, now);
      const upstream = leg.partnerTxid;
      if (notice) this.ctx.db.afterCommit(() => this.send(upstream));
    } else this.origin.rejected(leg.hash, txid, reason);
  }

  // ---- delivery of what a leg owes its peer

  /**
   * Sends the message a leg owes its peer now (prepare to the payee; fulfil or reject to the payer); the promise ends
   * once the answer is recorded (null when nothing is owed).
   */
  send(txid: string): Promise<void> | null {
    if (this.#stopped) return null;
    const running = this.#inFlight.get(txid);
    if (running) return running;
    const leg = this.store.leg(txid);
    if (!leg?.notice) return null;
    const attempt = this.#deliver(leg)
      .catch((err: unknown) => {
        // Only when the node stops under it (the database closed): the next start sends it again.
        if (!this.#stopped) this.ctx.log.error('leg message not recorded', { txid, error: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => this.#inFlight.delete(txid));
    this.#inFlight.set(txid, attempt);
    return attempt;
  }

  async #deliver(leg: LegRow): Promise<void> {
    const target = this.contacts.target(leg.contactHash);
    const payload =
      leg.notice === 'prepare'
        ? { type: MSG.prepare, hash: leg.hash, budget: leg.budget, statement: leg.statement, signature: leg.signature }
        : leg.notice === 'fulfil'
          ? { type: MSG.fulfil, txid: leg.txid, fulfillment: leg.fulfillment }
          : { type: MSG.reject, txid: leg.txid, reason: leg.reason ?? 'rejected' };
    try {
      if (!target) throw new PeerDeliveryError('no_target', 'the contact has no known keys or address');
      const reply = await this.ctx.peer.request(target, payload);
      if (this.#stopped) return;
      this.ctx.db.tx(() => {
        const fresh = this.store.leg(leg.txid);
        if (!fresh || fresh.notice !== leg.notice) return;
        if (leg.notice !== 'prepare') {
          if (!reply.ok) this.ctx.log.warn('a leg notice was refused', { txid: leg.txid, notice: leg.notice, code: reply.error?.code });
          this.store.patchLeg(leg.txid, { notice: null, lastError: null }, this.ctx.clock.now());
          return;
        }
        if (!reply.ok) return this.rejected(leg.txid, `${reply.error?.code ?? 'refused'}: ${reply.error?.message ?? ''}`);
        const data = reply.data;
        if (data.status === 'fulfilled' && typeof data.fulfillment === 'string') return this.fulfilled(leg.txid, data.fulfillment);
        this.ledger.legLocked(leg.txid);
        this.store.patchLeg(
          leg.txid,
          { state: 'locked', notice: null, lastError: null, recipientSignature: typeof data.recipient_signature === 'string' ? data.recipient_signature : null },
          this.ctx.clock.now(),
        );
      });
    } catch (err) {
      if (this.#stopped) return;
      const reason = err instanceof Error ? err.message : String(err);
      if (!(err instanceof PeerDeliveryError)) this.ctx.log.error('leg message failed', { txid: leg.txid, notice: leg.notice, error: reason });
      // Until the peer answers, the leg's fate is its to say: the message goes again, later and later.
      this.ctx.db.tx(() => {
        const fresh = this.store.leg(leg.txid);
        if (!fresh || fresh.notice !== leg.notice) return;
        const attempts = fresh.attempts + 1;
        const delay = Math.min(MAX_RETRY_MS, 250 * 2 ** Math.min(attempts - 1, 10));
        this.store.patchLeg(leg.txid, { attempts, nextAt: this.ctx.clock.now() + delay, lastError: reason }, this.ctx.clock.now());
      });
      this.#arm(this.store.nextNoticeAt());
    }
  }

  /** Sends every owed message that is due (startup, the sweep, retry timers). */
  resend(now = this.ctx.clock.now()): void {
    if (this.#stopped) return;
    for (const leg of this.store.dueNotices(now)) this.send(leg.txid);
    this.#arm(this.store.nextNoticeAt());
  }

  #arm(at: number | null): void {
    if (at === null || this.#stopped) return;
    const when = Math.max(at, Date.now() + 5);
    if (this.#timer && this.#timerAt <= when) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = when;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.resend();
    }, when - Date.now());
    this.#timer.unref();
  }
}

/** The txid a leg statement names, read without the full check (that is the ledger's, in acceptLeg). */
function txidOf(statement: string): string | null {
  try {
    const txid = (JSON.parse(statement) as { txid?: unknown }).txid;
    return typeof txid === 'string' && /^[0-9a-f]{64}$/.test(txid) ? txid : null;
  } catch {
    return null;
  }
}
