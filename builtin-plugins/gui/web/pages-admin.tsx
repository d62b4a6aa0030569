/**
 * The operator's administration pages: P2P approvals, payback methods, backups, plugins, settings, API keys and the
 * dead letter queue. Each is the REST API's routes with a form around them.
 */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api, sessionEnded } from './api.js';
import { Field, Status, Table, afterYes, setDisplayDecimals, useAction, useLoad } from './ui.js';

type Page = { version: number };

type RailField = ResponseData['GET /api/v1/payback-methods/types']['types'][number]['fields'][number];
type Plugin = ResponseData['GET /api/v1/plugins']['plugins'][number];
type UpdateCheck = ResponseData['POST /api/v1/system/update-check'];

export function Approvals({ version }: Page) {
  const { data, error, reload } = useLoad(async () => {
    const list = await api<ResponseData['GET /api/v1/p2p']>('GET', '/api/v1/p2p');
    return Promise.all(list.transactions.map(async (t) => ({ ...t, route: await api<ResponseData['GET /api/v1/p2p/candidates/{hash}']>('GET', `/api/v1/p2p/candidates/${t.hash}`) })));
  }, version);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const act = useAction();
  const decide = (hash: string, approve: boolean) =>
    act.run(async () => {
      if (approve) await api('POST', '/api/v1/p2p/approve', { hash, ...(chosen[hash] ? { candidate_id: Number(chosen[hash]) } : {}) });
      else await api('POST', '/api/v1/p2p/reject', { hash });
      reload();
      return `${approve ? 'Approved' : 'Rejected'} ${hash.slice(0, 12)}`;
    });
  return (
    <section aria-labelledby="h-p2p">
      <h1 id="h-p2p">Routes awaiting approval</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      {data && data.length === 0 && <p class="empty">No routed payment waits for your approval.</p>}
      {data?.map((t) => (
        <fieldset class="form">
          <legend>
            To {t.destination_address} ({t.hash.slice(0, 12)})
          </legend>
          {t.route.candidates.map((c) => (
            <div class="field check">
              <input type="radio" id={`c-${c.id}`} name={`route-${t.hash}`} checked={chosen[t.hash] === String(c.id)} onChange={() => setChosen({ ...chosen, [t.hash]: String(c.id) })} />
              <label for={`c-${c.id}`}>
                via {c.sender_address}: pay {c.amount} {c.currency} (fee {c.fee_amount}, {c.hops} hops)
              </label>
            </div>
          ))}
          <span class="actions">
            <button type="button" onClick={() => decide(t.hash, true)}>Approve</button>
            <button type="button" class="secondary" onClick={() => decide(t.hash, false)}>Reject</button>
          </span>
        </fieldset>
      ))}
    </section>
  );
}

/** An input per catalogue field of a rail (a select where the rail lists options). */
function RailFields(props: { fields: readonly RailField[]; values: Record<string, string>; onChange: (v: Record<string, string>) => void }) {
  return (
    <>
      {props.fields.map((f) =>
        f.options ? (
          <div class="field">
            <label for={`pf-${f.name}`}>{f.label}</label>
            <select id={`pf-${f.name}`} value={props.values[f.name] ?? ''} onChange={(e) => props.onChange({ ...props.values, [f.name]: (e.target as HTMLSelectElement).value })}>
              <option value="">-</option>
              {f.options.map((o) => (
                <option value={o}>{o}</option>
              ))}
            </select>
          </div>
        ) : (
          <Field
            label={`${f.label}${f.required ? '' : ' (optional)'}`}
            name={`pf-${f.name}`}
            type={f.sensitive ? 'password' : 'text'}
            value={props.values[f.name] ?? ''}
            onInput={(v) => props.onChange({ ...props.values, [f.name]: v })}
          />
        ),
      )}
    </>
  );
}

