/**
 * What must hold after every run, read from the nodes' REST API once the network is quiet. Each check returns
 * violations as sentences naming the node and payment, so a failing seed says what broke.
 */
import { Decimal } from 'decimal.js';
import type { SplitSent } from './workloads.js';

export interface Payment {
  n: number;
  from: number;
  to: number;
  amount: string;
  routed: boolean;
  hops: number;
  /** When the REST call was made, on the sender's clock (skewed like the completed_at it is compared with). */
  startedAt: number;
  httpStatus: number;
  txid: string | null;
  hash: string | null;
  answer: string;
}

export interface NodeState {
  index: number;
  hash: string;
  address: string;
  transactions: any[];
  balances: any[];
  fees: string;
  verify: { ok: boolean; findings: number };
}

export interface World {
  nodes: NodeState[];
  payments: Payment[];
  /** `${a}>${b}`: the credit a extends to b. */
  limits: Map<string, Decimal>;
  indexOfHash: Map<string, number>;
  /** Whether any fault was injected in the run. */
  faulted: boolean;
  /** Failure codes the run's other faults and liars explain (a restart forgets discoveries: `route_unknown`). */
  explained?: readonly string[];
  /**
   * The nodes that lie (liars.ts). Every check holds for the honest nodes; a liar's own books are its affair: its
   * balances, fees, credit, pending rows and chain are not checked, nor its side of a pair, nor the payments it sent,
   * and a route through it need not complete on all legs, though each honest relay on it keeps both its legs or none.
   */
  liars?: ReadonlySet<number>;
  /** Liars that may owe an honest payee a leg it fulfilled (liars.ts `LIAR_OWES`): that leg may stay `accepted`. */
  owingLiars?: ReadonlySet<number>;
  /** The split payments sent (workloads.ts): the route hash of each part. */
  splits?: readonly SplitSent[];
}

const UNSETTLED = new Set(['pending', 'sending', 'accepted', 'sent']);
/** Causes a payment may fail or be refused for on a healthy network: the receiver's credit or the route's capacity. */
const HEALTHY_CAUSES = /^((rejected|cancelled)( by the payee)?: )*(insufficient_credit|no_route|expired: no route)/;
/** How a split's part ends when a sibling failed (split-receive.ts, split-send.ts), behind any `rejected by the payee: `. */
const SPLIT_RELEASE = /(released the split payment|not every part of the split payment arrived|another part of the split payment|this split payment is over)/;
/** Causes a lossy network explains: answers lost, late or never delivered. */
const FAULT_CAUSES = /^((rejected|cancelled)( by the payee)?: )*(delivery_failed|timeout|unreachable|expired|recovery_exhausted|chain_busy)/;

/** What an entry adds to its node's balance with the counterparty: a relay's legs show `relay`, the sender tells which. */
function signed(s: NodeState, t: any): Decimal {
  const amount = new Decimal(t.amount);
  const outgoing = t.type === 'sent' || (t.type === 'relay' && new URL(t.sender_address).host === new URL(s.address).host);
  return outgoing ? amount.negated() : amount;
}

