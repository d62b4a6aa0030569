/**
 * Routed payment benchmarks (prints figures, asserts nothing). Every node runs in a process of its own
 * (BENCH_NODES=threads: a worker thread each), the REST client in this process; loopback, HTTPS between nodes.
 *
 *   latency     a line A-B-C-D-E-F (5 legs, relays charging 0.1 %), fast mode, one payment at a time: from the start of
 *               POST /wallet/send on A to `completed` of the last leg at F (F's own completion stamp). Discovery,
 *               the five prepares and F's fulfilment are on that path (F completes its leg when it fulfils it; E's chain
 *               entry places it in their chain after). p50, p90, p99. The next payment starts once every leg of the
 *               last one is final on every node, so no payment shares the relays with the last one's tail.
 *               Between two routed payments, one direct payment A → B is timed the same way: the baseline of the
 *               same run (this machine's load moves both), printed with the ratio.
 *               Measured after BENCH_ROUTE_WARMUP payments (600): a node that has made or relayed a few hundred
 *               payments. Node 20's V8 optimizes a function only after it has run enough, and each node runs its
 *               part of the path once or twice a payment, so the first hundreds of payments after a start run partly
 *               unoptimized and take longer (the p50 of the first 100 is printed too).
 *               Also the CPU time of the whole process per payment (every node's work, on and off that path).
 *   throughput  S senders and T receivers that are contacts of one relay R only: every payment is routed through R
 *               (discovery, two hash-locked legs, two chain entries); routed payments per second from the first
 *               request to the last completion at the receivers.
 *
 * Knobs (environment): BENCH_ROUTE_LATENCY_N (200), BENCH_ROUTE_WARMUP (600), BENCH_ROUTE_SENDERS (2), BENCH_ROUTE_RECEIVERS (2),
 * BENCH_ROUTE_TOTAL (1000), BENCH_ROUTE_IN_FLIGHT (16 per sender), BENCH_ROUTE_TRANSPORT (https; http).
 */
import { availableParallelism } from 'node:os';
import { epochMs, ms } from './clock.js';
import { BenchNode, connect, fire, intEnv, pct, until } from './payments.js';

const SETTINGS = {
  rate_limit_enabled: false,
  contact_status_enabled: false,
  hop_budget_randomized: false,
  max_p2p_level: 6,
  p2p_rate_limit_per_minute: 1_000_000,
  // HTTPS unless BENCH_ROUTE_TRANSPORT=http: the envelopes are signed and sealed either way.
  ...(process.env.BENCH_ROUTE_TRANSPORT === 'http' ? { default_transport_mode: 'http' } : {}),
};

async function start(n: number): Promise<BenchNode[]> {
  const nodes = await Promise.all(Array.from({ length: n }, () => BenchNode.start()));
  await Promise.all(nodes.map((t) => t.ok('PUT', '/api/v1/system/settings', SETTINGS)));
  return nodes;
}