export function Payback({ version }: Page) {
  const { data, error, reload } = useLoad(
    () =>
      Promise.all([
        api<ResponseData['GET /api/v1/payback-methods']>('GET', '/api/v1/payback-methods', undefined, { all: 1 }),
        api<ResponseData['GET /api/v1/payback-methods/types']>('GET', '/api/v1/payback-methods/types'),
      ]),
    version,
  );
  const [methods, types] = data ?? [null, null];
  const [form, setForm] = useState({ type: '', label: '', currency: '' });
  const [fields, setFields] = useState<Record<string, string>>({});
  const [revealed, setRevealed] = useState<{ id: string; fields: Record<string, unknown> } | null>(null);
  const act = useAction();
  const rail = types?.types.find((t) => t.id === form.type);
  const variant = rail?.variants ? fields[rail.variants.discriminator] : undefined;
  const railFields = rail ? [...rail.fields, ...(rail.variants && variant ? (rail.variants.fields[variant] ?? []) : [])] : [];
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const filled = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ''));
      const r = await api<ResponseData['POST /api/v1/payback-methods']>('POST', '/api/v1/payback-methods', { ...form, fields: filled });
      reload();
      return `Payback method ${r.method_id} added`;
    });
  };
  // The node asks for the auth code again first (a confirmation dialog of main.tsx).
  const reveal = (id: string) =>
    void act.run(async () => {
      const r = await api<ResponseData['GET /api/v1/payback-methods/{id}/reveal']>('GET', `/api/v1/payback-methods/${id}/reveal`);
      setRevealed({ id, fields: r.method.fields });
      return 'Revealed';
    });
  return (
    <section aria-labelledby="h-payback">
      <h1 id="h-payback">Payback methods</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      <form onSubmit={create} class="form" aria-label="Add a payback method">
        <h2>Add a method</h2>
        <div class="field">
          <label for="pm-type">Rail</label>
          <select id="pm-type" value={form.type} onChange={(e) => (setForm({ ...form, type: (e.target as HTMLSelectElement).value }), setFields({}))}>
            <option value="">choose…</option>
            {types?.types.map((t) => (
              <option value={t.id}>{t.label}</option>
            ))}
          </select>
        </div>
        <Field label="Label" name="pm-label" value={form.label} onInput={(label) => setForm({ ...form, label })} required />
        <Field label="Currency" name="pm-currency" value={form.currency} onInput={(currency) => setForm({ ...form, currency })} required />
        <RailFields fields={railFields} values={fields} onChange={setFields} />
        <button type="submit">Add method</button>
      </form>
      {revealed && (
        <dl class="form" aria-label="Revealed details">
          {Object.entries(revealed.fields).map(([k, v]) => (
            <>
              <dt>{k}</dt>
              <dd data-testid={`revealed-${k}`}>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
            </>
          ))}
        </dl>
      )}
      {methods && (
        <Table
          caption="Your payback methods"
          rows={methods.methods}
          empty="No payback method yet: add one above so contacts know how to settle with you."
          columns={[
            ['Label', (m) => m.label],
            ['Rail', (m) => m.type],
            ['Currency', (m) => m.currency],
            ['Shown as', (m) => m.masked_display],
            ['', (m) => <button type="button" class="secondary" onClick={() => (setRevealed(null), reveal(m.method_id))}>Reveal {m.label}</button>],
          ]}
        />
      )}
    </section>
  );
}

