/**
 * Money at a glance: each contact's lines as bars (credit given and taken, used, available, fee), and the balance of
 * each currency over time as a step chart (uPlot: docs/decisions.md). Every chart has its numbers beside it in text.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { addressesOf } from './chrome.js';
import type { TxRow } from './page-history.js';
import { Table, useLoad, when } from './ui.js';

/** How far back the balance history reads: five pages of the REST listing (its cap is 100 a page). */
const HISTORY_PAGES = 5;

interface Step {
  at: string;
  change: number;
  balance: number;
}

/**
 * The balance of each currency after each completed payment, oldest first, walked back from today's balance (so the
 * last point is what the overview shows). A relay leg counts by its direction: paid to one of our addresses or by us.
 */
async function balanceSteps(): Promise<Record<string, Step[]>> {
  const [overview, info] = await Promise.all([
    api<ResponseData['GET /api/v1/wallet/overview']>('GET', '/api/v1/wallet/overview', undefined, { transaction_limit: 0 }),
    api<ResponseData['GET /api/v1/wallet/info']>('GET', '/api/v1/wallet/info'),
  ]);
  const own = new Set<string | null>(addressesOf(info));
  const rows: TxRow[] = [];
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const r = await api<ResponseData['GET /api/v1/wallet/transactions']>('GET', '/api/v1/wallet/transactions', undefined, { limit: 100, offset: page * 100, status: 'completed' });
    rows.push(...r.transactions);
    if (rows.length >= r.pagination.total) break;
  }
  const balance: Record<string, number> = Object.fromEntries(overview.balances.map((b) => [b.currency, Number(b.total_balance)]));
  const steps: Record<string, Step[]> = {};
  for (const t of rows) {
    const incoming = t.type === 'received' || (t.type === 'relay' && own.has(t.receiver_address));
    const change = (incoming ? 1 : -1) * Number(t.amount);
    const after = balance[t.currency] ?? 0;
    (steps[t.currency] ??= []).unshift({ at: t.completed_at ?? t.timestamp, change, balance: after });
    // Decimal strings summed as floats: rounded back to the 8 places amounts have.
    balance[t.currency] = Math.round((after - change) * 1e8) / 1e8;
  }
  return steps;
}

/** The page's text colour, for a chart's axes (a canvas reads no CSS): dark on the light theme, light on the dark. */
const ink = (): string => getComputedStyle(document.documentElement).getPropertyValue('--fg').trim() || '#1a1a1a';
const PALETTE = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490'];

/** A uPlot chart in `el` that follows its width; returns what removes it. */
function plotIn(el: HTMLElement, options: Omit<uPlot.Options, 'width' | 'height'>, data: uPlot.AlignedData): () => void {
  const axis: uPlot.Axis = { stroke: ink(), grid: { stroke: 'rgba(128,128,128,.25)' }, ticks: { stroke: 'rgba(128,128,128,.4)' } };
  const plot = new uPlot({ width: Math.max(240, el.clientWidth), height: 200, legend: { show: false }, axes: [axis, { ...axis, size: 60 }], ...options }, data, el);
  const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: 200 }));
  resize.observe(el);
  return () => (resize.disconnect(), plot.destroy());
}

/** A step chart of one currency's balance; the text table beside it carries the same numbers. */
function StepChart(props: { currency: string; steps: Step[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const first = props.steps[0]!;
    const xs = [Date.parse(first.at) / 1000 - 1, ...props.steps.map((s) => Date.parse(s.at) / 1000)];
    const ys = [first.balance - first.change, ...props.steps.map((s) => s.balance)];
    return plotIn(
      el,
      { series: [{}, { label: `Balance ${props.currency}`, stroke: PALETTE[0], width: 2, fill: 'rgba(11,92,173,.08)', paths: uPlot.paths.stepped?.({ align: 1 }) }] },
      [xs, ys],
    );
  }, [props.steps]);
  return (
    <figure class="chart" data-testid={`balance-chart-${props.currency}`}>
      <figcaption>Balance {props.currency} over time</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={`Balance ${props.currency}: ${props.steps.length} changes, now ${props.steps.at(-1)!.balance}`} />
      <details>
        <summary>The numbers</summary>
        <Table
          caption={`Balance ${props.currency} after each payment`}
          rows={props.steps}
          empty=""
          columns={[
            ['When', (s: Step) => when(s.at)],
            ['Change', (s: Step) => (s.change > 0 ? `+${s.change}` : String(s.change))],
            ['Balance', (s: Step) => String(s.balance)],
          ]}
        />
      </details>
    </figure>
  );
}

export function BalanceHistory({ version }: { version: number }) {
  const { data } = useLoad(balanceSteps, version);
  const currencies = Object.entries(data ?? {}).filter(([, steps]) => steps.length > 0);
  if (!data) return null;
  return (
    <>
      <h2>Balance history</h2>
      {currencies.length === 0 ? (
        <p class="empty">No completed payment yet: the balance chart starts with the first one.</p>
      ) : (
        <div class="charts">{currencies.map(([currency, steps]) => <StepChart currency={currency} steps={steps} />)}</div>
      )}
    </>
  );
}

