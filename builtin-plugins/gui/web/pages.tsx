/** The pages: overview, contacts, send, payment requests, history. Amounts stay the API's decimal strings. */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Field, Status, Table, useAction, useLoad } from './ui.js';

type Page = { version: number };

/** A transaction row as the overview and the history show it. */
const TX_COLUMNS: readonly [string, (t: any) => string][] = [
  ['When', (t) => t.timestamp?.replace('T', ' ').slice(0, 19)],
  ['Type', (t) => t.type],
  ['Contact', (t) => t.counterparty_name ?? '-'],
  ['Amount', (t) => `${t.amount} ${t.currency}`],
  ['Status', (t) => t.status],
];

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

export function Contacts({ version }: Page) {
  const { data, error, reload } = useLoad(() => Promise.all([api('GET', '/api/v1/contacts', undefined, { status: 'all', limit: 100 }), api('GET', '/api/v1/contacts/pending')]), version);
  const [contacts, pending] = data ?? [null, null];
  const add = useAction();
  const decide = useAction();
  const [form, setForm] = useState({ address: '', name: '', currency: 'VWL', credit_limit: '100', fee_percent: '0' });
  const [answerAs, setAnswerAs] = useState({ name: '', credit: '100' });
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await api('POST', '/api/v1/contacts', form);
      reload();
      return `Contact request sent to ${form.name}`;
    });
  };
  const [terms, setTerms] = useState({ contact: '', currency: 'VWL', credit_limit: '', fee_percent: '' });
  const change = useAction();
  const contactAction = (c: any, action: 'ping' | 'block' | 'unblock') =>
    change.run(async () => {
      const r = await api('POST', `/api/v1/contacts/${action}/${c.pubkey_hash}`);
      reload();
      return action === 'ping' ? `${c.name}: ${r.online_status ?? 'answered'}${r.chain_valid === false ? ', chain needs repair' : ''}` : `${c.name} ${action}ed`;
    });
  const saveTerms = (e: Event) => {
    e.preventDefault();
    void change.run(async () => {
      const body = { currency: terms.currency, ...(terms.credit_limit ? { credit_limit: terms.credit_limit } : {}), ...(terms.fee_percent ? { fee_percent: terms.fee_percent } : {}) };
      await api('PUT', `/api/v1/contacts/${encodeURIComponent(terms.contact)}`, body);
      reload();
      return `Terms with ${terms.contact} in ${terms.currency} saved`;
    });
  };
  const answer = (c: any, currency: string, action: 'accept' | 'decline' | 'defer') =>
    decide.run(async () => {
      await api('POST', `/api/v1/contacts/${c.pubkey_hash}/decisions`, {
        decisions: [{ currency, action, ...(action === 'accept' ? { fee: 0, credit: answerAs.credit } : {}) }],
        ...(c.is_new_contact
          ? { is_new_contact: true, contact_address: c.addresses.https ?? c.addresses.http ?? c.addresses.tor, contact_name: answerAs.name || c.suggested_name || c.name }
          : {}),
      });
      reload();
      return `${action === 'accept' ? 'Accepted' : action === 'decline' ? 'Declined' : 'Deferred'} ${currency}`;
    });
  return (
    <section aria-labelledby="h-contacts">
      <h1 id="h-contacts">Contacts</h1>
      <Status error={error} />
      <form onSubmit={submit} class="form" aria-label="Add a contact">
        <h2>Add a contact</h2>
        <Field label="Address" name="address" value={form.address} onInput={set('address')} required placeholder="https://host:port or .onion" />
        <Field label="Name" name="name" value={form.name} onInput={set('name')} required />
        <Field label="Currency" name="currency" value={form.currency} onInput={set('currency')} required />
        <Field label="Credit limit" name="credit_limit" value={form.credit_limit} onInput={set('credit_limit')} required />
        <Field label="Fee percent" name="fee_percent" value={form.fee_percent} onInput={set('fee_percent')} />
        <button type="submit">Add contact</button>
        <Status ok={add.ok} error={add.error} />
      </form>
      <h2>Waiting for your answer</h2>
      <Status ok={decide.ok} error={decide.error} />
      {pending && pending.pending.incoming.length === 0 && <p class="empty">No contact request waits.</p>}
      {pending && pending.pending.incoming.length > 0 && (
        <div class="form" aria-label="Terms of your answer">
          <Field label="Name for the new contact" name="answer-name" value={answerAs.name} onInput={(v) => setAnswerAs({ ...answerAs, name: v })} />
          <Field label="Credit you extend" name="answer-credit" value={answerAs.credit} onInput={(v) => setAnswerAs({ ...answerAs, credit: v })} />
        </div>
      )}
      {pending?.pending.incoming.map((c: any) => (
        <div class="request" data-testid="incoming-contact">
          <strong>{c.name ?? c.suggested_name ?? c.pubkey_hash.slice(0, 16)}</strong>
          {c.currencies.map((cur: any) => (
            <span class="actions">
              {cur.currency} (asks {cur.requested_credit_limit ?? '-'})
              <button type="button" onClick={() => answer(c, cur.currency, 'accept')}>Accept {cur.currency}</button>
              <button type="button" class="secondary" onClick={() => answer(c, cur.currency, 'decline')}>Decline {cur.currency}</button>
              <button type="button" class="secondary" onClick={() => answer(c, cur.currency, 'defer')}>Later</button>
            </span>
          ))}
        </div>
      ))}
      {contacts && (
        <Table
          caption="Your contacts"
          rows={contacts.contacts}
          empty="No contacts yet."
          columns={[
            ['Name', (c: any) => c.name],
            ['Status', (c: any) => c.status],
            ['Address', (c: any) => c.addresses?.https ?? c.addresses?.http ?? c.addresses?.tor ?? '-'],
            [
              '',
              (c: any) => (
                <span class="actions">
                  <button type="button" class="secondary" onClick={() => contactAction(c, 'ping')}>Ping {c.name}</button>
                  <button type="button" class="secondary" onClick={() => contactAction(c, c.status === 'blocked' ? 'unblock' : 'block')}>
                    {c.status === 'blocked' ? 'Unblock' : 'Block'} {c.name}
                  </button>
                </span>
              ),
            ],
          ]}
        />
      )}
      <Status ok={change.ok} error={change.error} />
      <form onSubmit={saveTerms} class="form" aria-label="Change the terms with a contact">
        <h2>Terms with a contact</h2>
        <Field label="Contact (name or address)" name="t-contact" value={terms.contact} onInput={(contact) => setTerms({ ...terms, contact })} required />
        <Field label="Currency of the line" name="t-currency" value={terms.currency} onInput={(currency) => setTerms({ ...terms, currency })} required />
        <Field label="New credit limit" name="t-credit" value={terms.credit_limit} onInput={(credit_limit) => setTerms({ ...terms, credit_limit })} />
        <Field label="New fee percent" name="t-fee" value={terms.fee_percent} onInput={(fee_percent) => setTerms({ ...terms, fee_percent })} />
        <button type="submit">Save terms</button>
      </form>
    </section>
  );
}