export function Backups({ version }: Page) {
  const { data, error, reload } = useLoad(
    () => Promise.all([api<ResponseData['GET /api/v1/backup/status']>('GET', '/api/v1/backup/status'), api<ResponseData['GET /api/v1/backup/list']>('GET', '/api/v1/backup/list')]),
    version,
  );
  const [status, list] = data ?? [null, null];
  const act = useAction();
  const run = (work: () => Promise<string>) => act.run(async () => (await work().finally(reload)));
  return (
    <section aria-labelledby="h-backups">
      <h1 id="h-backups">Backups</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      {status && (
        <p>
          Daily backups {status.enabled ? `on, next ${status.next_scheduled}` : 'off'}; {status.backup_count} kept (retention {status.retention_count}) in {status.backup_directory}.
        </p>
      )}
      <span class="actions">
        <button type="button" onClick={() => run(async () => `Written ${(await api<ResponseData['POST /api/v1/backup/create']>('POST', '/api/v1/backup/create')).filename}`)}>Back up now</button>
        <button type="button" class="secondary" onClick={() => run(async () => (await api<ResponseData['POST /api/v1/backup/disable' | 'POST /api/v1/backup/enable']>('POST', `/api/v1/backup/${status?.enabled ? 'disable' : 'enable'}`)).message)}>
          {status?.enabled ? 'Turn daily backups off' : 'Turn daily backups on'}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => run(() => afterYes('Apply retention now?', `Backups beyond the newest ${status?.retention_count ?? ''} are deleted.`, 'Apply retention', async () => (await api<ResponseData['POST /api/v1/backup/cleanup']>('POST', '/api/v1/backup/cleanup')).message))}
        >
          Apply retention
        </button>
      </span>
      {list && (
        <Table
          caption="Backup files"
          rows={list.backups}
          empty="No backup yet: press Back up now, or turn daily backups on."
          columns={[
            ['File', (b) => b.filename],
            ['Size', (b) => b.size_human],
            ['Made', (b) => b.created_at],
            [
              '',
              (b) => (
                <span class="actions">
                  <button type="button" onClick={() => run(async () => { const v = await api<ResponseData['POST /api/v1/backup/verify']>('POST', '/api/v1/backup/verify', { filename: b.filename }); return `${b.filename}: ${v.valid ? 'valid' : `not valid (${v.reason})`}`; })}>
                    Verify {b.filename}
                  </button>
                  <button
                    type="button"
                    class="secondary danger"
                    onClick={() => run(() => afterYes(`Delete ${b.filename}?`, 'The file is gone for good; the other backups stay.', `Delete ${b.filename}`, async () => (await api<ResponseData['DELETE /api/v1/backup/{filename}']>('DELETE', `/api/v1/backup/${b.filename}`)).message))}
                  >
                    Delete {b.filename}
                  </button>
                </span>
              ),
            ],
          ]}
        />
      )}
    </section>
  );
}

/** The files of a third-party plugin as `POST /plugins` takes them (node-cli plugin install reads the same three). */
function InstallPlugin(props: { done: () => void }) {
  const [files, setFiles] = useState<Record<'manifest' | 'entry' | 'signature', File | null>>({ manifest: null, entry: null, signature: null });
  const act = useAction();
  const pick = (k: keyof typeof files) => (e: Event) => setFiles({ ...files, [k]: (e.target as HTMLInputElement).files?.[0] ?? null });
  const install = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await api<ResponseData['POST /api/v1/plugins']>('POST', '/api/v1/plugins', {
        manifest: await files.manifest!.text(),
        entry: await files.entry!.text(),
        signature: files.signature ? (await files.signature.text()).trim() : null,
      });
      (e.target as HTMLFormElement).reset();
      setFiles({ manifest: null, entry: null, signature: null });
      props.done();
      return `${r.plugin.name} ${r.plugin.version} installed, disabled: enable it below, then restart`;
    });
  };
  return (
    <form class="form" aria-label="Install a plugin" onSubmit={install}>
      <h2>Install a plugin from its files</h2>
      {(
        [
          ['manifest', 'plugin.json', '.json,application/json', true],
          ['entry', 'Its entry (the built .js the manifest names)', '.js,.mjs,text/javascript', true],
          ['signature', 'plugin.sig (optional: unsigned plugins run only in development mode)', '.sig,text/plain', false],
        ] as const
      ).map(([k, label, accept, required]) => (
        <div class="field">
          <label for={`pi-${k}`}>{label}</label>
          <input id={`pi-${k}`} type="file" accept={accept} required={required} onChange={pick(k)} />
        </div>
      ))}
      <button type="submit" disabled={act.busy}>Install plugin</button>
      <Status ok={act.ok} error={act.error} />
    </form>
  );
}