/** A bar of a line: how much of a limit is used; the numbers are in its label. */
function Bar(props: { label: string; used: number; limit: number }) {
  const pct = props.limit > 0 ? Math.min(100, Math.max(0, (props.used / props.limit) * 100)) : 0;
  return (
    <div class="bar-row">
      <span class="bar-label">{props.label}</span>
      <meter min={0} max={props.limit > 0 ? props.limit : 1} value={Math.max(0, props.used)} aria-label={props.label}>
        {pct.toFixed(0)}%
      </meter>
    </div>
  );
}

/**
 * Each accepted line: what the contact owes us against the credit we give, what we owe against the credit they give,
 * and what we may still send (their report). Net balance per contact comes from /wallet/balances.
 */
export function LineBars({ version }: { version: number }) {
  const { data } = useLoad(
    () =>
      Promise.all([
        api<ResponseData['GET /api/v1/contacts']>('GET', '/api/v1/contacts', undefined, { limit: 100 }),
        api<ResponseData['GET /api/v1/wallet/balances']>('GET', '/api/v1/wallet/balances'),
      ]),
    version,
  );
  if (!data) return null;
  const [contacts, balances] = data;
  const net = new Map(balances.balances.map((b) => [`${b.pubkey_hash}|${b.currency}`, Number(b.net_balance)]));
  const lines = contacts.contacts.flatMap((c) =>
    c.currencies.filter((l) => l.status === 'accepted').map((l) => ({ c, l, net: net.get(`${c.pubkey_hash}|${l.currency}`) ?? 0 })),
  );
  return (
    <>
      <h2>Lines</h2>
      {lines.length === 0 && <p class="empty">No accepted line yet: add a contact on the Contacts page.</p>}
      <div class="lines">
        {lines.map(({ c, l, net: n }) => (
          <article class="line" data-testid={`line-${c.name}-${l.currency}`} aria-label={`${c.name} ${l.currency}`}>
            <h3>
              {c.name} · {l.currency}
            </h3>
            <Bar label={`${c.name} owes you ${Math.max(0, n)} of the ${l.credit_limit} you extend`} used={Math.max(0, n)} limit={Number(l.credit_limit)} />
            <Bar label={`You owe ${c.name} ${Math.max(0, -n)} of the ${l.peer_credit_limit ?? '?'} they extend`} used={Math.max(0, -n)} limit={Number(l.peer_credit_limit ?? 0)} />
            <p class="line-facts">
              Available to send: {l.my_available_credit ?? '-'} · fee {l.fee_percent ?? 0}%
            </p>
          </article>
        ))}
      </div>
    </>
  );
}

/** A column of a daily chart's table, whose rows are the days, each with its index into the series' values. */
type DayColumn = [string, (r: { d: string; i: number }) => ComponentChildren];

/** Values per day for several named series (models, keys): one line each, and the same numbers as a table. */
export function DailyChart(props: { title: string; testid: string; days: readonly string[]; series: readonly { label: string; values: readonly number[] }[] }) {
  const box = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(props);
  useEffect(() => {
    const el = box.current;
    if (!el || props.days.length === 0) return;
    const xs = props.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    return plotIn(
      el,
      { series: [{}, ...props.series.map((s, i) => ({ label: s.label, stroke: PALETTE[i % PALETTE.length], width: 2, points: { show: true } }))] },
      [xs, ...props.series.map((s) => [...s.values])],
    );
  }, [key]);
  return (
    <figure class="chart" data-testid={props.testid}>
      <figcaption>{props.title}</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={`${props.title}: ${props.series.map((s) => s.label).join(', ')} over ${props.days.length} day(s)`} />
      <p class="legend">
        {props.series.map((s, i) => (
          <span class="legend-item">
            <span class="swatch" data-color={i % PALETTE.length} aria-hidden="true" /> {s.label}
          </span>
        ))}
      </p>
      <details>
        <summary>The numbers</summary>
        <Table
          caption={props.title}
          rows={props.days.map((d, i) => ({ d, i }))}
          empty=""
          columns={[['Day', (r) => r.d], ...props.series.map((s): DayColumn => [s.label, (r) => String(s.values[r.i])])]}
        />
      </details>
    </figure>
  );
}

/** Fees earned relaying, per day and currency (GET /wallet/fee-earnings): one line per currency. */
export function FeeEarnings({ version }: { version: number }) {
  const { data } = useLoad(() => api<ResponseData['GET /api/v1/wallet/fee-earnings']>('GET', '/api/v1/wallet/fee-earnings'), version);
  if (!data) return null;
  const days = [...new Set(data.days.map((d) => d.day))].sort();
  const currencies = [...new Set(data.days.map((d) => d.currency))].sort();
  const series = currencies.map((c) => ({ label: `Fees ${c}`, values: days.map((day) => Number(data.days.find((d) => d.day === day && d.currency === c)?.amount ?? 0)) }));
  return (
    <>
      <h2>Fees earned</h2>
      {days.length === 0 ? (
        <p class="empty">No fee earned yet: a payment routed through your lines pays the fee percent you set on a contact's line (Contacts, Terms).</p>
      ) : (
        <div class="charts">
          <DailyChart title="Fees earned per day" testid="chart-fees" days={days} series={series} />
        </div>
      )}
    </>
  );
}
