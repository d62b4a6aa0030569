/** The pages: overview, send, payment requests. Amounts stay the API's decimal strings. */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Copyable, Field, Status, Table, askSure, useAction, useLoad } from './ui.js';
import { TX_COLUMNS } from './page-history.js';
import { BalanceHistory, LineBars } from './charts.js';

type Page = { version: number };

export function Overview({ version }: Page) {
  const { data, error } = useLoad(() => Promise.all([api('GET', '/api/v1/wallet/overview', undefined, { transaction_limit: 10 }), api('GET', '/api/v1/wallet/balances')]), version);
  const [overview, balances] = data ?? [null, null];
  return (
    <section aria-labelledby="h-overview">
      <h1 id="h-overview">Overview</h1>
      <Status error={error} />
      {overview && (
        <>
          <div class="cards">
            {overview.balances.map((b: any) => (
              <div class="card" data-testid={`balance-${b.currency}`}>
                <span class="label">Balance {b.currency}</span>
                <span class="amount">{b.total_balance}</span>
              </div>
            ))}
            {overview.total_available_credit.map((c: any) => (
              <div class="card">
                <span class="label">Available credit {c.currency}</span>
                <span class="amount">{c.total}</span>
              </div>
            ))}
            {(balances?.fee_earnings ?? []).map((f: any) => (
              <div class="card">
                <span class="label">Fees earned {f.currency}</span>
                <span class="amount">{f.total_amount}</span>
              </div>
            ))}
          </div>
          <LineBars version={version} />
          <BalanceHistory version={version} />
          <Table
            caption="Recent transactions"
            rows={overview.recent_transactions}
            empty="No transactions yet."
            columns={TX_COLUMNS}
          />
        </>
      )}
    </section>
  );
}

export function Send(_: Page) {
  const empty = { address: '', amount: '', currency: 'VWL', description: '' };
  const [form, setForm] = useState(empty);
  const [best, setBest] = useState(false);
  const [txid, setTxid] = useState<string | null>(null);
  const send = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const submit = (e: Event) => {
    e.preventDefault();
    void send.run(async () => {
      setTxid(null);
      const what = `${form.amount} ${form.currency}`;
      const detail = `${what} to ${form.address}${form.description ? ` for "${form.description}"` : ''}. A routed payment adds the fees of the nodes on its route.`;
      if (!(await askSure(`Send ${what}?`, detail, `Send ${what}`))) return 'Nothing sent';
      const r = await api('POST', '/api/v1/wallet/send', { ...form, ...(form.description ? {} : { description: undefined }), ...(best ? { best_fee: true } : {}) });
      // A fresh form: a second click cannot pay the same payment again.
      setForm(empty);
      setBest(false);
      setTxid(r.txid ?? r.p2p_hash ?? null);
      return `${r.status ?? 'sent'}: ${r.amount ?? form.amount} ${form.currency} to ${form.address}`;
    });
  };
  const measure = () =>
    send.run(async () => {
      const m = await api('GET', '/api/v1/wallet/max-sendable', undefined, { address: form.address, currency: form.currency });
      if (m.no_route) return `Nothing can be sent to ${form.address} now: ${m.no_route.message}`;
      return `Up to ${m.max_sendable} ${m.currency} in one payment; ${m.split.amount} over ${m.split.parts.length} route(s)`;
    });
  return (
    <section aria-labelledby="h-send">
      <h1 id="h-send">Send</h1>
      <form onSubmit={submit} class="form" aria-label="Send a payment">
        <Field label="To (contact name or address)" name="address" value={form.address} onInput={set('address')} required />
        <Field label="Amount" name="amount" value={form.amount} onInput={set('amount')} required placeholder="0.00" />
        <Field label="Currency" name="currency" value={form.currency} onInput={set('currency')} required />
        <Field label="Description" name="description" value={form.description} onInput={set('description')} />
        <div class="field check">
          <input id="f-best" type="checkbox" checked={best} onChange={(e) => setBest((e.target as HTMLInputElement).checked)} />
          <label for="f-best">Cheapest route (best fee) when routed</label>
        </div>
        <button type="submit" disabled={send.busy}>Send</button>{' '}
        <button type="button" class="secondary" onClick={() => void measure()} disabled={!form.address}>
          How much can I send?
        </button>
        <Status ok={send.ok} error={send.error} />
        {txid && (
          <p>
            Transaction: <Copyable value={txid} label="the transaction id" />
          </p>
        )}
      </form>
    </section>
  );
}