/** A third-party plugin's declared settings, saved at once (`POST /plugins/:name/settings`). */
function PluginSettings(props: { plugin: Plugin; done: () => void }) {
  const current = props.plugin.sandbox?.settings ?? {};
  const [edits, setEdits] = useState<Record<string, string>>({});
  const act = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      if (Object.keys(edits).length === 0) return 'Nothing changed';
      const r = await api<ResponseData['POST /api/v1/plugins/{name}/settings']>('POST', `/api/v1/plugins/${props.plugin.name}/settings`, edits);
      setEdits({});
      props.done();
      return r.message ?? `Settings of ${props.plugin.name} saved`;
    });
  };
  return (
    <form class="form" aria-label={`Settings of ${props.plugin.name}`} onSubmit={save}>
      <h3>Settings of {props.plugin.name}</h3>
      {Object.entries(current).map(([k, v]) => (
        <Field label={`${props.plugin.name}: ${k}`} name={`ps-${props.plugin.name}-${k}`} value={edits[k] ?? String(v ?? '')} onInput={(x) => setEdits({ ...edits, [k]: x })} />
      ))}
      <button type="submit" disabled={act.busy}>Save settings of {props.plugin.name}</button>
      <Status ok={act.ok} error={act.error} />
    </form>
  );
}

export function Plugins({ version }: Page) {
  const { data, error, reload } = useLoad(() => api<ResponseData['GET /api/v1/plugins']>('GET', '/api/v1/plugins', undefined, { limit: 100 }), version);
  const act = useAction();
  const publicRoutes = (p: Plugin) =>
    act.run(async () => {
      const r = await api<ResponseData['POST /api/v1/plugins/{name}/public-routes']>('POST', `/api/v1/plugins/${p.name}/public-routes`, { enabled: !p.public_routes_enabled });
      reload();
      return `${p.name}: public routes ${r.public_routes_enabled ? 'open' : 'closed'}${r.served === false ? ' (not served: the node-wide ceiling is off)' : ''}`;
    });
  const flip = async (p: Plugin): Promise<string> => {
    const r = await api<ResponseData['POST /api/v1/plugins/{name}/disable' | 'POST /api/v1/plugins/{name}/enable']>('POST', `/api/v1/plugins/${p.name}/${p.enabled ? 'disable' : 'enable'}`);
    reload();
    return r.message ?? `${p.name} changed: restart to apply`;
  };
  const toggle = (p: Plugin) => act.run(() => (p.enabled ? afterYes(`Disable ${p.name}?`, 'It stops at the next restart, with its routes and jobs.', `Disable ${p.name}`, () => flip(p)) : flip(p)));
  const restart = () =>
    act.run(() =>
      afterYes('Restart the plugins?', 'Every plugin stops and starts again with its enable flag; GUI sessions end, so you log in again.', 'Restart', async () => {
        await api('POST', '/api/v1/system/restart');
        sessionEnded();
        return 'Restarted';
      }),
    );
  const sandboxed = (data?.plugins ?? []).filter((p) => !p.builtin && Object.keys(p.sandbox?.settings ?? {}).length > 0);
  return (
    <section aria-labelledby="h-plugins">
      <h1 id="h-plugins">Plugins</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      <button type="button" onClick={restart}>Restart the node's plugins</button>
      {data && (
        <Table
          caption="Plugins"
          rows={data.plugins}
          empty="No plugin."
          columns={[
            ['Name', (p) => p.name],
            ['Version', (p) => `${p.version}${p.builtin ? '' : ` (${p.sandbox?.signature.status ?? 'third-party'})`}`],
            ['Status', (p) => `${p.status}${p.restart_required ? ', restart to apply' : ''}`],
            ['Enabled', (p) => (p.enabled ? 'yes' : 'no')],
            [
              '',
              (p) => (
                <span class="actions">
                  <button type="button" class="secondary" onClick={() => toggle(p)}>{p.enabled ? 'Disable' : 'Enable'} {p.name}</button>
                  {p.public_routes?.length > 0 && (
                    <button type="button" class="secondary" onClick={() => publicRoutes(p)}>
                      {p.public_routes_enabled ? 'Close' : 'Open'} {p.name}'s public routes
                    </button>
                  )}
                </span>
              ),
            ],
          ]}
        />
      )}
      {sandboxed.map((p) => <PluginSettings key={p.name} plugin={p} done={reload} />)}
      <InstallPlugin done={reload} />
    </section>
  );
}

