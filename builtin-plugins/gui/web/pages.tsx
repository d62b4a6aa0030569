/** The pages: overview and send. Amounts stay the API's decimal strings. */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { Amount, Copyable, Field, Status, Table, askSure, useAction, useLoad } from './ui.js';
import { TX_COLUMNS } from './page-history.js';
import { BalanceHistory, FeeEarnings, LineBars } from './charts.js';

type Page = { version: number };

export function Overview({ version }: Page) {
  const { data, error } = useLoad(
    () =>
      Promise.all([
        api<ResponseData['GET /api/v1/wallet/overview']>('GET', '/api/v1/wallet/overview', undefined, { transaction_limit: 10 }),
        // The fees earned are wallet/info's (wallet/balances has the balance per contact only).
        api<ResponseData['GET /api/v1/wallet/info']>('GET', '/api/v1/wallet/info'),
      ]),
    version,
  );
  const [overview, info] = data ?? [null, null];
  return (
    <section aria-labelledby="h-overview">
      <h1 id="h-overview">Overview</h1>
      <Status error={error} />
      {overview && (
        <>
          <div class="cards">
            {overview.balances.map((b) => (
              <div class="card" data-testid={`balance-${b.currency}`}>
                <span class="label">Balance {b.currency}</span>
                <span class="amount"><Amount value={b.total_balance} /></span>
              </div>
            ))}
            {overview.total_available_credit.map((c) => (
              <div class="card">
                <span class="label">Available credit {c.currency}</span>
                <span class="amount"><Amount value={c.total} /></span>
              </div>
            ))}
            {(info?.fee_earnings ?? []).map((f) => (
              <div class="card">
                <span class="label">Fees earned {f.currency}</span>
                <span class="amount">{f.total_amount}</span>
              </div>
            ))}
          </div>
          <LineBars version={version} />
          <BalanceHistory version={version} />
          <FeeEarnings version={version} />
          <Table
            caption="Recent transactions"
            rows={overview.recent_transactions}
            empty="No transactions yet: add a contact on the Contacts page, then send from the Send page."
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
      const r = await api<ResponseData['POST /api/v1/wallet/send']>('POST', '/api/v1/wallet/send', { ...form, ...(form.description ? {} : { description: undefined }), ...(best ? { best_fee: true } : {}) });
      // A fresh form: a second click cannot pay the same payment again.
      setForm(empty);
      setBest(false);
      setTxid(r.txid ?? r.p2p_hash ?? null);
      return `${r.status ?? 'sent'}: ${r.amount ?? form.amount} ${form.currency} to ${form.address}`;
    });
  };
  const measure = () =>
    send.run(async () => {
      const m = await api<ResponseData['GET /api/v1/wallet/max-sendable']>('GET', '/api/v1/wallet/max-sendable', undefined, { address: form.address, currency: form.currency });
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