export function Requests({ version }: Page) {
  const { data, error, reload } = useLoad(() => api('GET', '/api/v1/requests'), version);
  const [form, setForm] = useState({ contact: '', amount: '', currency: 'VWL', description: '' });
  const [note, setNote] = useState('');
  const act = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await api('POST', '/api/v1/requests', { ...form, ...(form.description ? {} : { description: undefined }) });
      reload();
      return `Request ${r.request_id} sent`;
    });
  };
  const decide = (action: 'approve' | 'decline' | 'cancel' | 'retry', id: string) =>
    act.run(async () => {
      if (action === 'cancel') await api('DELETE', `/api/v1/requests/${id}`);
      else await api('POST', `/api/v1/requests/${action}`, { request_id: id, ...(action === 'approve' && note ? { payer_note: note } : {}) });
      reload();
      return `${action === 'retry' ? 'Retried' : `${action}d`} ${id.slice(0, 8)}`;
    });
  return (
    <section aria-labelledby="h-requests">
      <h1 id="h-requests">Payment requests</h1>
      <Status error={error} />
      <Status ok={act.ok} error={act.error} />
      <form onSubmit={create} class="form" aria-label="Request a payment">
        <h2>Ask a contact to pay</h2>
        <Field label="Contact" name="contact" value={form.contact} onInput={set('contact')} required />
        <Field label="Amount" name="req-amount" value={form.amount} onInput={set('amount')} required />
        <Field label="Currency" name="req-currency" value={form.currency} onInput={set('currency')} required />
        <Field label="Description" name="req-description" value={form.description} onInput={set('description')} />
        <button type="submit">Request</button>
      </form>
      <h2>Asked of you</h2>
      <Field label="Note to the requester (with an approval)" name="payer-note" value={note} onInput={setNote} />
      {data && (
        <Table
          caption="Incoming requests"
          rows={data.incoming}
          empty="Nobody asked you to pay."
          columns={[
            ['From', (r: any) => r.contact_name ?? r.requester_pubkey_hash?.slice(0, 16) ?? '-'],
            ['Amount', (r: any) => `${r.amount} ${r.currency}`],
            ['Status', (r: any) => r.status],
            [
              'Answer',
              (r: any) =>
                r.status === 'pending' ? (
                  <span class="actions">
                    <button type="button" onClick={() => decide('approve', r.request_id)}>Approve</button>
                    <button type="button" class="secondary" onClick={() => decide('decline', r.request_id)}>Decline</button>
                  </span>
                ) : r.status === 'failed' ? (
                  <button type="button" onClick={() => decide('retry', r.request_id)}>Retry payment</button>
                ) : (
                  '-'
                ),
            ],
          ]}
        />
      )}
      <h2>Asked by you</h2>
      {data && (
        <Table
          caption="Outgoing requests"
          rows={data.outgoing}
          empty="You asked nobody to pay."
          columns={[
            ['To', (r: any) => r.contact_name ?? '-'],
            ['Amount', (r: any) => `${r.amount} ${r.currency}`],
            ['Status', (r: any) => r.status],
            ['', (r: any) => (r.status === 'pending' ? <button type="button" class="secondary" onClick={() => decide('cancel', r.request_id)}>Cancel</button> : '-')],
          ]}
        />
      )}
    </section>
  );
}