/** Update check and debug report: what node-cli's `update-check` and `report` do. */
function Maintenance() {
  const act = useAction();
  const [update, setUpdate] = useState<UpdateCheck | null>(null);
  const [report, setReport] = useState<{ url: string; name: string } | null>(null);
  const [description, setDescription] = useState('');
  const check = () =>
    act.run(async () => {
      const u = await api<UpdateCheck>('POST', '/api/v1/system/update-check', {});
      setUpdate(u);
      if (u.error) return `The update check failed: ${u.error}`;
      return u.available ? `Version ${u.latest_version} is available (this node runs ${u.current_version})` : `Up to date: ${u.current_version} is the latest`;
    });
  const build = () =>
    act.run(async () => {
      const r = await api<ResponseData['GET /api/v1/system/debug-report']>('GET', '/api/v1/system/debug-report', undefined, { description: description || undefined });
      if (report) URL.revokeObjectURL(report.url);
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      setReport({ url: URL.createObjectURL(new Blob([JSON.stringify(r.report, null, 2)], { type: 'application/json' })), name: `debug-report-${stamp}.json` });
      return `Debug report built (${r.report_type}, ${r.debug_entries_count} log entries): no seed, key or auth code is in it`;
    });
  const submit = () =>
    act.run(() =>
      afterYes('Send the debug report?', 'It is scrubbed of addresses and secrets, then sent to the maintainers (3 a day).', 'Send the report', async () => {
        const r = await api<ResponseData['POST /api/v1/system/debug-report']>('POST', '/api/v1/system/debug-report', { ...(description ? { description } : {}) });
        return `Debug report sent; reference ${r.key ?? '-'}`;
      }),
    );
  return (
    <div class="form" role="group" aria-labelledby="h-maintenance">
      <h2 id="h-maintenance">Maintenance</h2>
      <button type="button" class="secondary" disabled={act.busy} onClick={check}>
        Check for updates
      </button>
      {update?.last_checked && <p>Last checked {update.last_checked.replace('T', ' ').slice(0, 19)} UTC at {update.source}.</p>}
      <Field label="What went wrong (for the debug report)" name="report-description" value={description} onInput={setDescription} />
      <span class="actions">
        <button type="button" class="secondary" disabled={act.busy} onClick={build}>
          Build a debug report
        </button>
        <button type="button" class="secondary" disabled={act.busy} onClick={submit}>
          Send a debug report
        </button>
      </span>
      {report && (
        <p>
          <a href={report.url} download={report.name}>
            Download {report.name}
          </a>
        </p>
      )}
      <Status ok={act.ok} error={act.error} />
    </div>
  );
}

export function Settings({ version }: Page) {
  const { data, error, reload } = useLoad(() => api<ResponseData['GET /api/v1/system/settings']>('GET', '/api/v1/system/settings'), version);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const act = useAction();
  const save = (category: string, names: string[]) =>
    act.run(async () => {
      const body = Object.fromEntries(names.filter((n) => n in edits).map((n) => [n, edits[n]]));
      await api('PUT', '/api/v1/system/settings', body);
      if ('display_decimals' in body) setDisplayDecimals(Number(body.display_decimals));
      setEdits({});
      reload();
      return `${category} saved`;
    });
  const shown = (v: unknown): string => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));
  return (
    <section aria-labelledby="h-settings">
      <h1 id="h-settings">Settings</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      {data &&
        Object.entries(data.categories).map(([category, names]) => (
          <form class="form" aria-label={`${category} settings`} onSubmit={(e) => (e.preventDefault(), save(category, names))}>
            <h2>{category}</h2>
            {names.map((n) => (
              <Field label={n} name={`s-${n}`} value={edits[n] ?? shown(data.settings[n])} onInput={(v) => setEdits({ ...edits, [n]: v })} />
            ))}
            <button type="submit">Save {category}</button>
          </form>
        ))}
      <Maintenance />
    </section>
  );
}