export function checkInvariants(w: World): string[] {
  const out: string[] = [];
  const sum = (xs: Iterable<Decimal>): Decimal => [...xs].reduce((a, b) => a.plus(b), new Decimal(0));
  const name = (hash: string): string => `n${w.indexOfHash.get(hash) ?? hash.slice(0, 8)}`;
  const liar = (index: number | undefined): boolean => index !== undefined && !!w.liars?.has(index);
  const honest = w.nodes.filter((s) => !liar(s.index));
  const withHonest = (s: NodeState): any[] => s.balances.filter((b) => !liar(w.indexOfHash.get(b.pubkey_hash)));

  // No money created or lost: the nets between honest nodes sum to zero, and each pair's views mirror each other.
  const total = sum(honest.flatMap((s) => withHonest(s).map((b) => new Decimal(b.net_balance))));
  if (!total.isZero()) out.push(`nets sum to ${total.toString()}, not 0`);
  for (const s of honest) {
    for (const b of withHonest(s)) {
      const other = w.nodes[w.indexOfHash.get(b.pubkey_hash) ?? -1];
      const mirror = other?.balances.find((x) => x.pubkey_hash === s.hash && x.currency === b.currency);
      if (!mirror || !new Decimal(mirror.net_balance).plus(b.net_balance).isZero()) {
        out.push(`n${s.index} holds ${b.net_balance} with ${name(b.pubkey_hash)}, which holds ${mirror?.net_balance ?? 'nothing'} back`);
      }
    }
  }

  // Each node's balances equal its completed entries.
  for (const s of honest) {
    const fromEntries = new Map<string, Decimal>();
    for (const t of s.transactions) {
      if (t.status !== 'completed') continue;
      const key = t.counterparty_pubkey_hash;
      fromEntries.set(key, (fromEntries.get(key) ?? new Decimal(0)).plus(signed(s, t)));
    }
    for (const b of s.balances) {
      const entries = fromEntries.get(b.pubkey_hash) ?? new Decimal(0);
      if (!entries.equals(b.net_balance)) out.push(`n${s.index}: balance with ${name(b.pubkey_hash)} is ${b.net_balance}, its entries add up to ${entries.toString()}`);
    }
  }

  // No credit line exceeded: what a receiver holds from a sender stays within the credit it extends.
  for (const s of honest) {
    for (const b of s.balances) {
      const limit = w.limits.get(`${s.index}>${w.indexOfHash.get(b.pubkey_hash)}`);
      if (limit && new Decimal(b.net_balance).greaterThan(limit)) out.push(`n${s.index} holds ${b.net_balance} from ${name(b.pubkey_hash)}, over the ${limit.toString()} it extends`);
    }
  }

  // Routed payments: all legs completed or none; a relay keeps exactly its fees.
  const legs = new Map<string, { node: number; t: any }[]>();
  for (const s of w.nodes) for (const t of s.transactions) if (t.tx_type === 'p2p' || (t.memo && /^[0-9a-f]{64}$/.test(t.memo))) {
    legs.set(t.memo, [...(legs.get(t.memo) ?? []), { node: s.index, t }]);
  }
  const feesFound = new Map<number, Decimal>();
  for (const [hash, ls] of legs) {
    const completed = ls.filter((l) => l.t.status === 'completed').length;
    if (completed !== 0 && completed !== ls.length && !ls.some((l) => liar(l.node))) out.push(`routed ${hash.slice(0, 12)}: ${completed} of ${ls.length} legs completed`);
    for (const node of new Set(ls.map((l) => l.node))) {
      const own = ls.filter((l) => l.node === node);
      if (own.length !== 2 || liar(node)) continue;
      const done = own.filter((l) => l.t.status === 'completed').length;
      if (done === 1) out.push(`routed ${hash.slice(0, 12)}: relay n${node} has 1 of its 2 legs completed`);
      if (done !== 2) continue;
      const net = sum(own.map((l) => signed(w.nodes[node]!, l.t)));
      if (net.isNegative()) out.push(`routed ${hash.slice(0, 12)}: relay n${node} lost ${net.negated().toString()}`);
      feesFound.set(node, (feesFound.get(node) ?? new Decimal(0)).plus(net));
    }
  }
  for (const s of honest) {
    const found = feesFound.get(s.index) ?? new Decimal(0);
    if (!found.equals(s.fees)) out.push(`n${s.index}: fee earnings ${s.fees}, its relayed legs net ${found.toString()}`);
  }

  // Every accepted payment ends completed, or failed for a cause the run explains; nothing is left unsettled.
  const extra = w.explained?.length ? new RegExp(`^((rejected|cancelled)( by the payee)?: )*(${w.explained.join('|')})\\b`) : null;
  const allowed = (reason: string): boolean => HEALTHY_CAUSES.test(reason) || (w.faulted && FAULT_CAUSES.test(reason)) || !!extra?.test(reason);
  const splitOf = new Map((w.splits ?? []).map((x) => [x.index, x]));
  for (const [index, p] of w.payments.entries()) {
    if (liar(p.from)) continue;
    const split = splitOf.get(index);
    if (split) {
      // The originator's first legs of the parts: all completed or none. Released because a sibling failed, a part's
      // cause is that sibling's.
      const firsts = w.nodes[p.from]!.transactions.filter((t) => t.type === 'sent' && split.parts.includes(t.memo));
      const completed = firsts.filter((t) => t.status === 'completed').length;
      if (completed !== 0 && completed !== split.parts.length) out.push(`split payment ${p.n} (n${p.from}): ${completed} of ${split.parts.length} parts completed`);
      if (completed || firsts.some((t) => UNSETTLED.has(t.status))) continue;
      const causes = firsts.map((t) => String(t.failure_reason ?? '')).filter((r) => !SPLIT_RELEASE.test(r));
      if (firsts.length && !causes.length) out.push(`split payment ${p.n} (n${p.from}>n${p.to}): every part released, none failed`);
      for (const cause of causes) if (!allowed(cause)) out.push(`split payment ${p.n} (n${p.from}>n${p.to}) part failed: ${cause}`);
      continue;
    }
    if (p.httpStatus >= 300) {
      if (!allowed(p.answer)) out.push(`payment ${p.n} (n${p.from}>n${p.to}) refused by REST: ${p.answer}`);
      continue;
    }
    if (!p.txid) continue;
    const row = w.nodes[p.from]!.transactions.find((t) => t.txid === p.txid);
    if (!row) {
      out.push(`payment ${p.n}: ${p.txid} missing on n${p.from}`);
      continue;
    }
    if (row.status === 'completed') continue;
    if (!allowed(row.failure_reason ?? '')) out.push(`payment ${p.n} (n${p.from}>n${p.to}, ${p.routed ? 'routed' : 'direct'}) ${row.status}: ${row.failure_reason}${row.needs_review ? ' [needs_review]' : ''} (txid ${p.txid})`);
  }
  for (const s of honest) {
    for (const t of s.transactions) {
      if (!UNSETTLED.has(t.status)) continue;
      const owed = t.type === 'received' && t.status === 'accepted' && w.owingLiars?.has(w.indexOfHash.get(t.counterparty_pubkey_hash) ?? -1);
      if (!owed) out.push(`n${s.index}: ${t.txid} still ${t.status} after quiescence`);
    }
    if (!s.verify.ok) out.push(`n${s.index}: chain verify has ${s.verify.findings} finding(s)`);
  }
  return out;
}
