/**
 * Inference at a glance for the operator: spend and tokens per model and per key over time (the plugin's
 * `usage-summary`, groups rather than rows), the usage rows paged and filtered by the node, a customer key's detail in
 * a drawer, and the plugin's settings beyond mode and currency.
 */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { DailyChart } from './charts.js';
import { Choice, Copyable, Drawer, Field, Pager, Row, Status, Table, useAction, useLoad, when } from './ui.js';

export const BASE = '/api/v1/plugins/mcp-passthrough';
const PAGE = 20;

type UsageSummary = ResponseData[`GET ${typeof BASE}/usage-summary`];
type UsageDay = UsageSummary['days'][number];
/** A customer key as the plugin lists it (GET keys). */
export type KeyRow = ResponseData[`GET ${typeof BASE}/keys`]['keys'][number];

/** Per day, one value per group (a model, a key): zero where the group had no call that day. */
function pivot(days: UsageDay[], group: (d: UsageDay) => string, value: (d: UsageDay) => number): { days: string[]; series: { label: string; values: number[] }[] } {
  const dayList = [...new Set(days.map((d) => d.day))].sort();
  const labels = [...new Set(days.map(group))].sort();
  const series = labels.map((label) => ({
    label,
    values: dayList.map((day) => Math.round(days.filter((d) => d.day === day && group(d) === label).reduce((n, d) => n + value(d), 0) * 1e8) / 1e8),
  }));
  return { days: dayList, series };
}

/** Spend per model and tokens per key, per day, from the summary (all pages of it, up to its cap of 1000 groups). */
export function UsageCharts(props: { version: number; keyId?: number }) {
  const { data } = useLoad(() => api<UsageSummary>('GET', `${BASE}/usage-summary`, undefined, { key_id: props.keyId }), `${props.version}|${props.keyId ?? ''}`);
  if (!data) return null;
  if (data.days.length === 0) return <p class="empty">No call yet: the charts of spend and tokens start with the first call a customer makes.</p>;
  const keyLabel = (d: UsageDay) => `key ${d.key_id}`;
  const spend = pivot(data.days, (d) => `${d.model} (${d.currency})`, (d) => Number(d.charge));
  const tokens = pivot(data.days, keyLabel, (d) => d.input_tokens + d.output_tokens);
  const modelTokens = pivot(data.days, (d) => d.model, (d) => d.input_tokens + d.output_tokens);
  return (
    <div class="charts">
      <DailyChart title="Spend per model per day" testid="chart-spend-model" {...spend} />
      <DailyChart title="Tokens per model per day" testid="chart-tokens-model" {...modelTokens} />
      {props.keyId === undefined && <DailyChart title="Tokens per key per day" testid="chart-tokens-key" {...tokens} />}
    </div>
  );
}

/** The usage rows, newest first, as the plugin's `usage` route pages and filters them. */
export function UsageTable(props: { version: number; keys: readonly KeyRow[]; keyId?: number }) {
  const [filter, setFilter] = useState({ key_id: props.keyId === undefined ? '' : String(props.keyId), model: '' });
  const [offset, setOffset] = useState(0);
  const query = { limit: PAGE, offset, key_id: filter.key_id || undefined, model: filter.model || undefined };
  const { data, error } = useLoad(() => api<ResponseData[`GET ${typeof BASE}/usage`]>('GET', `${BASE}/usage`, undefined, query), `${props.version}|${JSON.stringify(query)}`);
  const change = (next: Partial<typeof filter>) => (setFilter({ ...filter, ...next }), setOffset(0));
  return (
    <>
      {props.keyId === undefined && (
        <form class="filters" aria-label="Filter the usage" onSubmit={(e) => e.preventDefault()}>
          <Choice label="Key" id="u-key" all value={filter.key_id} options={props.keys.map((k) => k.key_id)} onChange={(key_id) => change({ key_id })} />
          <Field label="Model" name="u-model" value={filter.model} onInput={(model) => change({ model })} />
        </form>
      )}
      <Status error={error} />
      {data && (
        <>
          <Table
            caption="Recent usage"
            rows={data.usage}
            empty={filter.model || filter.key_id ? 'No call matches: change the filter.' : 'No call yet: give a customer a key (above) and its endpoint.'}
            columns={[
              ['When', (u) => when(u.started_at)],
              ['Key', (u) => String(u.key_id ?? '-')],
              ['Model', (u) => u.model ?? '-'],
              ['Tokens in / out', (u) => `${u.input_tokens ?? '-'} / ${u.output_tokens ?? '-'}`],
              ['Charge', (u) => `${u.charge ?? '-'}`],
              ['Status', (u) => u.status ?? '-'],
            ]}
          />
          <Pager label="Pages of usage" offset={offset} size={PAGE} shown={data.usage.length} total={data.total} go={setOffset} />
        </>
      )}
    </>
  );
}