export function Send(_: Page) {
  const [form, setForm] = useState({ address: '', amount: '', currency: 'VWL', description: '' });
  const [best, setBest] = useState(false);
  const send = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const submit = (e: Event) => {
    e.preventDefault();
    void send.run(async () => {
      const r = await api('POST', '/api/v1/wallet/send', { ...form, ...(form.description ? {} : { description: undefined }), ...(best ? { best_fee: true } : {}) });
      return `${r.status ?? 'sent'}: ${r.amount ?? form.amount} ${form.currency} (${r.txid ?? r.p2p_hash ?? ''})`;
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
        <button type="submit">Send</button>{' '}
        <button type="button" class="secondary" onClick={() => void measure()} disabled={!form.address}>
          How much can I send?
        </button>
        <Status ok={send.ok} error={send.error} />
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

function Choice(props: { label: string; value: string; options: readonly string[]; onChange: (v: string) => void }) {
  return (
    <label>
      {props.label}{' '}
      <select value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">all</option>
        {props.options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

export function History({ version }: Page) {
  const [filter, setFilter] = useState({ type: '', status: '' });
  const { data, error } = useLoad(() => api('GET', '/api/v1/wallet/transactions', undefined, { limit: 50, type: filter.type, status: filter.status }), `${version}|${filter.type}|${filter.status}`);
  return (
    <section aria-labelledby="h-history">
      <h1 id="h-history">History</h1>
      <div class="filters">
        <Choice label="Type" value={filter.type} options={['sent', 'received', 'relay']} onChange={(type) => setFilter({ ...filter, type })} />
        <Choice label="Status" value={filter.status} options={['completed', 'pending', 'failed', 'rejected', 'cancelled']} onChange={(status) => setFilter({ ...filter, status })} />
        <span class="downloads">
          Export: <a href="/api/v1/export/transactions">CSV</a> · <a href="/api/v1/export/transactions?format=json">NDJSON</a> ·{' '}
          <a href="/api/v1/export/transactions?view=full">CSV full</a>
        </span>
      </div>
      <Status error={error} />
      {data && (
        <Table
          caption="Transactions"
          rows={data.transactions}
          empty="No transaction matches."
          columns={TX_COLUMNS}
        />
      )}
    </section>
  );
}
