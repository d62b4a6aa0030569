/**
 * The contacts page: add a contact, answer the requests waiting (with the address to answer at, which the operator
 * confirms: a node never trusts the loopback or private addresses a requester claims), your contacts and their lines,
 * their terms, ping, block, delete.
 */
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { Choice, Copyable, Drawer, Field, Pager, Row, Status, Table, askSure, useAction, useLoad, when } from './ui.js';

type Page = { version: number };

type Contacts = ResponseData['GET /api/v1/contacts'];
type ContactRow = Contacts['contacts'][number];
type ContactDetail = ResponseData['GET /api/v1/contacts/{address}'];
/** A line of the detail with its balance, named: the detail's `currencies` is an intersection of two array types, whose map sees lines without it. */
type DetailLine = ContactDetail['contact']['currencies'][number];
type Pending = ResponseData['GET /api/v1/contacts/pending'];
type Asking = Pending['pending']['incoming'][number];
/** A contact request waiting for our answer: it came signed by a key, so its hash is known (nullable in the schema, for contacts added by address). */
type Requester = Asking & { pubkey_hash: string };

const fromKey = (c: Asking): c is Requester => c.pubkey_hash !== null;

const addressOf = (c: Pick<ContactRow, 'addresses'>): string => c.addresses?.https ?? c.addresses?.http ?? c.addresses?.tor ?? '';
const PAGE = 20;

/** One contact in full (GET /contacts/:address): who, where, how it answered last, and each line with its balance. */
function ContactDrawer(props: { contact: ContactRow; close: () => void }) {
  const key = props.contact.pubkey_hash ?? addressOf(props.contact);
  const { data, error } = useLoad(() => api<ContactDetail>('GET', `/api/v1/contacts/${encodeURIComponent(key)}`), key);
  const c = data?.contact;
  return (
    <Drawer title={`Contact ${props.contact.name ?? ''}`.trim()} id="contact-title" close={props.close} focusKey={key}>
      <Status error={error} />
      {c && (
        <dl class="details">
          <Row term="Name">{c.name}</Row>
          <Row term="Status">{c.status}</Row>
          <Row term="Key hash">{c.pubkey_hash && <Copyable value={c.pubkey_hash} label="the contact's key hash" />}</Row>
          {Object.entries(c.addresses ?? {})
            .filter(([, a]) => a)
            .map(([kind, a]) => (
              <Row term={`Address (${kind})`}>{a as string}</Row>
            ))}
          <Row term="Online">{`${c.online_status}${c.last_ping_at ? `, pinged ${when(c.last_ping_at)}` : ''}`}</Row>
          <Row term="Chains">{c.chain_valid === null ? 'not checked yet' : c.chain_valid ? 'valid' : 'need repair'}</Row>
          <Row term="Since">{when(c.created_at)}</Row>
          {c.currencies.map((l: DetailLine) => (
            <Row term={`Line ${l.currency}`}>
              {`${l.status}; you extend ${l.credit_limit ?? '-'}, they extend ${l.peer_credit_limit ?? '-'}, available to send ${l.my_available_credit ?? '-'}, fee ${l.fee_percent ?? 0}%; balance ${l.balance?.net ?? '0'} (received ${l.balance?.received ?? '0'}, sent ${l.balance?.sent ?? '0'})`}
            </Row>
          ))}
        </dl>
      )}
      <p>
        <a href={`#/history`}>History</a> filters by this contact: type its name in the Contact field there.
      </p>
    </Drawer>
  );
}