/** One customer key: its funding, balance and debt, its contact, and its own charts and usage. */
export function KeyDrawer(props: { k: KeyRow; version: number; close: () => void }) {
  const k = props.k;
  return (
    <Drawer title={`Customer key ${k.label}`} id="key-title" close={props.close} focusKey={String(k.key_id)}>
      <dl class="details">
        <Row term="Key id">{String(k.key_id)}</Row>
        <Row term="Status">{k.status}</Row>
        <Row term="Token">{`${k.token_hint} (the whole token was shown once, at creation)`}</Row>
        <Row term="Contact">{k.contact ? `${k.contact.name ?? k.contact.pubkey_hash.slice(0, 8)} (${k.contact.status})` : null}</Row>
        <Row term="Funding">{k.funding}</Row>
        <Row term="Balance">{`${k.balance} ${k.currency}`}</Row>
        <Row term="Debt">{`${k.debt} ${k.currency}`}</Row>
        <Row term="Top-up memo">{k.deposit_memo && <Copyable value={k.deposit_memo} label="the top-up memo" />}</Row>
        <Row term="Allowed origins">{k.allowed_origins.length ? k.allowed_origins.join(', ') : null}</Row>
        <Row term="Created">{when(k.created_at)}</Row>
        <Row term="Last used">{when(k.last_used_at)}</Row>
        <Row term="Expires">{when(k.expires_at)}</Row>
        {k.revoked_at && <Row term="Revoked">{when(k.revoked_at)}</Row>}
      </dl>
      <UsageCharts version={props.version} keyId={k.key_id} />
      <UsageTable version={props.version} keys={[k]} keyId={k.key_id} />
    </Drawer>
  );
}

/** Every setting of the plugin (`config.settings`), saved through `configure {set}` with only what changed. */
export function InferenceSettings(props: { settings: Record<string, string>; saved: () => void }) {
  const [edits, setEdits] = useState<Record<string, string>>({});
  const act = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const set = Object.fromEntries(Object.entries(edits).filter(([n, v]) => v !== props.settings[n]));
      if (Object.keys(set).length === 0) return 'Nothing changed';
      const r = await api<ResponseData[`POST ${typeof BASE}/configure`]>('POST', `${BASE}/configure`, { set });
      setEdits({});
      props.saved();
      return `Saved ${Object.keys(set).join(', ')}${r.warnings?.length ? ` (${r.warnings.join('; ')})` : ''}`;
    });
  };
  return (
    <form class="form" aria-label="Inference settings" onSubmit={save}>
      <h2>Settings</h2>
      <p>Markup on resale, federation (remote routing, hops), limits per call and per day, failover: docs/mcp-passthrough.md.</p>
      <div class="grid-fields">
        {Object.entries(props.settings).map(([name, value]) => (
          <Field label={name.replace(/_/g, ' ')} name={`ms-${name}`} value={edits[name] ?? value} onInput={(v) => setEdits({ ...edits, [name]: v })} />
        ))}
      </div>
      <button type="submit" disabled={act.busy}>Save inference settings</button>
      <Status ok={act.ok} error={act.error} />
    </form>
  );
}
