/**
 * The mcp-passthrough plugin's operator page (when the plugin is enabled): the active model, providers with their
 * models and prices, customer keys (the token shown once), and recent usage. Its routes are the plugin's own
 * `/api/v1/plugins/mcp-passthrough/*`.
 */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { Amount, Choice, Field, Status, Table, askSure, useAction, useLoad } from './ui.js';
import { BASE, InferenceSettings, KeyDrawer, UsageCharts, UsageTable, type KeyRow } from './inference-usage.js';

type Config = ResponseData[`GET ${typeof BASE}/config`];
type Provider = Config['providers'][number];
type McpStatus = ResponseData[`GET ${typeof BASE}/status`];
type Health = McpStatus['providers'][number]['health'][string];
/** A row of the providers table: a provider with one of its models, or with none yet. */
type ProviderModel = { p: Provider; m: Provider['models'][number] | null };

export function Inference({ version }: { version: number }) {
  const { data, error, reload } = useLoad(
    () =>
      Promise.all([
        api<Config>('GET', `${BASE}/config`),
        api<ResponseData[`GET ${typeof BASE}/keys`]>('GET', `${BASE}/keys`),
        api<McpStatus>('GET', `${BASE}/status`),
      ]),
    version,
  );
  const [config, keys, status] = data ?? [null, null, null];
  const [openKey, setOpenKey] = useState<KeyRow | null>(null);
  const [provider, setProvider] = useState({ id: '', preset: 'openai-compatible', endpoint: '', token: '', model: '', price_in: '1', price_out: '2' });
  const [keyLabel, setKeyLabel] = useState('');
  const [keyContact, setKeyContact] = useState('');
  const [keyFunding, setKeyFunding] = useState('prepaid');
  const [keyDays, setKeyDays] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const act = useAction();
  const set = (k: keyof typeof provider) => (v: string) => setProvider({ ...provider, [k]: v });
  const addProvider = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const model = { id: provider.model, enabled: true, pricing_mode: 'manual', manual_in_per_1m: provider.price_in, manual_out_per_1m: provider.price_out };
      await api('POST', `${BASE}/configure`, {
        provider: { id: provider.id, preset: provider.preset, ...(provider.endpoint ? { endpoint: provider.endpoint } : {}), ...(provider.token ? { token: provider.token } : {}), models: [model] },
        active: { provider: provider.id, model: provider.model },
      });
      reload();
      return `Provider ${provider.id} saved; ${provider.model} is active`;
    });
  };
  const createKey = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const k = await api<ResponseData[`POST ${typeof BASE}/key-create`]>('POST', `${BASE}/key-create`, {
        label: keyLabel,
        funding: keyFunding,
        ...(keyContact ? { contact: keyContact } : {}),
        ...(keyDays ? { ttl: Math.round(Number(keyDays) * 86_400) } : {}),
      });
      setToken(k.token);
      reload();
      return `Key ${k.key_id} created: give its token to the customer now, it is shown once`;
    });
  };
  const revoke = (k: KeyRow) =>
    act.run(async () => {
      if (!(await askSure(`Revoke ${k.label}?`, 'Calls with its token stop at once; its balance is not refunded and its debt stays owed.', `Revoke ${k.label}`))) return 'Nothing revoked';
      await api('POST', `${BASE}/key-revoke`, { id: k.key_id });
      reload();
      return `Revoked ${k.label}`;
    });
  // The plugin's routes exist only while it runs: their absence is the "not enabled" state, not an error to show.
  if (error?.code === 'unknown_action')
    return (
      <section aria-labelledby="h-inference">
        <h1 id="h-inference">Inference (mcp-passthrough)</h1>
        <div class="empty-state">
          <p>Selling inference is off: the mcp-passthrough plugin is not enabled on this node.</p>
          <p>
            Enable <strong>mcp-passthrough</strong> on the <a href="#/plugins">Plugins page</a>, then restart the node; this page then sets up
            providers, models, prices and customer keys (docs/mcp-passthrough.md).
          </p>
        </div>
      </section>
    );
  return (
    <section aria-labelledby="h-inference">
      <h1 id="h-inference">Inference (mcp-passthrough)</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      {config && (
        <p>
          Mode {config.mode}, settled in {config.currency}; active model: {config.active.provider ? `${config.active.provider} / ${config.active.model ?? '-'}` : 'none'}.
        </p>
      )}
      {config && (
        <Table
          caption="Providers and models"
          rows={config.providers.flatMap((p): ProviderModel[] => (p.models.length ? p.models.map((m) => ({ p, m })) : [{ p, m: null }]))}
          empty="No provider yet: add one with its model and prices in the form below."
          columns={[
            ['Provider', (r) => `${r.p.id} (${r.p.preset})`],
            ['Endpoint', (r) => r.p.endpoint],
            ['Token', (r) => (r.p.has_token ? 'stored' : 'none')],
            ['Model', (r) => r.m?.id ?? '-'],
            ['Enabled', (r) => (r.m ? (r.m.enabled ? 'yes' : 'no') : '-')],
            ['Health', (r) => health(status, r.p.id, r.m?.id)],
            ['Price in / out per 1M', (r) => (r.m ? `${r.m.manual_in_per_1m ?? r.m.cost_in_per_1m ?? '-'} / ${r.m.manual_out_per_1m ?? r.m.cost_out_per_1m ?? '-'}` : '-')],
          ]}
        />
      )}
      <form onSubmit={addProvider} class="form" aria-label="Add a provider and its model">
        <h2>Provider and model</h2>
        <Field label="Provider id" name="mp-id" value={provider.id} onInput={set('id')} required />
        <div class="field">
          <label for="mp-preset">Preset</label>
          <select id="mp-preset" value={provider.preset} onChange={(e) => set('preset')((e.target as HTMLSelectElement).value)}>
            {(status?.presets ?? ['openai-compatible']).map((p) => (
              <option value={typeof p === 'string' ? p : p.id}>{typeof p === 'string' ? p : (p.label ?? p.id)}</option>
            ))}
          </select>
        </div>
        <Field label="Endpoint (empty: the preset's)" name="mp-endpoint" value={provider.endpoint} onInput={set('endpoint')} />
        <Field label="Upstream token (kept encrypted, never shown)" name="mp-token" type="password" value={provider.token} onInput={set('token')} />
        <Field label="Model id" name="mp-model" value={provider.model} onInput={set('model')} required />
        <Field label="Price per 1M input tokens" name="mp-in" value={provider.price_in} onInput={set('price_in')} />
        <Field label="Price per 1M output tokens" name="mp-out" value={provider.price_out} onInput={set('price_out')} />
        <button type="submit">Save provider</button>
      </form>
      <form onSubmit={createKey} class="form" aria-label="Create a customer key">
        <h2>Customer keys</h2>
        <Field label="Key label" name="mk-label" value={keyLabel} onInput={setKeyLabel} required />
        <Field label="Contact the key is for (required in pilot mode)" name="mk-contact" value={keyContact} onInput={setKeyContact} />
        <Choice label="Funding (credit: the contact's line carries the calls)" id="mk-funding" value={keyFunding} options={['prepaid', 'credit']} onChange={setKeyFunding} />
        <Field label="Expires after (days, empty: never)" name="mk-days" type="number" value={keyDays} onInput={setKeyDays} />
        <button type="submit">Create customer key</button>
        {token && <p><code>{token}</code></p>}
      </form>
      {keys && (
        <Table
          caption="Customer keys"
          rows={keys.keys}
          empty="No customer key yet: create one below for a contact; its token goes to their app."
          columns={[
            ['Label', (k) => k.label],
            ['Funding', (k) => k.funding ?? '-'],
            ['Balance', (k) => <Amount value={k.balance} currency={k.currency} />],
            ['Status', (k) => k.status],
            [
              '',
              (k) => (
                <span class="actions">
                  {k.status === 'active' && (
                    <button type="button" class="secondary danger" onClick={() => revoke(k)}>
                      Revoke {k.label}
                    </button>
                  )}
                  <button type="button" class="secondary" onClick={() => setOpenKey(k)}>
                    Details of {k.label}
                  </button>
                </span>
              ),
            ],
          ]}
        />
      )}
      <h2>Spend and tokens</h2>
      <UsageCharts version={version} />
      <UsageTable version={version} keys={keys?.keys ?? []} />
      {config && <InferenceSettings settings={config.settings} saved={reload} />}
      {openKey && <KeyDrawer k={openKey} version={version} close={() => setOpenKey(null)} />}
    </section>
  );
}

/** A model's health on a provider from `status`: its state, the calls running there, the last error while it cools down. */
function health(status: McpStatus | null, provider: string, modelId: string | undefined): string {
  const h: Health | null | undefined = modelId ? status?.providers?.find((p) => p.id === provider)?.health?.[modelId] : null;
  if (!h) return '-';
  const busy = h.in_flight ? `, ${h.in_flight} running` : '';
  return h.state === 'healthy' ? `healthy${busy}` : `${h.state.replace('_', ' ')}${busy} (${h.consecutive_failures} failures: ${h.last_error ?? '?'})`;
}
