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
 *             capacity probe along the routes) and sends up to that much (the answers a capacity liar inflates).
 */
import { Decimal } from 'decimal.js';
import type { Payment } from './invariants.js';
import type { SimNode } from './nodes.js';
import { Rng } from './random.js';

export interface Workloads {
  requests: number;
  refunds: number;
  terms: number;
  syncs: number;
  probes?: number;
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
  readonly counts = { requests: 0, approved: 0, declined: 0, refunds: 0, terms: 0, syncs: 0, probes: 0 };

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
    const from = this.#rng.int(0, this.nodes.length - 1);
    const far = [...this.distances[from]!.keys()].filter((j) => this.distances[from]![j]! >= 2);
    const node = this.#live(from);
    if (!far.length || !node) return;
    const to = this.#rng.pick(far);
    const address = this.nodes[to]!.address;
    const res = await node.rest('GET', '/api/v1/wallet/max-sendable', undefined, { address, currency: this.currency });
    const max = new Decimal(res.body?.data?.max_sendable ?? 0);
    this.counts.probes++;
    this.note(`probe n${from} to n${to} -> ${res.status} ${max.toString()}`);
    if (max.lte(0)) return;
    const amount = Decimal.min(max, this.#rng.int(1, 20)).toString();
    const sent = await node.rest('POST', '/api/v1/wallet/send', { address, amount, currency: this.currency });
    const data = sent.body?.data ?? {};
    this.#record(from, to, amount, now, sent.status, data, sent.status < 300 ? String(data.status) : String(sent.body?.error?.code ?? sent.status));
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
