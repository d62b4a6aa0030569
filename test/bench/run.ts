/**
 * `npm run bench`: prints figures; asserts nothing. Knobs (environment):
 *   BENCH_CONCURRENCY (50), BENCH_WARMUP_S (2), BENCH_DURATION_S (10), BENCH_CLIENT (http, fetch or both: both),
 *   BENCH_AUTH_N (100000), BENCH_PEER_CONCURRENCY (32), BENCH_PEER_TRANSPORT (http: https by default),
 *   BENCH_ONLY (comma-separated subset of status,auth,peer,contact,payments: all).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { runAuthBench } from './auth.js';
import { benchPayments } from './payments.js';
import { runContactRoundTripBench, runPeerMessageBench } from './peer.js';
import type { ClientKind } from './load-worker.js';
import { runStatusBench, STATUS_PATH } from './status.js';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: expected a positive number, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  const clientEnv = (process.env.BENCH_CLIENT ?? 'both').toLowerCase();
  const clients: ClientKind[] = clientEnv === 'both' ? ['http', 'fetch'] : [clientEnv as ClientKind];
  if (!clients.every((c) => c === 'http' || c === 'fetch')) throw new Error(`BENCH_CLIENT: expected http, fetch or both`);

  console.log(
    `wallet-node benchmarks: node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? '?'}), ${process.platform}`,
  );
  const only = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const wanted = (name: string): boolean => only.length === 0 || only.includes(name);
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`load average ${load()} (other work on the machine skews every figure below)`);
  if (wanted('status')) {
    console.log(`\n[1] signed GET ${STATUS_PATH}, node in this process, clients in a worker thread, loopback`);
    await runStatusBench({
      concurrency: intEnv('BENCH_CONCURRENCY', 50),
      warmupMs: intEnv('BENCH_WARMUP_S', 2) * 1000,
      durationMs: intEnv('BENCH_DURATION_S', 10) * 1000,
      clients,
    });
  }
  if (wanted('auth')) {
    console.log('\n[2] authentication cost, in-process');
    runAuthBench(intEnv('BENCH_AUTH_N', 100_000));
  }
  if (wanted('peer')) {
    console.log('\n[3] sealed and signed peer messages between two nodes (receiver in a worker thread), loopback');
    await runPeerMessageBench({ concurrency: intEnv("BENCH_PEER_CONCURRENCY", 32), warmupMs: intEnv('BENCH_WARMUP_S', 2) * 1000, durationMs: intEnv('BENCH_DURATION_S', 10) * 1000 });
  }
  if (wanted('contact')) {
    console.log('\n[4] contact request round trip through the REST API, two nodes in this process');
    await runContactRoundTripBench(10);
  }
  if (wanted('payments')) {
    console.log('\n[5] direct payments: REST call to completed on both sides, and concurrent senders');
    await benchPayments();
  }
  console.log(`\nload average ${load()}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
