/**
 * Budgets: a cap on what a key's calls may be charged per period (UTC day, week from Monday, month), beside its
 * prepaid balance (docs/mcp-passthrough.md, "Budgets"). What a call may still be charged is the cap less what the
 * period's calls were charged (their usage rows) less what calls in flight hold (Billing reserves against it), so calls
 * started together cannot pass the cap together. A call whose most possible cost does not fit is refused with
 * `budget_exceeded` and the seconds until the period ends.
 *
 * When a settled charge carries the period's spending across the operator's soft limit (a share of the cap), the
 * plugin says so once: an event on the bus (the GUI shows it), a log line, a metric.
 */
import { formatMinor, type Logger, type Minor } from '../../sdk/index.js';
import { MCP_EVENTS } from './api.js';
import type { InferenceMetrics } from './metrics.js';
import type { BudgetPeriod, KeyRow, McpStore } from './store.js';


export interface BudgetLeft {
  /** What the period's calls may still be charged, before what calls in flight hold. */
  left: Minor;
  amount: Minor;
  spent: Minor;
  period: string;
  resetsAt: number;
}

export class Budgets {
  constructor(
    private readonly store: McpStore,
    private readonly softLimitPct: () => number,
    private readonly publish: (event: string, payload: Record<string, unknown>) => void,
    private readonly metrics: InferenceMetrics,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The key's budget in the current period; null when it has none. */
  left(key: KeyRow): BudgetLeft | null {
    const b = key.limits.budget;
    if (!b) return null;
    const now = this.now();
    const spent = this.store.chargedSince(key.id, periodStart(b.period, now));
    return { left: b.amount > spent ? b.amount - spent : 0n, amount: b.amount, spent, period: b.period, resetsAt: periodEnd(b.period, now) };
  }

  /** After a call was settled (its usage row written): the soft-limit signal when this charge crossed it. */
  charged(key: KeyRow, charge: Minor): void {
    if (charge === 0n) return;
    const b = this.left(key);
    if (!b) return;
    const soft = (b.amount * BigInt(this.softLimitPct())) / 100n;
    const before = b.spent - charge;
    if (before >= soft || b.spent < soft) return;
    const payload = {
      key_id: key.id,
      label: key.label,
      spent: formatMinor(b.spent),
      budget: formatMinor(b.amount),
      currency: key.currency,
      period: b.period,
      soft_limit_pct: this.softLimitPct(),
      resets_at: new Date(b.resetsAt).toISOString(),
    };
    this.log.warn('a key crossed the soft limit of its budget', payload);
    this.metrics.softLimit();
    this.publish(MCP_EVENTS.budgetSoftLimit, payload);
  }
}

/** The start of the budget period holding `now` (UTC: the day, the week from Monday, the month). */
export function periodStart(period: BudgetPeriod, now: number): number {
  const d = new Date(now);
  if (period === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'day') return day;
  return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
}

/** The start of the next period (when a spent budget is whole again). */
export function periodEnd(period: BudgetPeriod, now: number): number {
  const start = new Date(periodStart(period, now));
  if (period === 'month') return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  return start.getTime() + (period === 'day' ? 1 : 7) * 86_400_000;
}