async function latency(n: number): Promise<void> {
  const nodes = await start(6);
  try {
    for (let i = 0; i + 1 < nodes.length; i++) await connect(nodes[i]!, nodes[i + 1]!, `hop${i + 1}`);
    // Each relay charges 0.1 % to the node before it.
    for (let i = 1; i < nodes.length - 1; i++) {
      await nodes[i]!.ok('PUT', `/api/v1/contacts/${nodes[i - 1]!.pubkeyHash}`, { currency: 'VWL', fee_percent: '0.1' });
    }
    const A = nodes[0]!;
    const F = nodes[5]!;
    const B = nodes[1]!;
    const samples: number[] = [];
    const rest: number[] = [];
    const direct: number[] = [];
    const warmup = intEnv('BENCH_ROUTE_WARMUP', 600);
    // Every routed payment from the node's start, warm-up included: how long the path takes before V8 optimized it.
    const fromStart: number[] = [];
    // This process (the client, and the nodes when they are its worker threads) and the nodes' own processes.
    const cpuNow = (): number => {
      const u = process.cpuUsage();
      return u.user + u.system + nodes.reduce((sum, t) => sum + t.cpuMicros(), 0);
    };
    let cpuStart = cpuNow();
    let wallStart = performance.now();
    for (let i = 0; i < n + warmup; i++) {
      if (i === warmup) {
        cpuStart = cpuNow();
        wallStart = performance.now();
      }
      const t0 = epochMs();
      const p0 = performance.now();
      const sent = await A.ok('POST', '/api/v1/wallet/send', { address: F.baseUrl, amount: '0.01', currency: 'VWL' });
      const restMs = performance.now() - p0;
      // F tells of its leg's completion itself (the ledger's event): polling F's listing would load F while it works.
      const done = await F.whenFinal(sent.p2p_hash);
      if (done.status !== 'completed') throw new Error(`the leg at F ended ${done.status}`);
      // One payment at a time means the next starts once this one is over everywhere: every leg final on every node
      // (a relay has two), so the next payment's hops do not share the relays with this one's chain entries.
      const first = await A.whenFinal(sent.p2p_hash);
      if (first.status !== 'completed') throw new Error(`the leg at A ended ${first.status}`);
      await Promise.all(nodes.slice(1, -1).map((relay) => relay.whenFinalCount(sent.p2p_hash, 2)));
      // The baseline, between two routed payments: one direct payment A → B, REST call to completed at B.
      const d0 = epochMs();
      const paid = await A.ok('POST', '/api/v1/wallet/send', { address: B.baseUrl, amount: '0.01', currency: 'VWL' });
      const atB = await B.whenFinal(paid.txid);
      await A.whenFinal(paid.txid);
      fromStart.push(done.at - t0);
      if (i >= warmup) {
        samples.push(done.at - t0);
        rest.push(restMs);
        direct.push(atB.at - d0);
      }
    }
    const cpuPerPayment = (cpuNow() - cpuStart) / 1000 / n;
    const wallPerPayment = (performance.now() - wallStart) / n;
    const cold = fromStart.slice(0, 100).sort((a, b) => a - b);
    samples.sort((a, b) => a - b);
    rest.sort((a, b) => a - b);
    direct.sort((a, b) => a - b);
    console.log(
      `  routed payment over 5 legs A → F, fast mode, from the REST call to completed at F (${n} one after another, after ${warmup} warm-up payments; ms, node clocks):\n` +
        `    p50 ${ms(pct(samples, 50))} ms   p90 ${ms(pct(samples, 90))} ms   p99 ${ms(pct(samples, 99))} ms   min ${ms(samples[0]!)} ms` +
        `   (the REST answer, once the route is found and the first leg leaves: p50 ${pct(rest, 50).toFixed(1)} ms)\n` +
        `    right after the nodes started, the first ${cold.length} payments (V8 has not optimized the path yet): p50 ${ms(pct(cold, 50))} ms\n` +
        `    baseline in the same run, a direct payment A → B (one leg), REST call to completed at B: p50 ${ms(pct(direct, 50))} ms; ` +
        `the routed payment's p50 is ${(pct(samples, 50) / pct(direct, 50)).toFixed(1)} times it\n` +
        `    CPU (six nodes and the client) per routed and direct payment: ${cpuPerPayment.toFixed(1)} ms, of ${wallPerPayment.toFixed(1)} ms wall clock`,
    );
  } finally {
    await Promise.all(nodes.map((t) => t.stop()));
  }
}

async function throughput(senders: number, receivers: number, total: number, inFlight: number): Promise<void> {
  const [R, ...others] = await start(1 + senders + receivers);
  const payers = others.slice(0, senders);
  const payees = others.slice(senders);
  try {
    for (const [i, p] of payers.entries()) await connect(p, R!, `relay${i}`);
    for (const [i, d] of payees.entries()) await connect(R!, d, `payee${i}`);
    const received = async (): Promise<number> => {
      const counts = await Promise.all(
        payees.map(async (d) => (await d.ok('GET', '/api/v1/wallet/transactions', undefined, { type: 'received', status: 'completed', limit: 1 })).pagination.total as number),
      );
      return counts.reduce((s, c) => s + c, 0);
    };
    // Warm the connections (TLS sessions, statement caches) with one payment per pair.
    for (const p of payers) for (const d of payees) await p.ok('POST', '/api/v1/wallet/send', { address: d.baseUrl, amount: '0.01', currency: 'VWL' });
    const warm = senders * receivers;
    await until('warm-up', async () => ((await received()) >= warm ? true : null), 30_000, 20);

    const perSender = Math.ceil(total / senders);
    const t0 = performance.now();
    await fire(payers, perSender, inFlight, (i) => payees[i % receivers]!.baseUrl);
    const routed = performance.now() - t0;
    const count = perSender * senders;
    await until('all settled', async () => ((await received()) >= warm + count ? true : null), 300_000, 20);
    const elapsed = performance.now() - t0;
    console.log(
      `  ${senders} sender(s) → relay R → ${receivers} receiver(s) (${1 + senders + receivers} nodes, one thread each), ${count} routed payments, ${inFlight} in flight per sender:\n` +
        `    routes found and first legs sent in ${(routed / 1000).toFixed(2)} s; all completed at the receivers in ${(elapsed / 1000).toFixed(2)} s` +
        ` -> ${(count / (elapsed / 1000)).toFixed(0)} routed payments/s through one relay`,
    );
  } finally {
    await Promise.all([R!, ...others].map((t) => t.stop()));
  }
}

export async function benchRouting(): Promise<void> {
  console.log(`\n[routing] every node in its own worker thread, loopback, HTTPS between nodes (signed + sealed envelopes), ${availableParallelism()} CPUs`);
  await latency(intEnv('BENCH_ROUTE_LATENCY_N', 200));
  await throughput(intEnv('BENCH_ROUTE_SENDERS', 2), intEnv('BENCH_ROUTE_RECEIVERS', 2), intEnv('BENCH_ROUTE_TOTAL', 1000), intEnv('BENCH_ROUTE_IN_FLIGHT', 16));
}
