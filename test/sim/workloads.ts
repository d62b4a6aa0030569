/**
 * Workloads besides direct and routed payments, all through the REST API, each at a chosen rate (a probability per
 * payment step, drawn from a stream of their own so a run without them decides as before):
 *   requests  a node asks a contact for money (POST /requests); once the request has arrived, the contact pays it
 *             (approve, two times in three) or declines it; a payment made this way is checked like any other;
 *   refunds   the payee of an earlier direct payment refunds part or all of it (POST /wallet/refund);
 *   terms     a node changes the terms of its line to a contact: a new fee, and a credit limit raised by up to half
 *             (lowering one could leave a balance above it, which the credit check would take for an overdraft);
 *   syncs     a node pulls its chains from its contacts (POST /system/sync, type transactions);
 *   probes    a node asks how much it can send to a node that is not its contact (GET /wallet/max-sendable, a
 *             capacity probe along the routes) and sends up to that much (the answers a capacity liar inflates);
 *   splits    the same probe, then a payment wider than the widest route and within what the routes carry together,
 *             sent with allow_split (a split payment: its parts complete all or none);
 *   clearings a node clears the widest debt cycle through it (POST /clearing/run); every node takes part in clearing
 *             (auto_cycle_clearing) when this workload runs.
 */
import { Decimal } from 'decimal.js';
import type { Payment } from './invariants.js';
import type { Reply, SimNode } from './nodes.js';
import { Rng } from './random.js';

export interface Workloads {
  requests: number;
  refunds: number;
  terms: number;
  syncs: number;
  probes?: number;
  splits?: number;
  clearings?: number;
}

/** A split payment as its originator answered it: the route hash of each of its parts. */
export interface SplitSent {
  /** Its place in the run's list of payments (a workload's payment numbers may repeat the main loop's). */
  index: number;
  from: number;
  parts: string[];
}

export const NO_WORKLOADS: Workloads = { requests: 0, refunds: 0, terms: 0, syncs: 0 };

interface Asked {
  id: string;
  from: number;
  to: number;
  amount: string;
  tries: number;
}

/** How many payment steps a request's payer waits for it to arrive before looking, and gives up after. */
const LOOK_AFTER = 3;
const LOOK_TRIES = 20;

export class WorkloadRunner {
  readonly #rng: Rng;
  readonly #asked: Asked[] = [];
  readonly counts = { requests: 0, approved: 0, declined: 0, refunds: 0, terms: 0, syncs: 0, probes: 0, splits: 0, clearings: 0, cleared: 0 };
  readonly splits: SplitSent[] = [];

  constructor(
    seed: number,
    private readonly w: Workloads,
    private readonly nodes: readonly SimNode[],
    private readonly adjacency: readonly Set<number>[],
    /** Hop counts between the nodes (topology.ts `hops`, from each node). */
    private readonly distances: readonly number[][],
    private readonly payments: Payment[],
    /** `${a}>${b}`: the credit a extends to b (raised here as the terms change). */
    private readonly limits: Map<string, Decimal>,
    private readonly note: (line: string) => void,
    private readonly currency: string,
  ) {
    this.#rng = new Rng(seed ^ 0x3a1d);
  }

  /** One step after a payment: each workload acts with its probability. */
  async step(now: number): Promise<void> {
    const r = this.#rng;
    await this.#answerRequests(now);
    if (r.chance(this.w.requests)) await this.#request();
    if (r.chance(this.w.refunds)) await this.#refund(now);
    if (r.chance(this.w.terms)) await this.#terms();
    if (r.chance(this.w.syncs)) await this.#sync();
    if (r.chance(this.w.probes ?? 0)) await this.#probe(now);
    if (r.chance(this.w.splits ?? 0)) await this.#split(now);
    if (r.chance(this.w.clearings ?? 0)) await this.#clear();
  }

  /** Before the workload: every node takes part in clearing when clearings run (relays carry only then). */
  async prepare(): Promise<void> {
    if (!this.w.clearings) return;
    for (const n of this.nodes) await n.ok('PUT', '/api/v1/system/settings', { auto_cycle_clearing: true });
  }

