export type EventHandler<P = unknown> = (payload: P) => void | Promise<void>;

/** Events the kernel itself publishes on the bus. */
export const KERNEL_EVENTS = {
  /** The dead letter queue changed (an item parked, retried, resolved or abandoned); payload `{ pending }`. */
  dlqChanged: 'dlq.changed',
  /**
   * The disk takes writes again after a fault (full, read-only, failing); payload `{}`. Work a plugin held because a
   * write was refused is resumed on it.
   */
  storageRecovered: 'storage.recovered',
} as const;

export interface EventsApi {
  publish(name: string, payload?: unknown): void;
  subscribe<P = unknown>(name: string, handler: EventHandler<P>): () => void;
}

export interface JobDefinition {
  /** Unique within the plugin; the host prefixes it with the plugin name. */
  name: string;
  /**
   * The background processor this job belongs to, reported in `system/status.processors`
   * (`p2p`, `transaction`, `cleanup`, or a plugin's own).
   */
  processor?: string;
  /** Re-run every so many milliseconds (retries, sweeps). */
  everyMs?: number;
  /** Run daily at this UTC time. */
  dailyAt?: { hour: number; minute: number };
  /**
   * A schedule of the job's own: the next run time (ms since the epoch) after `now`, asked again after every timed
   * run (a daily time plus a fresh random delay, for example); null leaves the job unscheduled until kicked.
   */
  nextRunAt?: (now: number) => number | null;
  /** Runs the work. A job never runs twice at once; a kick while running queues one more run. */
  run(): Promise<void> | void;
}

export interface JobsApi {
  register(job: JobDefinition): void;
  /** Runs a job now (event-driven work: called right after the commit that created the work). */
  kick(name: string): void;
  /** Asks the job's `nextRunAt` again now and re-arms it: what its schedule depends on (a setting) changed. */
  reschedule(name: string): void;
  /** When the job's next timed run is armed (ms since the epoch, `ctx.clock`'s time), or null when none is. */
  nextRun(name: string): number | null;
}

export interface ServicesApi {
  provide<T extends object>(name: string, service: T): void;
  use<T extends object>(name: string): T;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Prometheus families a plugin registers (`ctx.metrics`); the node serves them at its scrape endpoint (`GET /metrics`,
 * docs/operations.md). Names get the node's prefix (`wallet_node_`); a family keeps its values across a plugin restart.
 * Label values are whatever the plugin passes, so keep them few: past `maxSeries` distinct label sets (default 100)
 * a new set is recorded under the value `_other` for every label.
 */
export interface MetricFamily {
  /** snake_case, without the prefix; counters end in `_total` by Prometheus convention. */
  name: string;
  help: string;
  labels?: readonly string[];
  maxSeries?: number;
}

export type MetricLabels = Record<string, string>;

export interface CounterMetric {
  inc(labels?: MetricLabels, value?: number): void;
}

export interface HistogramMetric {
  observe(labels: MetricLabels | undefined, value: number): void;
}

/** One series of a gauge read at scrape time. */
export interface GaugeSample {
  labels?: MetricLabels;
  value: number;
}

export interface MetricsApi {
  counter(family: MetricFamily): CounterMetric;
  histogram(family: MetricFamily & { buckets: readonly number[] }): HistogramMetric;
  /** A gauge whose series `read` returns at each scrape (keep it cheap); it stops being served when the plugin stops. */
  gauge(family: MetricFamily, read: () => Iterable<GaugeSample>): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
