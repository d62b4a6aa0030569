import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { CounterMetric, GaugeSample, HistogramMetric, Logger, MetricFamily, MetricLabels, MetricsApi } from '../sdk/index.js';

export const METRIC_PREFIX = 'wallet_node_';
const DEFAULT_MAX_SERIES = 100;
const OVERFLOW = '_other';
const NAME = /^[a-z][a-z0-9_]*$/;

type Kind = 'counter' | 'histogram' | 'gauge';

interface Entry {
  owner: string;
  kind: Kind;
  shape: string;
  metric: Metric;
  /** Each series' label values, by its key (seriesKey): at most `maxSeries`, so a hot series' labels are built once. */
  series: Map<string, MetricLabels>;
  /** Gauges read another plugin generation's state: a restart must register them again. */
  transient: boolean;
}

/**
 * Process metrics (CPU, memory, event loop, GC) describe the process, not a node, and prom-client's collectors can
 * be started but never stopped: one registry per process, made at the first scrape.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The node's Prometheus families. Each has an owner (`kernel` or a plugin); owners register by name, and the same
 * owner asking again for the same family gets it back, so counters survive a plugin restart while a name clash
 * between owners fails at setup.
 */
export class MetricsRegistry {
  readonly #registry = new Registry();
  readonly #families = new Map<string, Entry>();

  constructor(private readonly log: Logger) {}

  /** The text exposition of this node's families and the process's. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    const body = (await this.#registry.metrics()) + (await processMetrics().metrics());
    return { contentType: this.#registry.contentType, body };
  }

  forOwner(owner: string): MetricsApi {
    return {
      counter: (family) => this.#counter(owner, family),
      histogram: (family) => this.#histogram(owner, family),
      gauge: (family, read) => this.#gauge(owner, family, read),
    };
  }

  /** Stops serving the gauges an owner registered (its state is going away); counters and histograms stay. */
  releaseOwner(owner: string): void {
    for (const [name, e] of this.#families) {
      if (e.owner !== owner || !e.transient) continue;
      this.#registry.removeSingleMetric(name);
      this.#families.delete(name);
    }
  }

  #counter(owner: string, family: MetricFamily): CounterMetric {
    const { metric, bound } = this.#family(owner, 'counter', family, [], (name, labelNames) => new Counter({ name, help: family.help, labelNames, registers: [] }));
    const counter = metric as Counter;
    return { inc: (labels, value = 1) => counter.inc(bound(labels), value) };
  }

  #histogram(owner: string, family: MetricFamily & { buckets: readonly number[] }): HistogramMetric {
    const { metric, bound } = this.#family(owner, 'histogram', family, family.buckets, (name, labelNames) =>
      new Histogram({ name, help: family.help, labelNames, buckets: [...family.buckets], registers: [] }),
    );
    const histogram = metric as Histogram;
    return { observe: (labels, value) => histogram.observe(bound(labels), value) };
  }

  #gauge(owner: string, family: MetricFamily, read: () => Iterable<GaugeSample>): void {
    const log = this.log;
    const max = family.maxSeries ?? DEFAULT_MAX_SERIES;
    const labelNames = [...(family.labels ?? [])];
    const make = (name: string): Metric =>
      new Gauge({
        name,
        help: family.help,
        labelNames,
        registers: [],
        collect() {
          this.reset();
          // reset() leaves a label-less gauge at 0: a reader with nothing to say (no backup yet, a failure) means absent.
          if (labelNames.length === 0) this.remove();
          let kept = 0;
          try {
            // The reader sorts what matters first: past the cap the rest of this scrape is left out.
            for (const s of read()) {
              if (kept++ >= max) break;
              this.set(labelValues(labelNames, s.labels), s.value);
            }
          } catch (err) {
            // A failing reader leaves its gauge empty for this scrape; the others are still served.
            log.warn(`metric ${name} could not be read`, { error: err instanceof Error ? err.message : String(err) });
          }
        },
      });
    this.#family(owner, 'gauge', family, [], make, true);
  }

  #family(
    owner: string,
    kind: Kind,
    family: MetricFamily,
    extra: readonly number[],
    make: (name: string, labelNames: string[]) => Metric,
    transient = false,
  ): { metric: Metric; bound: (labels: MetricLabels | undefined) => MetricLabels } {
    if (!NAME.test(family.name)) throw new Error(`metric name "${family.name}" of ${owner} must be snake_case`);
    const name = METRIC_PREFIX + family.name;
    const labelNames = [...(family.labels ?? [])];
    const shape = JSON.stringify([kind, labelNames, extra]);
    let entry = this.#families.get(name);
    if (entry && (entry.owner !== owner || entry.shape !== shape)) {
      throw new Error(`metric ${name} is already registered${entry.owner === owner ? ' with other labels or type' : ` by ${entry.owner}`}`);
    }
    if (entry && transient) throw new Error(`metric ${name} is registered twice by ${owner}`);
    if (!entry) {
      entry = { owner, kind, shape, metric: make(name, labelNames), series: new Map(), transient };
      this.#registry.registerMetric(entry.metric);
      this.#families.set(name, entry);
    }
    const { series } = entry;
    const max = family.maxSeries ?? DEFAULT_MAX_SERIES;
    const overflow: MetricLabels = Object.freeze(Object.fromEntries(labelNames.map((l) => [l, OVERFLOW])));
    const bound = (labels: MetricLabels | undefined): MetricLabels => {
      const key = seriesKey(labelNames, labels);
      const known = series.get(key);
      if (known) return known;
      if (series.size >= max) return overflow;
      // prom-client keeps this object as the series' labels: shared by every later update, so never changed.
      const values = Object.freeze(labelValues(labelNames, labels));
      series.set(key, values);
      return values;
    };
    return { metric: entry.metric, bound };
  }
}

/** A series' identity: its label values in the family's order, each after its length (so no two tuples share one). */
function seriesKey(names: readonly string[], labels: MetricLabels | undefined): string {
  let key = '';
  for (const l of names) {
    const v = String(labels?.[l] ?? '');
    key += `${v.length}:${v}`;
  }
  return key;
}

function labelValues(names: readonly string[], labels: MetricLabels | undefined): MetricLabels {
  const values: MetricLabels = {};
  for (const l of names) values[l] = labels?.[l] ?? '';
  return values;
}
