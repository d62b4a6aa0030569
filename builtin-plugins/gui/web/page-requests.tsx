/**
 * Payment requests: ask a contact to pay, answer what was asked of you. Both lists are the REST listing's
 * (GET /requests), paged and filtered by the node with the same query; a request opens in a drawer.
 */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { Amount, Choice, Copyable, Drawer, Field, Pager, Row, Status, Table, askSure, useAction, useLoad } from './ui.js';

type Requests = ResponseData['GET /api/v1/requests'];
/** A request, asked of us (incoming) or by us (outgoing): both lists have the same rows. */
type RequestRow = Requests['incoming'][number];

const STATUSES = ['pending', 'sending', 'approved', 'failed', 'declined', 'cancelled', 'expired'] as const;
const PAGE = 20;

/** A request's timestamps are `YYYY-MM-DD HH:MM:SS` UTC (docs/api/requests.md). */
const at = (t: string | null | undefined): string => (t ? `${t} UTC` : '-');

function RequestDrawer(props: { request: RequestRow; close: () => void }) {
  const r = props.request;
  return (
    <Drawer title="Payment request" id="request-title" close={props.close} focusKey={r.request_id}>
      <dl class="details">
        <Row term="Request id">
          <Copyable value={r.request_id} label="the request id" />
        </Row>
        <Row term="Direction">{r.direction === 'incoming' ? 'asked of you' : 'asked by you'}</Row>
        <Row term="Status">{r.status}</Row>
        <Row term="Contact">{r.contact_name}</Row>
        {r.requester_address && <Row term="Requester's address">{r.requester_address}</Row>}
        <Row term="Amount">{`${r.amount} ${r.currency}`}</Row>
        <Row term="Description">{r.description}</Row>
        <Row term="Asked">{at(r.created_at)}</Row>
        <Row term="Answered">{at(r.responded_at)}</Row>
        <Row term="Payer's note">{r.payer_note}</Row>
        <Row term="Payment">{r.resulting_txid && <Copyable value={r.resulting_txid} label="the payment's txid" />}</Row>
        {r.failure_reason && <Row term="Why it failed">{r.failure_reason}</Row>}
        <Row term="Delivery">{`${r.delivery}${r.delivery_error ? `: ${r.delivery_error}` : ''}`}</Row>
      </dl>
    </Drawer>
  );
}

