/**
 * Benchmark: does writing (and verifying) a backup of a large database stall the REST API? A node in this process
 * gets a database of BENCH_BACKUP_MB (default 1024) MiB, filled by SQLite itself (random blobs, one statement);
 * a worker thread meanwhile sends signed `GET /api/v1/system/status` requests, a few at a time, and the latencies of
 * the requests that started while the backup ran are compared with a quiet baseline of the same length. Also printed:
 * the backup's duration, throughput and file size, and the process's resident memory (the file is sealed a chunk at
 * a time, so it should not grow with the database). It asserts nothing.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { AS_OPERATORS_RUN, startTestNode, tempDataDir, type TestNode } from '../support/node.js';
import type { ProbeJob, ProbeResult } from './backup-probe.js';
import { STATUS_PATH } from './status.js';

const BLOB_BYTES = 64 * 1024;
const PROBE_CONCURRENCY = 4;
const WARMUP_MS = 1000;
const MiB = 1024 * 1024;

interface Window {
  latencies: number[];
  errors: number;
  ms: number;
  peakRssMb: number;
  /** The longest the node's event loop was blocked, ms. */
  loopMaxMs: number;
}

/** Fills the stopped node's database to about `mb` MiB, in a rollback journal so the data is written once, not twice. */
function fill(dataDir: string, mb: number): number {
  const db = new Database(join(dataDir, 'node.db'));
  try {
    db.pragma('journal_mode = DELETE');
    db.exec('CREATE TABLE bench_filler (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)');
    const rows = Math.ceil((mb * MiB) / BLOB_BYTES);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO bench_filler (payload) SELECT randomblob(${BLOB_BYTES}) FROM n`);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return statSync(join(dataDir, 'node.db')).size;
}

/** Probes the API while `work` runs (or, without work, for `quietMs`), from a worker thread. */
async function probe(t: TestNode, work: (() => Promise<unknown>) | null, quietMs: number): Promise<Window> {
  const { key_id: keyId, secret } = t.node.cliCredentials();
  const job: ProbeJob = { baseUrl: t.node.baseUrl, keyId, secret, path: STATUS_PATH, concurrency: PROBE_CONCURRENCY };
  const worker = new Worker(new URL('./backup-probe.js', import.meta.url), { workerData: job });
  const result = new Promise<ProbeResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  let peakRss = process.memoryUsage().rss;
  const rss = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const from = Date.now();
  if (work) await work();
  else await new Promise((r) => setTimeout(r, quietMs));
  const to = Date.now();
  loop.disable();
  clearInterval(rss);
  worker.postMessage('stop');
  const { samples, errors } = await result;
  await worker.terminate();
  const latencies: number[] = [];
  for (let i = 0; i < samples.length; i += 2) if (samples[i]! >= from && samples[i]! <= to) latencies.push(samples[i + 1]!);
  return { latencies: latencies.sort((a, b) => a - b), errors, ms: to - from, peakRssMb: peakRss / MiB, loopMaxMs: loop.max / 1e6 };
}

const pick = (sorted: number[], p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
const fmt = (v: number): string => (Number.isNaN(v) ? '-' : `${v.toFixed(1)} ms`);

function line(label: string, w: Window): string {
  return (
    `  ${label.padEnd(22)} ${String(w.latencies.length).padStart(6)} requests in ${(w.ms / 1000).toFixed(1)} s   ` +
    `p50 ${fmt(pick(w.latencies, 50))}   p99 ${fmt(pick(w.latencies, 99))}   max ${fmt(pick(w.latencies, 100))}   ` +
    `errors ${w.errors}   node event loop blocked at most ${fmt(w.loopMaxMs)}   peak RSS ${w.peakRssMb.toFixed(0)} MB`
  );
}

export async function runBackupBench(mb: number): Promise<void> {
  const dataDir = tempDataDir();
  const t = await startTestNode({ dataDir, env: AS_OPERATORS_RUN });
  try {
    await t.stop();
    const filled = Date.now();
    const dbBytes = fill(dataDir, mb);
    console.log(`  database: ${(dbBytes / MiB).toFixed(0)} MiB (filled by SQLite in ${((Date.now() - filled) / 1000).toFixed(1)} s)`);
    await t.restart();
    // No per-key limit in the way, and no second backup of this size when the node stops.
    await t.admin.put('/api/v1/system/settings', { rate_limit_enabled: false, auto_backup_enabled: false });
    console.log(`  probe: signed GET ${STATUS_PATH}, ${PROBE_CONCURRENCY} at a time, from a worker thread; node on this thread`);

    const started = { at: 0, file: '', size: 0 };
    const during = await probe(
      t,
      async () => {
        started.at = Date.now();
        const res = await t.admin.request<{ data: { filename: string; size: number } }>('POST', '/api/v1/backup/create', { body: {} });
        if (res.status !== 201) throw new Error(`backup create answered ${res.status}: ${JSON.stringify(res.body)}`);
        started.file = res.body.data.filename;
        started.size = res.body.data.size;
      },
      0,
    );
    const baseline = await probe(t, null, during.ms);
    const verifying = await probe(
      t,
      async () => {
        const res = await t.admin.request<{ data: { valid: boolean } }>('POST', '/api/v1/backup/verify', { body: { filename: started.file } });
        if (res.status !== 200 || !res.body.data.valid) throw new Error(`verify answered ${res.status}: ${JSON.stringify(res.body)}`);
      },
      0,
    );

    const seconds = during.ms / 1000;
    console.log(
      `  backup: ${started.file}, ${(started.size / MiB).toFixed(0)} MiB in ${seconds.toFixed(1)} s ` +
        `(${(dbBytes / MiB / seconds).toFixed(0)} MiB/s); verify (decrypt + integrity check) ${(verifying.ms / 1000).toFixed(1)} s`,
    );
    console.log(line('baseline (quiet)', baseline));
    console.log(line('during the backup', during));
    console.log(line('during the verify', verifying));
    const stall = pick(during.latencies, 99) - pick(baseline.latencies, 99);
    console.log(`  p99 added by the backup: ${fmt(stall)} (goal: at most 50 ms)${mb < 1024 ? `; database smaller than the 1 GiB of the goal` : ''}`);
  } finally {
    await t.destroy();
  }
}
