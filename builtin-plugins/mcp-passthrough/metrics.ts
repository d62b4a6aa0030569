import type { Minor, PluginContext } from '../../sdk/index.js';
import { formatMinor } from '../../sdk/money.js';

/** Upstream answers take from a few hundred milliseconds to minutes (long generations, streamed). */
const UPSTREAM_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Providers are the operator's and models a few each; sellers are cut to a key hash prefix by candidateName. */
const MAX_SERIES = 300;

export interface CallRecord {
  /** The provider id, or `seller:<key hash prefix>`. */
  provider: string;
  model: string;
  status: 'ok' | 'cancelled' | 'error';
  inputTokens: number;
  outputTokens: number;
  charge: Minor;
  currency: string;
}

export interface InferenceMetrics {
  /** One try at one upstream (a call with failover makes several): its time and how it ended. */
  attempt(provider: string, model: string, result: string, seconds: number): void;
  /** One settled call: what the customer was billed for. */
  call(record: CallRecord): void;
  /** A call refused by a key's limit (`requests_per_minute`, `budget`...). */
  refused(limit: string): void;
  /** A key's spending crossed its budget's soft limit. */
  softLimit(): void;
}

export function inferenceMetrics(ctx: PluginContext): InferenceMetrics {
  const labels = ['provider', 'model'];
  const attempts = ctx.metrics.histogram({
    name: 'upstream_request_duration_seconds',
    help: 'Upstream tries by provider, model and result (ok, or the failure code)',
    labels: [...labels, 'result'],
    buckets: UPSTREAM_BUCKETS,
    maxSeries: MAX_SERIES,
  });
  const calls = ctx.metrics.counter({ name: 'inference_calls_total', help: 'Settled inference calls by provider, model and status', labels: [...labels, 'status'], maxSeries: MAX_SERIES });
  const tokens = ctx.metrics.counter({ name: 'inference_tokens_total', help: 'Billed tokens by provider, model and kind (input, output)', labels: [...labels, 'kind'], maxSeries: MAX_SERIES });
  const spend = ctx.metrics.counter({
    name: 'inference_charge_total',
    help: 'What customers were charged by provider, model and currency (in currency units)',
    labels: [...labels, 'currency'],
    maxSeries: MAX_SERIES,
  });
  const refused = ctx.metrics.counter({ name: 'inference_limited_total', help: 'Calls refused by a key limit, by limit', labels: ['limit'], maxSeries: 20 });
  const soft = ctx.metrics.counter({ name: 'inference_budget_soft_limit_total', help: 'Keys whose spending crossed the soft limit of their budget' });
  return {
    refused: (limit) => refused.inc({ limit }),
    softLimit: () => soft.inc(),
    attempt: (provider, model, result, seconds) => attempts.observe({ provider, model, result }, seconds),
    call: (r) => {
      const at = { provider: r.provider, model: r.model };
      calls.inc({ ...at, status: r.status });
      tokens.inc({ ...at, kind: 'input' }, r.inputTokens);
      tokens.inc({ ...at, kind: 'output' }, r.outputTokens);
      spend.inc({ ...at, currency: r.currency }, Number(formatMinor(r.charge)));
    },
  };
}
