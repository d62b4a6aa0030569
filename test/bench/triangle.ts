/**
 * Completion lag under steady two-way load (issue 28): three nodes, each a contact of the other two, every node paying
 * both others at once, `BENCH_TRI_RATE` payments/s offered in all (200), open loop (a payment is fired on schedule
 * whether or not the earlier ones settled), for `BENCH_TRI_S` seconds (30; the issue's trial is 60).
 * Lag: from the REST answer that accepted the payment to `completed` on both sides (the nodes' own final events).
 */
import { epochMs, ms } from './clock.js';
import { BenchNode, connect, intEnv, pct } from './payments.js';

export async function benchTriangle(): Promise<void> {
  const rate = intEnv('BENCH_TRI_RATE', 200);
  const seconds = intEnv('BENCH_TRI_S', 30);
  const nodes = await Promise.all([0, 1, 2].map(() => BenchNode.start()));
  try {
    await Promise.all(nodes.map((n) => n.ok('PUT', '/api/v1/system/settings', { rate_limit_enabled: false })));
    await connect(nodes[0]!, nodes[1]!, 'n1');
    await connect(nodes[1]!, nodes[2]!, 'n2');
    await connect(nodes[2]!, nodes[0]!, 'n0');
    // The six directions, payer and payee; payments go by key hash (each side names the other differently).
    const edges = nodes.flatMap((from, i) => nodes.filter((_, j) => j !== i).map((to) => ({ from, to })));
    const lags: number[] = [];
    let failed = 0;
    /** Not final on both sides within a minute of the run's end (neither failed nor completed by then). */
    let unsettled = 0;
    let refused = 0;
    const refusals = new Map<string, number>();
    const settle: Promise<void>[] = [];
    const fire = async (edge: (typeof edges)[number]): Promise<void> => {
      // A socket the server closed as the request left (keep-alive race) counts as refused: a retry could pay twice.
      let why = '';
      const res = await edge.from
        .call('POST', '/api/v1/wallet/send', { address: edge.to.pubkeyHash, amount: '0.01', currency: 'VWL' })
        .catch((err: Error) => ((why = `socket: ${err.message}`), null));
      if (!res || res.status >= 300) {
        refused++;
        why ||= `${res!.status} ${String(res!.body?.error?.code ?? '')}`;
        refusals.set(why, (refusals.get(why) ?? 0) + 1);
        return;
      }
      const accepted = epochMs();
      const txid = res.body.data.txid as string;
      const timeout = (seconds + 60) * 1000;
      const [a, b] = await Promise.all([edge.from.whenFinal(txid, timeout), edge.to.whenFinal(txid, timeout)]).catch(() => [null, null]);
      if (!a || !b) unsettled++;
      else if (a.status !== 'completed' || b.status !== 'completed') failed++;
      else lags.push(Math.max(a.at, b.at) - accepted);
    };
    const total = rate * seconds;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let sent = 0;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
        while (sent < due) settle.push(fire(edges[sent++ % edges.length]!));
        if (sent >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    const offeredFor = (performance.now() - t0) / 1000;
    await Promise.all(settle);
    const drained = (performance.now() - t0) / 1000 - offeredFor;
    const cpu = process.cpuUsage(cpu0);
    lags.sort((x, y) => x - y);
    console.log(
      `  triangle, two-way, ${rate} payments/s offered for ${seconds} s (${total} payments, 3 nodes, one thread each):\n` +
        `    completion lag (REST accept → completed on both sides): p50 ${ms(pct(lags, 50))} ms   p99 ${ms(pct(lags, 99))} ms   max ${ms(lags[lags.length - 1]!)} ms` +
        `   (target p99 < 250 ms)\n` +
        `    failed ${failed}, not final within 60 s of the run ${unsettled}, refused by REST (or its socket) ${refused}; last settled ${drained.toFixed(2)} s after the last send; ` +
        `CPU ${((cpu.user + cpu.system) / 1000 / Math.max(1, lags.length)).toFixed(2)} ms per settled payment`,
    );
    if (refusals.size > 0) console.log(`    refused: ${[...refusals].map(([why, n]) => `${n} × ${why}`).join('; ')}`);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
}