export function Keys({ version }: Page) {
  const { data, error, reload } = useLoad(() => api<ResponseData['GET /api/v1/keys']>('GET', '/api/v1/keys', undefined, { limit: 100 }), version);
  const [form, setForm] = useState({ name: '', permissions: 'wallet:read' });
  const [secret, setSecret] = useState<string | null>(null);
  const act = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const k = await api<ResponseData['POST /api/v1/keys']>('POST', '/api/v1/keys', { name: form.name, permissions: form.permissions.split(',').map((p) => p.trim()).filter(Boolean) });
      setSecret(`${k.key_id} ${k.secret}`);
      reload();
      return `Key ${k.key_id} created: copy its secret now, it is shown once`;
    });
  };
  return (
    <section aria-labelledby="h-keys">
      <h1 id="h-keys">API keys</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      <form onSubmit={create} class="form" aria-label="Create an API key">
        <Field label="Key name" name="key-name" value={form.name} onInput={(name) => setForm({ ...form, name })} required />
        <Field label="Permissions (comma-separated)" name="key-permissions" value={form.permissions} onInput={(permissions) => setForm({ ...form, permissions })} />
        <button type="submit">Create key</button>
        {secret && <p><code>{secret}</code></p>}
      </form>
      {data && (
        <Table
          caption="Keys"
          rows={data.keys}
          empty="No API key yet: create one above for a script, or for node-cli on another machine."
          columns={[
            ['Name', (k) => k.name],
            ['Key id', (k) => k.key_id],
            ['Permissions', (k) => k.permissions.join(', ')],
            ['Enabled', (k) => (k.enabled ? 'yes' : 'no')],
            [
              '',
              (k) => (
                <button
                  type="button"
                  class="secondary danger"
                  onClick={() =>
                    act.run(() =>
                      afterYes(`Delete the key ${k.name}?`, 'Clients signing with it are refused from now on.', `Delete ${k.name}`, async () => {
                        await api('DELETE', `/api/v1/keys/${k.key_id}`);
                        reload();
                        return `Deleted ${k.name}`;
                      }),
                    )
                  }
                >
                  Delete {k.name}
                </button>
              ),
            ],
          ]}
        />
      )}
    </section>
  );
}

export function DeadLetters({ version }: Page) {
  const { data, error, reload } = useLoad(() => api<ResponseData['GET /api/v1/system/dlq']>('GET', '/api/v1/system/dlq'), version);
  const act = useAction();
  const send = async (id: number, action: 'retry' | 'abandon'): Promise<string> => {
    const r = await api<ResponseData[`POST /api/v1/system/dlq/{id}/${typeof action}`]>('POST', `/api/v1/system/dlq/${id}/${action}`);
    reload();
    return r.message;
  };
  const run = (id: number, action: 'retry' | 'abandon') =>
    act.run(() => (action === 'retry' ? send(id, action) : afterYes(`Abandon message ${id}?`, 'It is never delivered; what it announced stays as it is on this node.', `Abandon ${id}`, () => send(id, action))));
  return (
    <section aria-labelledby="h-dlq">
      <h1 id="h-dlq">Dead letter queue</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      {data && (
        <Table
          caption="Messages that could not be delivered"
          rows={data.items}
          empty="Nothing waits: every message was delivered. A message that fails all its retries appears here to retry or abandon."
          columns={[
            ['Type', (i) => i.message_type],
            ['To', (i) => i.recipient_address],
            ['Tries', (i) => String(i.retry_count)],
            ['Reason', (i) => i.failure_reason],
            [
              '',
              (i) => (
                <span class="actions">
                  {i.retryable && <button type="button" onClick={() => run(i.id, 'retry')}>Retry {i.id}</button>}
                  <button type="button" class="secondary" onClick={() => run(i.id, 'abandon')}>Abandon {i.id}</button>
                </span>
              ),
            ],
          ]}
        />
      )}
    </section>
  );
}
