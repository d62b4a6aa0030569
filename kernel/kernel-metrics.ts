import { statfs } from 'node:fs/promises';
import type { AnsweredRequest } from './http/app.js';
import type { MetricsRegistry } from './metrics.js';
import type { PeerMessageCounter } from './peers/client.js';

/** Seconds: from a cached read to a slow plugin route behind a busy disk. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface KernelMetrics {
  answered(request: AnsweredRequest): void;
  jobRan(job: string, ok: boolean): void;
  peerMessage: PeerMessageCounter;
}

/**
 * The families of the kernel's own mechanisms: HTTP answers, background jobs, peer messages and the data
 * directory's disk. Plugins register theirs through `ctx.metrics`.
 */
export function kernelMetrics(registry: MetricsRegistry, dataDir: string): KernelMetrics {
  const m = registry.forOwner('kernel');
  const requests = m.counter({ name: 'http_requests_total', help: 'REST answers by route template, method and status', labels: ['route', 'method', 'status'], maxSeries: 1000 });
  const latency = m.histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to the answer head by route template and method',
    labels: ['route', 'method'],
    buckets: LATENCY_BUCKETS,
    maxSeries: 500,
  });
  const jobRuns = m.counter({ name: 'job_runs_total', help: 'Background job runs by job and result (ok, failed)', labels: ['job', 'result'], maxSeries: 200 });
  const messages = m.counter({
    name: 'peer_messages_total',
    help: 'Peer messages by direction (in, out), type and result',
    labels: ['direction', 'type', 'result'],
    maxSeries: 500,
  });
  // statfs is asynchronous and a gauge is read synchronously: each scrape shows the figures of the previous one.
  let disk: { free: number; size: number } | null = null;
  const refreshDisk = (): void => {
    statfs(dataDir).then(
      (s) => (disk = { free: s.bavail * s.bsize, size: s.blocks * s.bsize }),
      () => (disk = null),
    );
  };
  refreshDisk();
  m.gauge({ name: 'data_dir_free_bytes', help: 'Bytes available to the node on the data directory file system' }, () => {
    refreshDisk();
    return disk ? [{ value: disk.free }] : [];
  });
  m.gauge({ name: 'data_dir_size_bytes', help: 'Size of the data directory file system in bytes' }, () => (disk ? [{ value: disk.size }] : []));
  return {
    answered: (r) => {
      const method = r.method;
      requests.inc({ route: r.route, method, status: String(r.status) });
      latency.observe({ route: r.route, method }, r.seconds);
    },
    jobRan: (job, ok) => jobRuns.inc({ job, result: ok ? 'ok' : 'failed' }),
    peerMessage: (direction, type, result) => messages.inc({ direction, type, result }),
  };
}