  #live(i: number): SimNode | null {
    const n = this.nodes[i]!;
    return n.alive ? n : null;
  }

  #contactOf(i: number): number | null {
    const near = [...this.adjacency[i]!];
    return near.length ? this.#rng.pick(near) : null;
  }

  async #request(): Promise<void> {
    const from = this.#rng.int(0, this.nodes.length - 1);
    const to = this.#contactOf(from);
    const asker = this.#live(from);
    if (to === null || !asker) return;
    const amount = `${this.#rng.int(1, 10)}.${String(this.#rng.int(0, 99)).padStart(2, '0')}`;
    const res = await asker.rest('POST', '/api/v1/requests', { contact: this.nodes[to]!.hash, amount, currency: this.currency });
    const id = res.body?.data?.request_id;
    this.note(`request n${from} asks n${to} ${amount} -> ${res.status} ${id ?? res.body?.error?.code ?? ''}`);
    if (typeof id !== 'string') return;
    this.counts.requests++;
    this.#asked.push({ id, from, to, amount, tries: 0 });
  }

  /** The oldest request that had time to arrive: its payer pays or declines it. */
  async #answerRequests(now: number): Promise<void> {
    const a = this.#asked[0];
    if (!a || ++a.tries < LOOK_AFTER) return;
    const payer = this.#live(a.to);
    if (!payer) return;
    const list = await payer.rest('GET', '/api/v1/requests');
    const found = ((list.body?.data?.incoming ?? []) as any[]).find((x) => x.request_id === a.id);
    if (!found || found.status !== 'pending') {
      if (found || a.tries >= LOOK_TRIES) {
        this.#asked.shift();
        this.note(`request ${a.id} ${found ? found.status : 'never arrived'}`);
      }
      return;
    }
    this.#asked.shift();
    if (!this.#rng.chance(2 / 3)) {
      const res = await payer.rest('POST', '/api/v1/requests/decline', { request_id: a.id });
      this.counts.declined++;
      this.note(`request ${a.id} declined -> ${res.status}`);
      return;
    }
    const res = await payer.rest('POST', '/api/v1/requests/approve', { request_id: a.id });
    const data = res.body?.data ?? {};
    this.counts.approved++;
    this.#record(a.to, a.from, a.amount, now, res.status, data, res.status < 300 ? 'approved' : String(res.body?.error?.code ?? res.status));
  }

  async #refund(now: number): Promise<void> {
    const paid = this.payments.filter((p) => !p.routed && p.txid && p.httpStatus < 300);
    if (!paid.length) return;
    const p = this.#rng.pick(paid);
    const payee = this.#live(p.to);
    const amount = this.#rng.chance(0.5) ? p.amount : new Decimal(p.amount).div(2).toDecimalPlaces(2, Decimal.ROUND_DOWN).toString();
    if (!payee || amount === '0') return;
    const res = await payee.rest('POST', '/api/v1/wallet/refund', { txid: p.txid, amount });
    const data = res.body?.data ?? {};
    this.note(`refund of ${p.txid} by n${p.to} ${amount} -> ${res.status} ${data.refund_txid ?? res.body?.error?.code ?? ''}`);
    // Refused (not settled yet, refunded already): nothing was sent.
    if (typeof data.refund_txid !== 'string') return;
    this.counts.refunds++;
    this.#record(p.to, p.from, amount, now, res.status, { txid: data.refund_txid }, 'refund');
  }

  async #terms(): Promise<void> {
    const a = this.#rng.int(0, this.nodes.length - 1);
    const b = this.#contactOf(a);
    const node = this.#live(a);
    if (b === null || !node) return;
    const key = `${a}>${b}`;
    const credit = (this.limits.get(key) ?? new Decimal(0)).times(1 + this.#rng.int(0, 50) / 100).toDecimalPlaces(0);
    const fee = this.#rng.int(0, 3);
    const res = await node.rest('PUT', `/api/v1/contacts/${this.nodes[b]!.hash}`, { currency: this.currency, fee_percent: fee, credit_limit: credit.toString() });
    this.note(`terms n${a} to n${b} fee ${fee} credit ${credit.toString()} -> ${res.status}`);
    if (res.status >= 300) return;
    this.counts.terms++;
    this.limits.set(key, credit);
  }

  async #sync(): Promise<void> {
    const i = this.#rng.int(0, this.nodes.length - 1);
    const node = this.#live(i);
    if (!node) return;
    const res = await node.rest('POST', '/api/v1/system/sync', { type: 'transactions' });
    const t = res.body?.data?.results?.transactions;
    this.counts.syncs++;
    this.note(`sync n${i} -> ${res.status} imported ${t?.imported ?? '-'} broken ${t?.broken ?? '-'}`);
  }

  async #probe(now: number): Promise<void> {
    const far = await this.#probeFar();
    if (!far) return;
    this.counts.probes++;
    this.note(`probe n${far.from} to n${far.to} -> ${far.status} ${far.widest.toString()}`);
    if (far.widest.lte(0)) return;
    await this.#sendFar(far, Decimal.min(far.widest, this.#rng.int(1, 20)).toString(), now, {});
  }

  async #split(now: number): Promise<void> {
    const far = await this.#probeFar();
    if (!far) return;
    this.note(`split probe n${far.from} to n${far.to} -> ${far.status} ${far.widest.toString()} ${far.together.toString()}`);
    // Wider than one route: only a split carries it (a split of what one route carries goes as one routed payment).
    if (far.together.lte(far.widest.plus(0.01))) return;
    const amount = far.widest.plus(far.together.minus(far.widest).times(this.#rng.int(10, 100) / 100)).toDecimalPlaces(2, Decimal.ROUND_DOWN).toString();
    this.counts.splits++;
    const n = this.payments.length;
    const sent = await this.#sendFar(far, amount, now, { allow_split: true });
    const parts = ((sent.body?.data?.split?.parts ?? []) as any[]).map((p) => String(p.p2p_hash));
    if (parts.length) this.splits.push({ index: n, from: far.from, parts });
    this.note(`split ${n} parts ${parts.join(' ')}${sent.status < 300 ? '' : ` ${String(sent.body?.error?.message ?? '')}`}`);
  }

  /** A live node, a node that is not its contact, and what max-sendable says the one can send the other. */
  async #probeFar(): Promise<{ from: number; to: number; node: SimNode; address: string; status: number; widest: Decimal; together: Decimal } | null> {
    const from = this.#rng.int(0, this.nodes.length - 1);
    const far = [...this.distances[from]!.keys()].filter((j) => this.distances[from]![j]! >= 2);
    const node = this.#live(from);
    if (!far.length || !node) return null;
    const to = this.#rng.pick(far);
    const address = this.nodes[to]!.address;
    const res = await node.rest('GET', '/api/v1/wallet/max-sendable', undefined, { address, currency: this.currency });
    const data = res.body?.data;
    return { from, to, node, address, status: res.status, widest: new Decimal(data?.max_sendable ?? 0), together: new Decimal(data?.split?.amount ?? 0) };
  }

  async #sendFar(far: { from: number; to: number; node: SimNode; address: string }, amount: string, now: number, extra: Record<string, unknown>): Promise<Reply> {
    const sent = await far.node.rest('POST', '/api/v1/wallet/send', { address: far.address, amount, currency: this.currency, ...extra });
    const data = sent.body?.data ?? {};
    this.#record(far.from, far.to, amount, now, sent.status, data, sent.status < 300 ? String(data.status) : String(sent.body?.error?.code ?? sent.status));
    return sent;
  }

  async #clear(): Promise<void> {
    const i = this.#rng.int(0, this.nodes.length - 1);
    const node = this.#live(i);
    if (!node) return;
    const res = await node.rest('POST', '/api/v1/clearing/run', { currency: this.currency });
    const data = res.body?.data ?? {};
    this.counts.clearings++;
    if (typeof data.hash === 'string') this.counts.cleared++;
    this.note(`clearing n${i} -> ${res.status} ${data.status ?? res.body?.error?.code ?? ''} ${data.amount ?? ''} ${data.hash ?? ''}`);
  }

  #record(from: number, to: number, amount: string, now: number, status: number, data: any, answer: string): void {
    const hops = this.distances[from]![to]!;
    const payment: Payment = {
      n: this.payments.length,
      from,
      to,
      amount,
      routed: typeof data.p2p_hash === 'string',
      hops,
      startedAt: now + this.nodes[from]!.owner.skewMs,
      httpStatus: status,
      txid: typeof data.txid === 'string' ? data.txid : null,
      hash: typeof data.p2p_hash === 'string' ? data.p2p_hash : null,
      answer,
    };
    this.payments.push(payment);
    this.note(`pay ${payment.n} n${from}>n${to} ${amount} ${answer} -> ${status} ${payment.txid ?? ''}`);
  }
}
