/**
 * History: the REST listing (GET /wallet/transactions) paged and filtered by the node, with the same query parameters,
 * so a page shows exactly what the API answers; and a transaction's detail (GET /wallet/transactions/:txid) in a drawer.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ResponseData } from '../../../sdk/responses.js';
import { api } from './api.js';
import { Amount, Choice, Copyable, Drawer, Pager, Row, Status, Table, askSure, useAction, useLoad, when } from './ui.js';

type Transactions = ResponseData['GET /api/v1/wallet/transactions'];
/** A transaction of the listing (GET /wallet/transactions). */
export type TxRow = Transactions['transactions'][number];
/** What the overview's recent transactions and the listing's rows both carry. */
type TxSummary = ResponseData['GET /api/v1/wallet/overview']['recent_transactions'][number];

/** A transaction row as the overview and the history show it. */
export const TX_COLUMNS: readonly [string, (t: TxSummary) => ComponentChildren][] = [
  ['When', (t) => when(t.timestamp)],
  ['Type', (t) => t.type],
  ['Contact', (t) => t.counterparty_name ?? '-'],
  ['Amount', (t) => <Amount value={t.amount} currency={t.currency} />],
  ['Description', (t) => t.description ?? ''],
  ['Status', (t) => t.status],
];

const PAGE_SIZES = [10, 20, 50, 100] as const;

/** One transaction in full: its chain position (the previous txid opens in turn), signatures, refund. */
function TxDrawer(props: { txid: string; open: (txid: string) => void; close: () => void }) {
  const { data, error, reload } = useLoad(() => api<ResponseData['GET /api/v1/wallet/transactions/{txid}']>('GET', `/api/v1/wallet/transactions/${props.txid}`), props.txid);
  const refund = useAction();
  const t = data?.transaction;
  const doRefund = (t: TxRow) =>
    refund.run(async () => {
      if (!(await askSure(`Refund ${t.amount} ${t.currency}?`, `The whole remainder goes back to ${t.counterparty_name ?? t.sender_address} as a new payment.`, 'Refund'))) return 'Nothing refunded';
      const r = await api<ResponseData['POST /api/v1/wallet/refund']>('POST', '/api/v1/wallet/refund', { txid: t.txid });
      reload();
      return r.message;
    });
  const link = (txid: string) => (
    <button type="button" class="link" onClick={() => props.open(txid)}>
      {txid}
    </button>
  );
  return (
    <Drawer title="Transaction" id="tx-title" close={props.close} focusKey={props.txid}>
      <Status error={error} />
      {t && (
        <dl class="details">
          <Row term="Txid">
            <Copyable value={t.txid} label="the txid" />
          </Row>
          <Row term="Type">{`${t.type} (${t.tx_type})`}</Row>
          <Row term="Status">{t.status}</Row>
          <Row term="Amount">{`${t.amount} ${t.currency}`}</Row>
          <Row term="Description">{t.description}</Row>
          <Row term="Contact">{t.counterparty_name}</Row>
          <Row term="Contact key hash">{t.counterparty_pubkey_hash && <Copyable value={t.counterparty_pubkey_hash} label="the contact's key hash" />}</Row>
          <Row term="From">{t.sender_address}</Row>
          <Row term="To">{t.receiver_address}</Row>
          <Row term="Created">{when(t.timestamp)}</Row>
          <Row term="Completed">{when(t.completed_at)}</Row>
          <Row term="Chain position">
            {t.previous_txid ? (
              <>after {link(t.previous_txid)}</>
            ) : (
              'first of this contact and currency'
            )}
          </Row>
          <Row term="Sender's signature">{data.signatures?.sender && <code class="long">{data.signatures.sender}</code>}</Row>
          <Row term="Recipient's signature">{data.signatures?.recipient && <code class="long">{data.signatures.recipient}</code>}</Row>
          {t.refund_of && <Row term="Refund of">{link(t.refund_of)}</Row>}
          {t.failure_reason && <Row term="Why it failed">{t.failure_reason}</Row>}
          {t.needs_review && <Row term="Review">the outcome may differ on the other side (docs/protocol.md, crash recovery)</Row>}
          {data.route ? (
            <Row term="Route">
              {`${data.route.hops ?? '?'} hops, first through ${data.route.via ?? 'a contact not chosen yet'}; delivered ${data.route.amount} ${t.currency}`}
              {data.route.total !== null && `, paid ${data.route.total} ${t.currency} (fees ${data.route.fee} ${t.currency})`}
            </Row>
          ) : (
            t.tx_type === 'p2p' && <Row term="Route">routed: the fees of the nodes on its route were paid on top (Approvals shows candidates while one waits)</Row>
          )}
        </dl>
      )}
      {t?.type === 'received' && t.status === 'completed' && (
        <button type="button" disabled={refund.busy} onClick={() => doRefund(t)}>
          Refund
        </button>
      )}
      <Status ok={refund.ok} error={refund.error} />
    </Drawer>
  );
}

/** The sort choices, as the listing's `sort` and `order`. */
const SORTS = { newest: ['time', 'desc'], oldest: ['time', 'asc'], largest: ['amount', 'desc'], smallest: ['amount', 'asc'] } as const;
type SortName = keyof typeof SORTS;

