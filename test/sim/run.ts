/**
 * One simulator run: N real nodes on the in-memory network and the virtual clock, a topology of credit lines, a
 * workload of direct and routed payments made through the REST API, seeded faults on the network, then quiescence
 * and the invariants (invariants.ts). Everything the run decides comes from one seed; the trace digest (a hash of
 * every decision and every outcome) is the same for the same seed and options.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { MemoryNetwork } from '../../kernel/peers/transport-memory.js';
import { VirtualClock, wallNow } from './clock.js';
import { checkInvariants, type NodeState, type Payment } from './invariants.js';
import { memoryFigures, sampleMemory } from './memory.js';
import { noRouteCause, routeFigures } from './route-figures.js';
import { SimNode } from './nodes.js';
import { installRandom, Rng } from './random.js';
import { hops, topology, type TopologyKind } from './topology.js';
import { Crashes } from './faults/crash.js';
import { faultyLink, type MoreFaults } from './faults/index.js';
import { drawPartitions } from './faults/partition.js';
import { skews } from './faults/skew.js';
import { drawLiars, LIAR_CAUSES, LIAR_OWES, liarPlugins, type Liars } from './liars.js';
import { NO_WORKLOADS, WorkloadRunner, type Workloads } from './workloads.js';

export interface Faults extends MoreFaults {
  /** Probability that an exchange is lost (its request or its answer, half each). */
  drop: number;
  /** Probability that a request is delivered twice. */
  duplicate: number;
  /** Probability that an exchange takes up to `delayMs` more (which reorders it against later ones). */
  delay: number;
  delayMs: number;
}

export interface SimOptions {
  seed: number;
  nodes: number;
  topology: TopologyKind;
  /** Mean degree of the random graphs. */
  degree: number;
  payments: number;
  /** Range of the credit each side of a line extends to the other, whole units. */
  credit: readonly [number, number];
  /** Share of payments to a node that is not a contact (routed). */
  routed: number;
  /** Payments started per virtual second, across the network. */
  rate: number;
  /** One-way latency of an exchange, virtual ms. */
  latency: readonly [number, number];
  faults: Faults;
  /** Virtual time after the last payment for retries to finish. */
  quiesceMs: number;
  /** Progress lines on stderr. */
  verbose: boolean;
  /** A fixed hop budget for every route search (the max_p2p_level setting, not randomized); the nodes' default when unset. */
  hopBudget?: number;
  /** Writes the event trace there, a line per event (to compare two runs that should match). */
  traceFile?: string;
  /** Nodes that lie (liars.ts). */
  liars?: Liars;
  /** Workloads besides payments (workloads.ts). */
  workloads?: Workloads;
}

export const NO_FAULTS: Faults = { drop: 0, duplicate: 0, delay: 0, delayMs: 0 };

export const DEFAULTS: SimOptions = {
  seed: 1,
  nodes: 10,
  topology: 'erdos-renyi',
  degree: 3,
  payments: 200,
  credit: [50, 500],
  routed: 0.3,
  rate: 20,
  latency: [2, 30],
  faults: NO_FAULTS,
  quiesceMs: 30 * 60_000,
  verbose: false,
};

export interface SimResult {
  options: SimOptions;
  digest: string;
  violations: string[];
  stats: Record<string, unknown>;
}

const START = Date.UTC(2030, 0, 1);
const CURRENCY = 'VWL';