/** One request waiting: who asks (the full key hash, their message), and the terms of the answer. */
function IncomingRequest(props: { request: Requester; done: () => void }) {
  const c = props.request;
  const decide = useAction();
  const [answer, setAnswer] = useState({ name: c.name ?? c.suggested_name ?? '', credit: '100', address: addressOf(c) });
  const set = (k: keyof typeof answer) => (v: string) => setAnswer({ ...answer, [k]: v });
  const shown = c.name ?? c.suggested_name ?? 'A new contact';
  const answerWith = (currency: string, action: 'accept' | 'decline' | 'defer') =>
    decide.run(async () => {
      await api('POST', `/api/v1/contacts/${c.pubkey_hash}/decisions`, {
        decisions: [{ currency, action, ...(action === 'accept' ? { fee: 0, credit: answer.credit } : {}) }],
        ...(c.is_new_contact && action === 'accept' ? { is_new_contact: true, contact_address: answer.address, contact_name: answer.name || shown } : {}),
      });
      props.done();
      return `${action === 'accept' ? 'Accepted' : action === 'decline' ? 'Declined' : 'Deferred'} ${currency} with ${answer.name || shown}`;
    });
  const id = c.pubkey_hash.slice(0, 12);
  return (
    <article class="request" data-testid="incoming-contact" aria-labelledby={`req-${id}`}>
      <h3 id={`req-${id}`}>{shown}</h3>
      <p>
        Key hash: <Copyable value={c.pubkey_hash} label={`the key hash of ${shown}`} />
      </p>
      {c.currencies.map((cur) => (
        <div class="request-line">
          <p>
            Asks to connect in <strong>{cur.currency}</strong>
            {cur.requested_credit_limit ? `, asking ${cur.requested_credit_limit} of credit` : ''}.
            {cur.description && <q class="message">{cur.description}</q>}
          </p>
          {cur.warning && <p class="status error">{cur.warning}</p>}
        </div>
      ))}
      <div class="grid-fields">
        <Field label="Name for the new contact" name={`name-${id}`} value={answer.name} onInput={set('name')} />
        <Field label="Credit you extend" name={`credit-${id}`} value={answer.credit} onInput={set('credit')} />
        {c.is_new_contact && (
          <Field
            label="Their address (confirm it: the answer goes there)"
            name={`address-${id}`}
            value={answer.address}
            onInput={set('address')}
            placeholder="http://127.0.0.1:8080"
          />
        )}
      </div>
      {c.currencies.map((cur) => (
        <span class="actions">
          <button type="button" disabled={decide.busy} onClick={() => answerWith(cur.currency, 'accept')}>Accept {cur.currency}</button>
          <button type="button" class="secondary" disabled={decide.busy} onClick={() => answerWith(cur.currency, 'decline')}>Decline {cur.currency}</button>
          <button type="button" class="secondary" disabled={decide.busy} onClick={() => answerWith(cur.currency, 'defer')}>Later</button>
        </span>
      ))}
      <Status ok={decide.ok} error={decide.error} />
    </article>
  );
}

