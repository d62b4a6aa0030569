/**
 * Benchmark: signed `GET /api/v1/system/status` against a node started in this process, with N concurrent
 * clients on loopback (in a worker thread), every request signed with a fresh nonce over reused connections.
 * Prints requests/s, p50/p90/p99 latency and errors; then the same load, same client, against a bare node:http
 * server in this process answering the bytes the node answered, and the node's share of it (issue 28: >= 40%). The
 * two alternate for a few rounds: this machine's speed swings within minutes, and one window of each compared a
 * quick phase with a slow one.
 * It asserts nothing.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { writeFileAtomic } from '../../kernel/fs-atomic.js';
import { AS_OPERATORS_RUN, startTestNode, tempDataDir, type TestNode } from '../support/node.js';
import type { ClientKind, LoadJob, LoadResult } from './load-worker.js';

export const STATUS_PATH = '/api/v1/system/status';

export interface StatusBenchOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Signed and bare windows measured in turn, this many times each. */
  rounds: number;
  clients: ClientKind[];
}

/**
 * The benchmark must not hit the per-key rate limit (100/min by default, 1000/min for the CLI key). It turns
 * rate limiting off through `PUT /api/v1/system/settings`; where that route is not there, it writes the same
 * setting into settings.json and restarts the node. (A key with a high `rate_limit_per_minute` through
 * `POST /api/v1/keys` is no way out: keys are capped at 10,000 per minute, two seconds at the target rate.)
 */
async function unthrottle(t: TestNode): Promise<string> {
  const put = await t.admin.put('/api/v1/system/settings', { rate_limit_enabled: false });
  if (put.status === 200) return 'rate limiting off via PUT /api/v1/system/settings';
  const file = join(t.dataDir, 'settings.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileAtomic(file, JSON.stringify({ ...saved, rateLimitEnabled: false }, null, 2) + '\n');
  await t.restart();
  return `rate limiting off via settings.json and a restart (PUT /api/v1/system/settings answered ${put.status})`;
}

/** Runs the load in a worker; also measures how busy this (the node's) event loop was during the window. */
function runLoad(job: LoadJob): Promise<LoadResult & { serverBusy: number }> {
  let elu: EventLoopUtilization | null = null;
  let serverBusy = NaN;
  const startElu = setTimeout(() => (elu = performance.eventLoopUtilization()), job.warmupMs);
  const endElu = setTimeout(() => {
    if (elu) serverBusy = performance.eventLoopUtilization(elu).utilization;
  }, job.warmupMs + job.durationMs);
  return new Promise<LoadResult>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: job });
    worker.once('message', (msg: LoadResult | { error: string }) => {
      if ('error' in msg) reject(new Error(msg.error));
      else resolve(msg);
      void worker.terminate();
    });
    worker.once('error', reject);
  })
    .then((r) => ({ ...r, serverBusy }))
    .finally(() => {
      clearTimeout(startElu);
      clearTimeout(endElu);
    });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const pct = (v: number): string => (Number.isNaN(v) ? '-' : `${Math.round(v * 100)}%`);
const ms = (v: number): string => (Number.isNaN(v) ? '-' : `${v.toFixed(2)} ms`);

const CLIENT_NAMES: Record<ClientKind, string> = {
  http: 'node:http, keep-alive Agent',
  fetch: 'fetch (undici), keep-alive pool',
};

/** A bare node:http server answering every request with `body` (what the node answered), as JSON. */
async function bareServer(body: Buffer): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function report(label: string, r: LoadResult & { serverBusy: number }): number {
  const sorted = r.latencies.slice().sort();
  const done = sorted.length;
  const ok = Object.entries(r.statuses)
    .filter(([s]) => s.startsWith('2'))
    .reduce((n, [, c]) => n + c, 0);
  const non2xx = Object.entries(r.statuses).filter(([s]) => !s.startsWith('2'));
  const errors = done - ok + r.networkErrors;
  const perSecond = Math.round(ok / (r.windowMs / 1000));
  console.log(
    `    ${label}: ${perSecond} requests/s (${done} requests)   ` +
      `p50 ${ms(percentile(sorted, 50))}   p90 ${ms(percentile(sorted, 90))}   p99 ${ms(percentile(sorted, 99))}   ` +
      `errors ${errors}` +
      (non2xx.length ? ` (${non2xx.map(([s, c]) => `${c}x ${s}`).join(', ')})` : '') +
      (r.networkErrors ? ` (${r.networkErrors} network errors, first: ${r.firstError})` : '') +
      `   event loops busy: server ${pct(r.serverBusy)}, clients ${pct(r.clientBusy)}`,
  );
  return perSecond;
}

export async function runStatusBench(options: StatusBenchOptions): Promise<void> {
  const t = await startTestNode({ dataDir: tempDataDir(), env: AS_OPERATORS_RUN });
  try {
    console.log(`  ${await unthrottle(t)}`);
    const { key_id: keyId, secret } = t.node.cliCredentials();
    const probe = await t.admin.get(STATUS_PATH);
    const code = (probe.body as { error?: { code?: string } } | null)?.error?.code;
    console.log(`  probe: GET ${STATUS_PATH} -> ${probe.status}${code ? ` ${code}` : ''}`);
    if (probe.status !== 200) {
      console.log(`  NOTE: the route does not answer 200 yet; the figures below measure that ${probe.status} path, not a signed status read`);
    }

    for (const client of options.clients) {
      const job: LoadJob = {
        baseUrl: t.node.baseUrl,
        path: STATUS_PATH,
        keyId,
        secret,
        concurrency: options.concurrency,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs,
        client,
      };
      console.log(
        `  client ${CLIENT_NAMES[client]}: ${options.concurrency} concurrent, ` +
          `${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s measured, each`,
      );
      const bare = await bareServer(Buffer.from(JSON.stringify(probe.body)));
      try {
        // Windows alternate, the order flipped each round, so that neither side is always measured on a quieter machine.
        const ratios: number[] = [];
        for (let round = 1; round <= options.rounds; round++) {
          const measure = async (which: 'signed' | 'bare'): Promise<number> =>
            which === 'signed'
              ? report(`round ${round}, signed status`, await runLoad(job))
              : report(`round ${round}, bare node:http, same bytes`, await runLoad({ ...job, baseUrl: bare.baseUrl }));
          const first = round % 2 === 1 ? 'signed' : 'bare';
          const a = await measure(first);
          const b = await measure(first === 'signed' ? 'bare' : 'signed');
          ratios.push(first === 'signed' ? a / b : b / a);
        }
        const median = ratios.slice().sort((x, y) => x - y)[ratios.length >> 1]!;
        console.log(`    signed status at ${ratios.map(pct).join(', ')} of bare node:http, round by round (median ${pct(median)}, lowest ${pct(Math.min(...ratios))}; target >= 40%)`);
      } finally {
        await new Promise((resolve) => bare.server.close(resolve));
        bare.server.closeAllConnections();
      }
    }
  } finally {
    await t.destroy();
  }
}