export async function runSim(options: SimOptions): Promise<SimResult> {
  const rng = new Rng(options.seed);
  const nodeRng = rng.fork();
  const faultRng = rng.fork();
  const trace = createHash('sha256');
  const lines: string[] = [];
  const note = (line: string): void => {
    trace.update(line + '\n');
    if (options.traceFile) lines.push(line);
  };
  const log = (line: string): void => {
    if (options.verbose) process.stderr.write(`[sim ${new Date(clock.now()).toISOString()}] ${line}\n`);
  };
  const clock = new VirtualClock(START);
  const network = new MemoryNetwork();
  // Starting a node awaits the disk, so what the started ones draw meanwhile depends on its speed: they start on a
  // stream of their own (nothing drawn then reaches the trace), and the run's stream takes over once all are up.
  let restoreRandom = installRandom(new Rng(options.seed ^ 0x5eed));
  clock.install();
  const nodes: SimNode[] = [];
  const memoryBefore = sampleMemory();
  const wallStart = wallNow();
  try {
    const skew = skews(options.seed, options.nodes, options.faults.skewMs ?? 0);
    const liars = drawLiars(options.seed, options.nodes, options.liars);
    for (const [i, kind] of liars) note(`liar n${i} ${kind}`);
    const shape = (n: SimNode): void => {
      n.owner.skewMs = skew[n.index]!;
      const kind = liars.get(n.index);
      if (kind) n.builtins = liarPlugins(kind, options.seed ^ (n.index + 1), options.liars!.delayMs);
    };
    const hopSettings = options.hopBudget ? { max_p2p_level: options.hopBudget, hop_budget_randomized: false } : {};
    for (let i = 0; i < options.nodes; i++) nodes.push(await SimNode.start(i, rng, network, clock, { contact_status_enabled: false, ...hopSettings }, shape));
    await clock.idle();
    restoreRandom();
    restoreRandom = installRandom(nodeRng);
    note(`random ${Math.random()}`);
    const byAddress = new Map(nodes.map((n) => [new URL(n.address).host, n.index]));
    const indexOf = (address: string): number => byAddress.get(new URL(address.includes('://') ? address : `http://${address}`).host) ?? -1;
    log(`${nodes.length} nodes started in ${Math.round(wallNow() - wallStart)} ms`);
    const memoryStarted = memoryFigures(memoryBefore, options.nodes);

    // Credit lines: each side extends a seeded limit to the other and charges a seeded fee for relaying.
    const edges = topology(options.topology, options.nodes, rng, options.degree);
    const limits = new Map<string, Decimal>();
    for (const [a, b] of edges) {
      const ab = rng.int(options.credit[0], options.credit[1]);
      const ba = rng.int(options.credit[0], options.credit[1]);
      const feeA = rng.int(0, 2);
      const feeB = rng.int(0, 2);
      limits.set(`${a}>${b}`, new Decimal(ab));
      limits.set(`${b}>${a}`, new Decimal(ba));
      note(`edge ${a} ${b} ${ab} ${ba} ${feeA} ${feeB}`);
      await connect(clock, nodes[a]!, nodes[b]!, { credit: String(ab), fee: feeA }, { credit: String(ba), fee: feeB });
    }
    // The contact requests and acceptances travel as peer messages: let them land.
    await clock.runUntil(clock.now() + 60_000);
    note(`lines @${clock.now() - START} ${Math.random()}`);
    log(`${edges.length} credit lines`);

    // Faults start with the workload (the set-up above is not under test).
    let faultCount = 0;
    let exchanges = 0;
    network.link = async ({ from, request }, deliver) => {
      exchanges++;
      const route = `${indexOf(from)}>${indexOf(request.address)} ${request.method} ${request.path}`;
      const f = options.faults;
      const latency = (): number => faultRng.int(options.latency[0], options.latency[1]) + (faultRng.chance(f.delay) ? faultRng.int(0, f.delayMs) : 0);
      if (faultRng.chance(f.drop)) {
        faultCount++;
        const lostAnswer = faultRng.chance(0.5);
        note(`drop ${lostAnswer ? 'answer' : 'request'} ${route}`);
        if (lostAnswer) await sleep(latency()).then(deliver).catch(() => {});
        return new Promise(() => {});
      }
      await sleep(latency());
      const answer = deliver();
      if (faultRng.chance(f.duplicate)) {
        faultCount++;
        note(`duplicate ${route}`);
        void sleep(latency()).then(deliver).catch(() => {});
      }
      const res = await answer;
      await sleep(latency());
      return res;
    };

    // Partitions, crashes: from a stream of their own, so a run without them decides as before they existed.
    const moreRng = new Rng(options.seed ^ 0xfa17);
    const span = (options.payments / options.rate) * 1000;
    const partitions = drawPartitions(moreRng, options.nodes, options.faults.partitions ?? 0, options.faults.partitionMs ?? 0, clock.now(), span);
    for (const p of partitions) note(`partition @${p.from - START}-${p.until - START} ${p.side.map(Number).join('')}`);
    const crashes = new Crashes(nodes, clock, moreRng, options.faults.downMs ?? 0, note);
    const fault = (): void => void faultCount++;
    network.link = faultyLink(network.link, { clock, rng: moreRng, faults: options.faults, partitions, crashes, indexOf, note, fault });

    // The workload: payments at the chosen rate, each to a contact (direct) or to a node further away (routed).
    const adjacency = nodes.map(() => new Set<number>());
    for (const [a, b] of edges) {
      adjacency[a]!.add(b);
      adjacency[b]!.add(a);
    }
    const distances = nodes.map((n) => hops(edges, options.nodes, n.index));
    const payments: Payment[] = [];
    const noRoute: Record<string, number> = {};
    const gap = 1000 / options.rate;
    let at = clock.now();
    const more = new WorkloadRunner(options.seed, options.workloads ?? NO_WORKLOADS, nodes, adjacency, distances, payments, limits, note, CURRENCY);
    await more.prepare();
    for (let p = 0; p < options.payments; p++) {
      at += Math.max(1, Math.round(gap * -Math.log(1 - rng.next())));
      await clock.runUntil(at);
      await more.step(clock.now());
      const from = rng.int(0, options.nodes - 1);
      const far = [...distances[from]!.keys()].filter((j) => distances[from]![j]! >= 2);
      const routed = far.length > 0 && rng.chance(options.routed);
      const to = routed ? rng.pick(far) : rng.pick([...adjacency[from]!]);
      const amount = `${rng.int(1, 20)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
      if (!nodes[from]!.alive) {
        note(`skip ${p} n${from} is down`);
        continue;
      }
      const res = await nodes[from]!.rest('POST', '/api/v1/wallet/send', { address: nodes[to]!.address, amount, currency: CURRENCY });
      const data = res.body?.data ?? {};
      const payment: Payment = {
        n: p,
        from,
        to,
        amount,
        routed,
        hops: distances[from]![to]!,
        startedAt: clock.now() + nodes[from]!.owner.skewMs, // on the sender's clock, as its completed_at
        httpStatus: res.status,
        txid: typeof data.txid === 'string' ? data.txid : null,
        hash: typeof data.p2p_hash === 'string' ? data.p2p_hash : null,
        answer: res.status < 300 ? String(data.status) : String(res.body?.error?.code ?? res.status),
      };
      payments.push(payment);
      if (payment.answer === 'no_route') {
        const cause = noRouteCause(payment.hops, res.body?.error);
        noRoute[cause] = (noRoute[cause] ?? 0) + 1;
      }
      note(`pay ${p} @${clock.now() - START} ${from}>${to} ${amount} ${routed ? 'routed' : 'direct'} -> ${res.status} ${payment.answer} ${payment.txid ?? ''} ${payment.hash ?? ''}`);
      if (options.verbose && (p + 1) % 100 === 0) log(`${p + 1} payments`);
    }
    const lastPayment = clock.now();
    // Quiescence: the faults stop (what is lost stays lost), retries and expiries run out.
    network.link = async (_exchange, deliver) => {
      await sleep(options.latency[0]);
      return deliver();
    };
    await clock.runUntil(clock.now() + options.quiesceMs);
    faultCount += crashes.count;
    log(`quiesced; collecting`);

    const states: NodeState[] = [];
    for (const n of nodes) states.push(await collect(n));
    for (const s of states) {
      for (const t of [...s.transactions].sort((x, y) => (x.txid < y.txid ? -1 : 1))) note(`tx ${s.index} ${t.txid} ${t.type} ${t.status} ${t.amount} ${t.previous_txid ?? ''}`);
      for (const b of s.balances) note(`balance ${s.index} ${b.pubkey_hash} ${b.currency} ${b.net_balance}`);
    }
    const violations = checkInvariants({
      nodes: states,
      payments,
      limits,
      indexOfHash: new Map(nodes.map((n) => [n.hash, n.index])),
      faulted: faultCount > 0,
      // A restart forgets discoveries; a payee whose clock runs ahead finds a leg expired that its payer sent in time.
      explained: [...(crashes.count ? ['route_unknown'] : []), ...(skew.some((k) => k !== 0) ? ['expired'] : []), ...[...liars.values()].flatMap((k) => LIAR_CAUSES[k])],
      liars: new Set(liars.keys()),
      owingLiars: new Set([...liars].filter(([, kind]) => LIAR_OWES.has(kind)).map(([index]) => index)),
      splits: more.splits,
    });
    violations.push(...crashes.failures);
    if (!crashes.allUp()) violations.push('a crashed node was still down after quiescence');
    const digest = trace.digest('hex');
    if (options.traceFile) {
      writeFileSync(options.traceFile, lines.join('\n') + '\n');
      writeFileSync(`${options.traceFile}.state.json`, JSON.stringify({ payments, states }, null, 1));
    }
    const stats = summarize(payments, states, {
      faults: faultCount,
      crashes: crashes.count,
      workloads: more.counts,
      virtualMs: lastPayment - START,
      timersFired: clock.fired,
      wallMs: Math.round(wallNow() - wallStart),
      edges: edges.length,
      exchanges,
      routes: { ...(await routeFigures(nodes)), noRoute },
      memory: { started: memoryStarted, end: memoryFigures(memoryBefore, options.nodes) },
    });
    return { options, digest, violations, stats };
  } finally {
    clock.uninstall();
    for (const n of nodes) await n.destroy().catch(() => {});
    restoreRandom();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes a and b contacts with a line each way: `ab` is what a extends to b (and charges b's payments for relaying). */
async function connect(
  clock: VirtualClock,
  a: SimNode,
  b: SimNode,
  ab: { credit: string; fee: number },
  ba: { credit: string; fee: number },
): Promise<void> {
  await a.ok('POST', '/api/v1/contacts', { address: b.address, name: `n${b.index}`, fee_percent: ab.fee, credit_limit: ab.credit, currency: CURRENCY });
  for (let i = 0; i < 50; i++) {
    const res = await b.rest('GET', `/api/v1/contacts/${a.hash}/currencies`);
    if (res.status === 200 && (res.body.data.currencies as any[]).some((c) => c.status === 'pending')) break;
    await clock.runUntil(clock.now() + 200);
  }
  const known = await b.rest('GET', `/api/v1/contacts/${a.hash}`);
  const established = known.status === 200 && known.body.data.contact.status === 'accepted';
  await b.ok('POST', `/api/v1/contacts/${a.hash}/decisions`, {
    decisions: [{ currency: CURRENCY, action: 'accept', fee: ba.fee, credit: ba.credit }],
    ...(established ? {} : { is_new_contact: true, contact_address: a.address, contact_name: `n${a.index}` }),
  });
}

async function collect(n: SimNode): Promise<NodeState> {
  const transactions: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await n.ok('GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset });
    transactions.push(...(page.transactions as any[]));
    if (offset + 100 >= page.pagination.total) break;
  }
  const balances = (await n.ok('GET', '/api/v1/wallet/balance')).balances as any[];
  const info = await n.ok('GET', '/api/v1/wallet/info');
  const fees = ((info.fee_earnings ?? []) as any[]).find((f) => String(f.currency).toLowerCase() === CURRENCY.toLowerCase())?.total_amount ?? '0';
  const verify = await n.ok('GET', '/api/v1/chain/verify');
  return { index: n.index, hash: n.hash, address: n.address, transactions, balances, fees: String(fees), verify };
}

function summarize(payments: Payment[], states: NodeState[], extra: Record<string, unknown>): Record<string, unknown> {
  const outcome = (p: Payment): string => {
    const s = states[p.from]!;
    if (p.txid) return s.transactions.find((t) => t.txid === p.txid)?.status ?? 'missing';
    return p.answer;
  };
  const byHops = new Map<number, { total: number; completed: number }>();
  const took: number[] = [];
  const counts: Record<string, number> = {};
  for (const p of payments) {
    const o = outcome(p);
    counts[`${p.routed ? 'routed' : 'direct'} ${o}`] = (counts[`${p.routed ? 'routed' : 'direct'} ${o}`] ?? 0) + 1;
    const h = byHops.get(p.hops) ?? { total: 0, completed: 0 };
    h.total++;
    if (o === 'completed') {
      h.completed++;
      const row = states[p.from]!.transactions.find((t) => t.txid === p.txid);
      if (row?.completed_at) took.push(Date.parse(row.completed_at) - p.startedAt);
    }
    byHops.set(p.hops, h);
  }
  return {
    ...extra,
    payments: payments.length,
    outcomes: counts,
    completionMs: { p50: quantile(took, 0.5), p99: quantile(took, 0.99) },
    successByHops: Object.fromEntries([...byHops].sort((a, b) => a[0] - b[0]).map(([h, v]) => [h, `${v.completed}/${v.total}`])),
  };
}

function quantile(xs: number[], q: number): number | null {
  if (!xs.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