/** What the search fields send: each is one query parameter of GET /wallet/transactions (docs/api/wallet.md). */
const SEARCH_FIELDS = [
  ['contact', 'Contact (name, address or key hash)', 'text'],
  ['q', 'Description contains', 'search'],
  ['txid', 'Txid starts with', 'text'],
  ['amount_min', 'Amount at least', 'text'],
  ['amount_max', 'Amount at most', 'text'],
  ['from', 'From day', 'date'],
  ['to', 'To day', 'date'],
] as const;
/** Contact and description show at once; the others under "More filters". */
const MAIN_FIELDS = 2;
type SearchKey = (typeof SEARCH_FIELDS)[number][0];
const NO_SEARCH: Record<SearchKey, string> = { contact: '', q: '', txid: '', amount_min: '', amount_max: '', from: '', to: '' };

export function History({ version }: { version: number }) {
  const [filter, setFilter] = useState({ type: '', status: '', sort: 'newest' as SortName, ...NO_SEARCH });
  const [typed, setTyped] = useState(NO_SEARCH);
  const [size, setSize] = useState(20);
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const { sort, ...rest } = filter;
  const query = { limit: size, offset, ...rest, sort: SORTS[sort][0], order: SORTS[sort][1] };
  const { data, error } = useLoad(() => api<Transactions>('GET', '/api/v1/wallet/transactions', undefined, query), `${version}|${JSON.stringify(query)}`);
  const change = (next: Partial<typeof filter>) => (setFilter({ ...filter, ...next }), setOffset(0));
  const trimmed = (): typeof NO_SEARCH => Object.fromEntries(Object.entries(typed).map(([k, v]) => [k, v.trim()])) as typeof NO_SEARCH;
  const filtered = Object.entries(rest).some(([, v]) => v !== '');
  const searchField = ([key, label, type]: (typeof SEARCH_FIELDS)[number]) => (
    <div class="field">
      <label for={`h-${key}`}>{label}</label>
      <input id={`h-${key}`} type={type} value={typed[key]} onInput={(e) => setTyped({ ...typed, [key]: (e.target as HTMLInputElement).value })} />
    </div>
  );
  const total = data?.pagination.total ?? 0;
  const shown = data?.transactions.length ?? 0;
  return (
    <section aria-labelledby="h-history">
      <h1 id="h-history">History</h1>
      <form
        class="filters"
        aria-label="Filter the transactions"
        onSubmit={(e) => {
          e.preventDefault();
          change(trimmed());
        }}
      >
        <Choice label="Type" id="h-type" all value={filter.type} options={['sent', 'received', 'relay']} onChange={(type) => change({ type })} />
        <Choice label="Status" id="h-status" all value={filter.status} options={['completed', 'pending', 'sending', 'failed', 'rejected', 'cancelled']} onChange={(status) => change({ status })} />
        <Choice label="Order" id="h-sort" value={filter.sort} options={Object.keys(SORTS)} onChange={(v) => change({ sort: v as SortName })} />
        {SEARCH_FIELDS.slice(0, MAIN_FIELDS).map(searchField)}
        {/* The rarer fields fold away (a phone shows a short form); they stay open while one of them holds a value. */}
        <details class="more-filters" open={SEARCH_FIELDS.slice(MAIN_FIELDS).some(([k]) => typed[k] !== '')}>
          <summary>More filters: txid, amount, days</summary>
          <div class="filters">{SEARCH_FIELDS.slice(MAIN_FIELDS).map(searchField)}</div>
        </details>
        <span class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" disabled={!filtered} onClick={() => (setTyped(NO_SEARCH), change({ type: '', status: '', ...NO_SEARCH }))}>
            Clear
          </button>
        </span>
        <Choice label="Rows per page" id="h-size" value={String(size)} options={PAGE_SIZES} onChange={(v) => (setSize(Number(v)), setOffset(0))} />
      </form>
      <p class="downloads">
        Export: <a href="/api/v1/export/transactions">CSV</a> · <a href="/api/v1/export/transactions?format=json">NDJSON</a> ·{' '}
        <a href="/api/v1/export/transactions?view=full">CSV full</a>
      </p>
      <Status error={error} />
      {data && (
        <>
          <Table
            caption="Transactions"
            rows={data.transactions}
            empty={filtered ? 'No transaction matches: widen the search or press Clear.' : 'No transactions yet: add a contact, then send from the Send page.'}
            columns={[
              ...TX_COLUMNS,
              [
                'Detail',
                (t: TxRow) => (
                  <button type="button" class="secondary" data-txid={t.txid} aria-label={`Details of ${t.txid.slice(0, 8)}`} onClick={() => setOpen(t.txid)}>
                    Details
                  </button>
                ),
              ],
            ]}
          />
          <Pager label="Pages of transactions" offset={offset} size={size} shown={shown} total={total} go={setOffset} />
        </>
      )}
      {open && <TxDrawer txid={open} open={setOpen} close={() => setOpen(null)} />}
    </section>
  );
}