export function Contacts({ version }: Page) {
  const [filter, setFilter] = useState({ status: 'all', q: '' });
  const [typed, setTyped] = useState('');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<ContactRow | null>(null);
  const query = { limit: PAGE, offset, status: filter.status, q: filter.q };
  const { data, error, reload } = useLoad(
    () => Promise.all([api<Contacts>('GET', '/api/v1/contacts', undefined, query), api<Pending>('GET', '/api/v1/contacts/pending')]),
    `${version}|${JSON.stringify(query)}`,
  );
  const [contacts, pending] = data ?? [null, null];
  const search = (next: Partial<typeof filter>) => (setFilter({ ...filter, ...next }), setOffset(0));
  const filtered = filter.status !== 'all' || filter.q !== '';
  const add = useAction();
  const empty = { address: '', name: '', currency: 'VWL', credit_limit: '100', fee_percent: '0', description: '' };
  const [form, setForm] = useState(empty);
  const set = (k: keyof typeof form) => (v: string) => setForm({ ...form, [k]: v });
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await api('POST', '/api/v1/contacts', { ...form, ...(form.description ? {} : { description: undefined }) });
      setForm(empty);
      reload();
      return `Contact request sent to ${form.name}`;
    });
  };
  const [terms, setTerms] = useState({ contact: '', currency: 'VWL', credit_limit: '', fee_percent: '' });
  const change = useAction();
  const contactAction = (c: ContactRow, action: 'ping' | 'block' | 'unblock') =>
    change.run(async () => {
      const r = await api<ResponseData[`POST /api/v1/contacts/${typeof action}/{address}`]>('POST', `/api/v1/contacts/${action}/${c.pubkey_hash}`);
      reload();
      // Only a ping's answer says how the contact answered.
      return 'online_status' in r ? `${c.name}: ${r.online_status}${r.chain_valid === false ? ', chain needs repair' : ''}` : `${c.name} ${action}ed`;
    });
  const remove = (c: ContactRow) =>
    change.run(async () => {
      if (!(await askSure(`Delete ${c.name}?`, `Every line with ${c.name} and its local history go; ${c.name} is not told. Adding them again needs a new request.`, `Delete ${c.name}`))) return 'Nothing deleted';
      const r = await api<ResponseData['DELETE /api/v1/contacts/{address}']>('DELETE', `/api/v1/contacts/${encodeURIComponent(c.pubkey_hash ?? addressOf(c))}`);
      reload();
      return r.message;
    });
  const removeLine = (c: ContactRow, currency: string) =>
    change.run(async () => {
      if (!(await askSure(`Remove the ${currency} line with ${c.name}?`, `The ${currency} line goes on this node only; ${c.name} is not told.`, `Remove ${currency}`))) return 'Nothing removed';
      const r = await api<ResponseData['POST /api/v1/contacts/{hash}/currency-remove']>('POST', `/api/v1/contacts/${c.pubkey_hash}/currency-remove`, { currency });
      reload();
      return r.message;
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
  // A requester is a pending contact without a name of yours yet: it is shown where it waits, not among your contacts.
  const requesters = (pending?.pending.incoming ?? []).filter(fromKey);
  const waiting = new Set<string | null>(requesters.filter((c) => c.status === 'pending').map((c) => c.pubkey_hash));
  const yours = (contacts?.contacts ?? []).filter((c) => !waiting.has(c.pubkey_hash));
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
        <Field label="Message (optional)" name="description" value={form.description} onInput={set('description')} />
        <button type="submit" disabled={add.busy}>Add contact</button>
        <Status ok={add.ok} error={add.error} />
      </form>
      <h2>Waiting for your answer</h2>
      {pending && requesters.length === 0 && <p class="empty">No contact request waits. When someone adds this node, their request appears here.</p>}
      {requesters.map((c) => <IncomingRequest key={c.pubkey_hash} request={c} done={reload} />)}
      <h2>Your contacts</h2>
      <form class="filters" aria-label="Search the contacts" onSubmit={(e) => (e.preventDefault(), search({ q: typed.trim() }))}>
        <Choice label="Contact status" id="c-status" value={filter.status} options={['all', 'accepted', 'pending', 'blocked']} onChange={(status) => search({ status })} />
        <div class="field">
          <label for="c-q">Name, address or key hash</label>
          <input id="c-q" type="search" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit">Search contacts</button>
      </form>
      <Status ok={change.ok} error={change.error} />
      {contacts && (
        <Table
          caption="Your contacts"
          rows={yours}
          empty={filtered ? 'No contact matches: change the search.' : 'No contacts yet: add one above with its address.'}
          columns={[
            ['Name', (c) => c.name],
            ['Status', (c) => c.status],
            ['Address', (c) => addressOf(c) || '-'],
            [
              'Lines',
              (c) =>
                c.currencies.map((l) => (
                  <span class="actions">
                    {l.currency} {l.status}
                    {c.pubkey_hash && (
                      <button type="button" class="secondary" onClick={() => removeLine(c, l.currency)}>
                        Remove {l.currency} line with {c.name}
                      </button>
                    )}
                  </span>
                )),
            ],
            [
              'Actions',
              (c) => (
                <span class="actions">
                  <button type="button" class="secondary" onClick={() => contactAction(c, 'ping')}>Ping {c.name}</button>
                  <button type="button" class="secondary" onClick={() => contactAction(c, c.status === 'blocked' ? 'unblock' : 'block')}>
                    {c.status === 'blocked' ? 'Unblock' : 'Block'} {c.name}
                  </button>
                  <button type="button" class="secondary danger" onClick={() => remove(c)}>Delete {c.name}</button>
                  <button type="button" class="secondary" data-contact={c.pubkey_hash} onClick={() => setOpen(c)}>Details of {c.name}</button>
                </span>
              ),
            ],
          ]}
        />
      )}
      {contacts && <Pager label="Pages of contacts" offset={offset} size={PAGE} shown={contacts.contacts.length} total={contacts.total} go={setOffset} />}
      {open && <ContactDrawer contact={open} close={() => setOpen(null)} />}
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
