/**
 * The most this node can send to an address now, and why a payment cannot reach it (GET /api/v1/wallet/max-sendable,
 * and the detail of a send's `no_route`). A capacity probe is a route request marked `probe` (protocol.ts): it
 * floods like a payment's but with no amount to refuse, and every node answers with what its best route carries
 * (`Capacity`: the most delivered, the rate paid per unit, the leg that limits it). Nothing is reserved or paid.
 *
 * The answer states three figures: the direct line (the destination is a contact: what its line carries), the widest
 * single route (what `send` can pay now: the direct line is one of the routes), and a split over every route through
 * a different first contact (the sum of their widths: exact when the routes share no line beyond the first, an upper
 * bound when they do, since each branch counts a shared line in full).
 */
import { Decimal } from 'decimal.js';
import { formatMinor, type Minor, type PluginContext } from '../../sdk/index.js';
import type { ContactsService } from '../contacts/api.js';
import type { OriginBudgets } from './budgets.js';
import type { Branch, Discovery } from './discovery.js';
import { randomHex, routeHash, sha256Hex, type Capacity } from './protocol.js';

/** How long a probe may take: relays answer within a third of what is left of it, the originator collects half. */
const PROBE_WINDOW_MS = 20_000;

export type NoRouteReason = 'no_line' | 'line_exhausted' | 'destination_unreachable' | 'over_max_fee';

export interface NoRouteDetail {
  reason: NoRouteReason;
  message: string;
  /** line_exhausted: the leg (1 = this node's own line) whose credit limits the widest route. */
  hop?: number;
}

export interface RouteView {
  /** The first contact of the route. */
  via: string;
  hops: number;
  /** The most this route delivers. */
  amount: string;
  /** What delivering `amount` costs on top (an estimate: each relay truncates its fee to 1e-8). */
  fee: string;
  fee_percent: string;
  /** The leg whose credit limits `amount` (1 = this node's own line). */
  limited_at_hop: number;
}

export interface MaxSendable {
  address: string;
  currency: string;
  /** What a send can deliver now in one payment: the widest single route (the direct line included). */
  max_sendable: string;
  direct: { amount: string } | null;
  single_route: RouteView | null;
  split: { amount: string; fee: string; parts: RouteView[] };
  routes_found: number;
  /** Why max_sendable is 0; null otherwise. */
  no_route: NoRouteDetail | null;
}

interface Route {
  via: string;
  hops: number;
  capacity: Capacity;
  feePercent: Decimal;
}

export class CapacityProbe {
  constructor(
    private readonly ctx: PluginContext,
    private readonly contacts: ContactsService,
    private readonly discovery: Discovery,
    private readonly budgets: OriginBudgets,
  ) {}

  /** Within `budget` legs when it is given (a failed search's), else the budget a send to `address` would draw. */
  async maxSendable(address: string, currency: string, budget?: number): Promise<MaxSendable> {
    const legs = budget ?? this.budgets.draw(address, currency);
    const routes = await this.#routes(address, currency, legs);
    if (routes?.length) this.budgets.reached(address, currency, legs);
    const maxFee = new Decimal(String(this.ctx.settings.get('maxFee') ?? 5));
    const usable = (routes ?? []).filter((r) => r.capacity.max > 0n && r.feePercent.lte(maxFee)).sort((a, b) => (b.capacity.max > a.capacity.max ? 1 : -1));
    const direct = routes?.find((r) => r.hops === 1) ?? null;
    const apart = oneByLimitingLine(usable);
    const parts = apart.map(view);
    const split = apart.reduce((sum, r) => sum + r.capacity.max, 0n);
    const splitFee = apart.reduce((sum, r) => sum + feeOf(r, r.capacity.max), 0n);
    return {
      address,
      currency,
      max_sendable: formatMinor(usable[0]?.capacity.max ?? 0n),
      direct: direct ? { amount: formatMinor(direct.feePercent.lte(maxFee) ? direct.capacity.max : 0n) } : null,
      single_route: parts[0] ?? null,
      split: { amount: formatMinor(split), fee: formatMinor(splitFee), parts },
      routes_found: routes?.length ?? 0,
      no_route: usable.length ? null : why(routes, maxFee, address, currency),
    };
  }

  /**
   * Why a payment of `amount` found no route (a probe after the failed search, within the search's hop budget, so that
   * the detail speaks of the routes that search could have taken): the detail a `no_route` carries.
   */
  async diagnose(address: string, currency: string, amount: Minor, budget: number): Promise<NoRouteDetail & { max_sendable: string }> {
    const m = await this.maxSendable(address, currency, budget);
    if (m.no_route) return { ...m.no_route, max_sendable: m.max_sendable };
    const widest = m.single_route!;
    if (amount > parseMinor(m.max_sendable)) {
      return {
        reason: 'line_exhausted',
        hop: widest.limited_at_hop,
        message: `at most ${m.max_sendable} ${currency} can reach ${address} in one payment now: the widest route (${widest.hops} leg(s)) is limited by the line at hop ${widest.limited_at_hop}`,
        max_sendable: m.max_sendable,
      };
    }
    return { reason: 'destination_unreachable', message: `no route answered in time for this amount; ${m.max_sendable} ${currency} can reach ${address} now`, max_sendable: m.max_sendable };
  }

