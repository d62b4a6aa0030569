/**
 * `npm run bench`: prints figures; asserts nothing. Knobs (environment):
 *   BENCH_CONCURRENCY (50), BENCH_WARMUP_S (2), BENCH_DURATION_S (10), BENCH_CLIENT (http, fetch or both: both),
 *   BENCH_STATUS_ROUNDS (3: signed and bare status windows, alternating),
 *   BENCH_AUTH_N (100000), BENCH_PEER_CONCURRENCY (32), BENCH_PEER_TRANSPORT (http: https by default),
 *   BENCH_BACKUP_MB (1024), BENCH_ROUTE_* (see routing.ts), BENCH_NODES (processes; threads: payments and routing),
 *   BENCH_NODE_ARGV (Node options of those processes, payments.ts),
 *   BENCH_ONLY (comma-separated subset of status,auth,peer,contact,payments,triangle,routing,backup,export: all), or the
 *   same names as arguments (`npm run bench -- payments triangle status`); BENCH_TRI_RATE, BENCH_TRI_S (triangle.ts),
 *   BENCH_EXPORT_ROWS (1000000), BENCH_MCP_SAMPLES (400), BENCH_MCP_SESSIONS (50); BENCH_ONLY also takes mcp.
 *   BENCH_SANDBOX_SAMPLES (3000), BENCH_SANDBOX_IDLE (20); BENCH_ONLY also takes sandbox.
 *   BENCH_CHAIN_ROWS (50000); BENCH_ONLY also takes chain.
 *   BENCH_MCP_FED_SAMPLES (200: the one-hop and two-hop runs both call S with B's key, and the public /mcp route
 *   allows one key 600 requests a minute); BENCH_ONLY also takes mcp-federation.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { runAuthBench } from './auth.js';
import { runBackupBench } from './backup.js';
import { benchChainChecks } from './chain-checks.js';
import { benchExport } from './export.js';
import { benchMcp } from './mcp.js';
import { benchMcpFederation } from './mcp-federation.js';
import { benchPayments } from './payments.js';
import { runContactRoundTripBench, runPeerMessageBench } from './peer.js';
import { benchRouting } from './routing.js';
import { benchSandbox } from './sandbox.js';
import { benchTriangle } from './triangle.js';
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
  const only = [...(process.env.BENCH_ONLY ?? '').split(','), ...process.argv.slice(2)].map((s) => s.trim()).filter(Boolean);
  const wanted = (name: string): boolean => only.length === 0 || only.includes(name);
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`load average ${load()} (other work on the machine skews every figure below)`);
  if (wanted('status')) {
    console.log(`\n[1] signed GET ${STATUS_PATH}, node in this process, clients in a worker thread, loopback`);
    await runStatusBench({
      concurrency: intEnv('BENCH_CONCURRENCY', 50),
      warmupMs: intEnv('BENCH_WARMUP_S', 2) * 1000,
      durationMs: intEnv('BENCH_DURATION_S', 10) * 1000,
      rounds: intEnv('BENCH_STATUS_ROUNDS', 3),
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
  if (wanted('triangle')) {
    console.log('\n[5b] completion lag under two-way load in a triangle');
    await benchTriangle();
  }
  if (wanted('routing')) {
    console.log('\n[6] routed payments: 5 legs, REST call to completed at the destination; routed payments per second through one relay');
    await benchRouting();
  }
  if (wanted('backup')) {
    console.log('\n[backup] a backup of a large database while the REST API serves, node in this process');
    await runBackupBench(intEnv('BENCH_BACKUP_MB', 1024));
  }
  if (wanted('export')) {
    console.log('\n[export] GET /api/v1/export/transactions, node in its own process, client reading on loopback');
    await benchExport(intEnv('BENCH_EXPORT_ROWS', 1_000_000));
  }
  if (wanted('chain')) {
    console.log("\n[chain] a long chain's checks, in-process: verify-chain's full audit, the links and totals a repair reads, and the line pings and the check after payments read");
    await benchChainChecks(intEnv('BENCH_CHAIN_ROWS', 50_000));
  }
  if (wanted('mcp')) {
    console.log('\n[mcp] mcp-passthrough: added latency over the fake upstream, and billed calls per second with concurrent MCP sessions');
    await benchMcp({
      samples: intEnv('BENCH_MCP_SAMPLES', 400),
      sessions: intEnv('BENCH_MCP_SESSIONS', 50),
      warmupMs: intEnv('BENCH_WARMUP_S', 2) * 1000,
      durationMs: intEnv('BENCH_DURATION_S', 10) * 1000,
    });
  }
  if (wanted('mcp-federation')) {
    console.log('\n[mcp-federation] inference federation: latency added per resale hop over the seller\'s own');
    await benchMcpFederation(intEnv('BENCH_MCP_FED_SAMPLES', 200));
  }
  if (wanted('sandbox')) {
    console.log('\n[sandbox] third-party plugins in isolated-vm: added latency of a sandboxed route over a builtin one, memory per idle isolate');
    await benchSandbox();
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
