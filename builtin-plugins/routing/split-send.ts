/**
 * Split payments, the originator's side (docs/protocol.md, "Split payments"): `send` with `allow_split` pays an amount
 * no single route carries over several routes under one condition. It is planned one part at a time from
 * max-sendable's split: the widest route left takes what it can carry and its search reserves it, then a new probe
 * sees that reservation; only once every part found its route are they all paid. The destination fulfils no part
 * before all arrived (split-receive.ts), and a part that fails tells it to release the others, so the payment
 * completes on every leg of every part or on none.
 */
import { ApiError, formatMinor, type Minor } from '../../sdk/index.js';
import type { LedgerService, PaymentRouter, RoutedOutcome, RouteDetail, RoutedPart, RoutedPayment, SplitDetail } from '../ledger/api.js';
import { parseMinor as toMinor, type CapacityProbe, type MaxSendable, type RouteView } from './capacity.js';
import type { Payments } from './payments.js';
import { randomHex } from './protocol.js';
import { splitGroupOf } from './split-receive.js';
import type { PaymentRow, RoutingStore } from './store.js';

/** Probes and searches a split may take, one of each per part. */
const MAX_PARTS = 16;

/** The parts of `amount` over the routes (widest first): each carries what is left, up to its width; null if short. */
export function planParts(routes: readonly RouteView[], amount: Minor): { via: string; hops: number; amount: Minor }[] | null {
  const parts: { via: string; hops: number; amount: Minor }[] = [];
  let left = amount;
  for (const r of [...routes].sort((a, b) => (toMinor(b.amount) > toMinor(a.amount) ? 1 : -1))) {
    if (left === 0n) break;
    const take = toMinor(r.amount) < left ? toMinor(r.amount) : left;
    if (take > 0n) parts.push({ via: r.via, hops: r.hops, amount: take });
    left -= take;
  }
  return left === 0n ? parts : null;
}

export class SplitSender {
  constructor(
    private readonly store: RoutingStore,
    private readonly ledger: LedgerService,
    private readonly payments: Payments,
    private readonly probe: CapacityProbe,
  ) {}

  /** The ledger's router: a payment allowed to split goes here, every other one to `payments` as before. */
  router(): PaymentRouter {
    return {
      send: (p) => (p.allowSplit ? this.send(p) : this.payments.send(p)),
      originOf: (txid) => this.payments.originOf(txid),
      refundsInFlight: (txid) => this.payments.refundsInFlight(txid),
      splitOf: (txid) => this.detail(txid),
      routeOf: (txid) => this.route(txid),
    };
  }

  async send(p: RoutedPayment): Promise<RoutedOutcome> {
    let plan = await this.probe.maxSendable(p.address, p.currency);
    // One route carries it: no reason to split.
    if (toMinor(plan.max_sendable) >= p.amount) return this.payments.send(p);
    const secret = randomHex(32);
    const group = splitGroupOf(secret);
    const found: string[] = [];
    try {
      // One part at a time, on the widest route left: its search reserves that route's lines, so the next probe sees
      // what the parts found so far hold, on every line they share with the other routes (planned all at once, two
      // parts over one line both counted on all of it, and one of them failed).
      for (let left = p.amount; left > 0n; ) {
        const next = planParts(plan.split.parts, left)?.[0];
        if (!next || found.length === MAX_PARTS) throw this.#short(p, plan, p.amount - left, found.length);
        const part = await this.payments.searchPart({ ...p, bestFee: false, amount: next.amount }, { group, secret, via: next.via, hops: next.hops });
        if (!this.store.candidates(part.hash).length) throw new ApiError('no_route', 400, 'A part of the split payment found no route in time', { reason: 'destination_unreachable' });
        found.push(part.hash);
        left -= next.amount;
        if (left > 0n) plan = await this.probe.maxSendable(p.address, p.currency);
      }
    } catch (err) {
      for (const hash of found) this.payments.reject(hash, 'another part of the split payment found no route');
      throw err;
    }
    this.#execute(found);
    return this.#outcome(group);
  }

  /** No split carries what is left of the amount (after `parts` found routes for `placed` of it). */
  #short(p: RoutedPayment, plan: MaxSendable, placed: Minor, parts: number): ApiError {
    const why = plan.no_route ?? { reason: 'line_exhausted', message: `the routes found carry ${plan.split.amount} ${p.currency} together` };
    const after = parts === 0 ? '' : ` after ${parts} part(s) found routes for ${formatMinor(placed)}`;
    const more = parts === MAX_PARTS ? `; a split takes at most ${MAX_PARTS} parts` : '';
    return new ApiError('no_route', 400, `No split of ${formatMinor(p.amount)} ${p.currency} reaches ${p.address}: at most ${plan.split.amount} over ${plan.split.parts.length} route(s)${after} (${why.message})${more}`, {
      reason: why.reason,
      max_sendable: plan.max_sendable,
      max_split: plan.split.amount,
      ...(why.hop !== undefined ? { hop: why.hop } : {}),
    });
  }

  /** Pays every part; if one can no longer be paid, the rest are dropped and the destination releases what came. */
  #execute(hashes: string[]): void {
    for (const [i, hash] of hashes.entries()) {
      try {
        this.payments.execute(hash, this.store.candidates(hash)[0]!.id);
      } catch (err) {
        for (const rest of hashes.slice(i + 1)) this.payments.reject(rest, 'another part of the split payment could not be paid');
        if (i > 0) this.payments.abortSplit(this.store.payment(hash)!);
        throw err;
      }
    }
  }

  #outcome(group: string): RoutedOutcome {
    const parts = this.store.splitParts(group).map((row) => this.#part(row));
    return {
      status: 'sent',
      hash: group,
      txid: parts[0]?.txid ?? null,
      total: parts.reduce((sum, part) => sum + (part.total ?? part.amount), 0n),
      fast: true,
      candidateCount: parts.length,
      parts,
    };
  }

  #part(row: PaymentRow): RouteDetail {
    const chosen = row.candidateId !== null ? this.store.candidate(row.candidateId) : null;
    return { hash: row.hash, txid: row.txid, via: chosen?.contactHash ?? null, amount: row.amount, total: chosen?.amount ?? null, status: row.status, hops: chosen?.hops ?? null };
  }

  /** The route of a payment this node paid over one route (its first leg's txid); split parts answer through detail. */
  route(txid: string): RouteDetail | null {
    const row = this.store.paymentByTxid(txid);
    return row && !row.splitGroup ? this.#part(row) : null;
  }

  /** The split a transaction is a part of: its first leg here (originator), or a leg it received (destination). */
  detail(txid: string): SplitDetail | null {
    const mine = this.store.paymentByTxid(txid);
    if (mine?.splitGroup) {
      const parts = this.store.splitParts(mine.splitGroup).map((row) => this.#part(row));
      return { group: mine.splitGroup, role: 'origin', amount: parts.reduce((s, x) => s + x.amount, 0n), parts };
    }
    const tx = this.ledger.get(txid);
    const group = tx?.type === 'received' && tx.memo ? this.store.splitOfHash(tx.memo) : null;
    if (!group) return null;
    const parts = this.store.splitLegs(group).map((l): RoutedPart => {
      const amount = this.ledger.get(l.txid)?.amount ?? 0n;
      return { hash: l.hash, txid: l.txid, via: l.contactHash, amount, total: amount, status: l.state };
    });
    return { group, role: 'destination', amount: this.store.split(group)?.total ?? parts.reduce((s, x) => s + x.amount, 0n), parts };
  }
}