export function Requests({ version }: { version: number }) {
  const [filter, setFilter] = useState({ status: '', q: '' });
  const [typed, setTyped] = useState('');
  const [offset, setOffset] = useState(0);
  const query = { limit: PAGE, offset, status: filter.status, q: filter.q };
  const { data, error, reload } = useLoad(() => api<Requests>('GET', '/api/v1/requests', undefined, query), `${version}|${JSON.stringify(query)}`);
  const [form, setForm] = useState({ contact: '', amount: '', currency: 'VWL', description: '' });
  const [note, setNote] = useState('');
  const [open, setOpen] = useState<RequestRow | null>(null);
  const act = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const change = (next: Partial<typeof filter>) => (setFilter({ ...filter, ...next }), setOffset(0));
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await api<ResponseData['POST /api/v1/requests']>('POST', '/api/v1/requests', { ...form, ...(form.description ? {} : { description: undefined }) });
      setForm({ ...form, contact: '', amount: '', description: '' });
      reload();
      return `Request ${r.request_id} sent`;
    });
  };
  // Paying and refusing are asked first: an approval moves money, a decline or cancel cannot be undone.
  const QUESTIONS = {
    approve: (r: RequestRow) => [`Pay ${r.amount} ${r.currency} to ${r.contact_name ?? 'the requester'}?`, 'The payment goes out at once.', `Pay ${r.amount} ${r.currency}`],
    decline: (r: RequestRow) => [`Decline ${r.amount} ${r.currency} from ${r.contact_name ?? 'the requester'}?`, 'They are told; a declined request cannot be approved later.', 'Decline'],
    cancel: (r: RequestRow) => [`Cancel your request for ${r.amount} ${r.currency}?`, `${r.contact_name ?? 'The contact'} is told; it cannot be paid after.`, 'Cancel the request'],
  } as const;
  const decide = (action: 'approve' | 'decline' | 'cancel' | 'retry', r: RequestRow) =>
    act.run(async () => {
      if (action !== 'retry') {
        const [title, detail, yes] = QUESTIONS[action](r);
        if (!(await askSure(title, detail, yes))) return 'Nothing changed';
      }
      const id = r.request_id;
      if (action === 'cancel') await api('DELETE', `/api/v1/requests/${id}`);
      else await api('POST', `/api/v1/requests/${action}`, { request_id: id, ...(action === 'approve' && note ? { payer_note: note } : {}) });
      reload();
      return `${action === 'retry' ? 'Retried' : `${action}d`} ${id.slice(0, 8)}`;
    });
  const details = (r: RequestRow) => (
    <button type="button" class="secondary" data-request={r.request_id} aria-label={`Details of request ${r.request_id.slice(0, 8)}`} onClick={() => setOpen(r)}>
      Details
    </button>
  );
  const filtered = filter.status !== '' || filter.q !== '';
  const total = Math.max(data?.pagination.incoming_total ?? 0, data?.pagination.outgoing_total ?? 0);
  const shown = Math.max(data?.incoming.length ?? 0, data?.outgoing.length ?? 0);
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
        <button type="submit" disabled={act.busy}>Request</button>
      </form>
      <form class="filters" aria-label="Filter the requests" onSubmit={(e) => (e.preventDefault(), change({ q: typed.trim() }))}>
        <Choice label="Status" id="r-status" all value={filter.status} options={STATUSES} onChange={(status) => change({ status })} />
        <div class="field">
          <label for="r-q">Description contains</label>
          <input id="r-q" type="search" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit">Search requests</button>
      </form>
      <h2>Asked of you</h2>
      <Field label="Note to the requester (with an approval)" name="payer-note" value={note} onInput={setNote} />
      {data && (
        <Table
          caption="Incoming requests"
          rows={data.incoming}
          empty={filtered ? 'No request asked of you matches: change the filter.' : 'Nobody asked you to pay. When a contact does, the request waits here for your answer.'}
          columns={[
            ['From', (r) => r.contact_name ?? '-'],
            ['Amount', (r) => <Amount value={r.amount} currency={r.currency} />],
            ['Description', (r) => r.description ?? ''],
            ['Status', (r) => r.status],
            [
              'Answer',
              (r) => (
                <span class="actions">
                  {r.status === 'pending' && (
                    <>
                      <button type="button" disabled={act.busy} onClick={() => decide('approve', r)}>Approve</button>
                      <button type="button" class="secondary" disabled={act.busy} onClick={() => decide('decline', r)}>Decline</button>
                    </>
                  )}
                  {r.status === 'failed' && <button type="button" disabled={act.busy} onClick={() => decide('retry', r)}>Retry payment</button>}
                  {details(r)}
                </span>
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
          empty={filtered ? 'No request of yours matches: change the filter.' : 'You asked nobody to pay: ask a contact with the form above.'}
          columns={[
            ['To', (r) => r.contact_name ?? '-'],
            ['Amount', (r) => <Amount value={r.amount} currency={r.currency} />],
            ['Description', (r) => r.description ?? ''],
            ['Status', (r) => r.status],
            [
              '',
              (r) => (
                <span class="actions">
                  {r.status === 'pending' && <button type="button" class="secondary" disabled={act.busy} onClick={() => decide('cancel', r)}>Cancel</button>}
                  {details(r)}
                </span>
              ),
            ],
          ]}
        />
      )}
      {data && <Pager label="Pages of requests" offset={offset} size={PAGE} shown={shown} total={total} go={setOffset} />}
      {open && <RequestDrawer request={open} close={() => setOpen(null)} />}
    </section>
  );
}