  /** The largest debt cycle through this node that a clearing could cancel now (0: none), from a clearing probe. */
  async widestCycle(ownAddress: string, currency: string): Promise<Minor> {
    let widest = 0n;
    for (const b of await this.#probe(ownAddress, currency, true, this.budgets.cycle())) {
      const max = b.state === 'found' ? (b.offer?.capacity?.max ?? 0n) : 0n;
      if (max > widest) widest = max;
    }
    return widest;
  }

  /** Every route the probe found, one per first contact; null when this node holds no line in the currency. */
  async #routes(address: string, currency: string, budget: number): Promise<Route[] | null> {
    const own = this.ctx.identity.pubkeyHash;
    if (!this.contacts.accepted(currency).some((c) => c.pubkeyHash && c.pubkeyHash !== own)) return null;
    const branches = await this.#probe(address, currency, false, budget);
    return branches
      .filter((b): b is Branch & { offer: { capacity: Capacity; hops: number } } => b.state === 'found' && !!b.offer?.capacity)
      .map((b) => ({ via: b.contact, hops: b.offer.hops + 1, capacity: b.offer.capacity, feePercent: new Decimal(b.offer.capacity.rate).minus(1).times(100) }));
  }

  /** A capacity probe within `budget` legs. */
  async #probe(address: string, currency: string, clearing: boolean, budget: number): Promise<Branch[]> {
    const now = this.ctx.clock.now();
    const salt = sha256Hex(Buffer.from(randomHex(32), 'hex'));
    const time = now * 1000;
    const hash = routeHash(address, salt, time);
    const expires = now + PROBE_WINDOW_MS;
    await new Promise<void>((resolve) => {
      this.discovery.originate(
        { hash, salt, time, currency, amount: 1n, budget, fast: false, expires, probe: true, ...(clearing ? { clearing } : {}) },
        budget,
        { onAnswer: () => undefined, onComplete: resolve },
        now + PROBE_WINDOW_MS / 2,
      );
    });
    const branches = [...(this.discovery.state(hash)?.searches.get(budget)?.branches.values() ?? [])];
    for (const b of branches) if (b.state === 'found') this.discovery.cancel(b.contact, hash, budget - 1);
    this.discovery.forget(hash);
    return branches;
  }
}

/**
 * The routes a split can add up, widest first: of the routes one line limits (the line into a destination with one
 * contact, say), only the widest, since together they carry no more than it. Routes that share a line which limits
 * none of them still count each, so the sum stays an upper bound there.
 */
function oneByLimitingLine(widestFirst: readonly Route[]): Route[] {
  const seen = new Set<string>();
  return widestFirst.filter((r) => {
    const line = r.capacity.line;
    if (line === undefined) return true;
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
}

/** A decimal amount of this module's answers back to minor units. */
export const parseMinor = (text: string): Minor => BigInt(new Decimal(text).times(1e8).toFixed(0));

function feeOf(r: Route, amount: Minor): Minor {
  return BigInt(new Decimal(amount.toString()).times(r.capacity.rate).toFixed(0, Decimal.ROUND_DOWN)) - amount;
}

function view(r: Route): RouteView {
  return { via: r.via, hops: r.hops, amount: formatMinor(r.capacity.max), fee: formatMinor(feeOf(r, r.capacity.max)), fee_percent: r.feePercent.toDecimalPlaces(8).toFixed(), limited_at_hop: hopOf(r) };
}

/** The leg, counted from this node (1 = its own line), whose credit limits a route. */
function hopOf(r: Route): number {
  return r.hops - r.capacity.limitAt + 1;
}

function why(routes: Route[] | null, maxFee: Decimal, address: string, currency: string): NoRouteDetail {
  if (routes === null) return { reason: 'no_line', message: `this node holds no accepted ${currency} line with any contact` };
  if (routes.length === 0) return { reason: 'destination_unreachable', message: `no route to ${address} in ${currency} within the hop budget` };
  const open = routes.filter((r) => r.capacity.max > 0n);
  if (open.length === 0) {
    // The shortest route's limiting leg: where the operator would look first.
    const r = routes.reduce((a, b) => (b.hops < a.hops ? b : a));
    const hop = hopOf(r);
    return { reason: 'line_exhausted', hop, message: `every route to ${address} is exhausted; the shortest (${r.hops} leg(s)) has no ${currency} credit left at hop ${hop}` };
  }
  const cheapest = open.reduce((a, b) => (b.feePercent.lt(a.feePercent) ? b : a));
  return { reason: 'over_max_fee', message: `the cheapest route to ${address} costs ${cheapest.feePercent.toDecimalPlaces(8).toFixed()}% in fees, above max_fee ${maxFee.toFixed()}%` };
}
