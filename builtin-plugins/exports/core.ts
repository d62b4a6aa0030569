/**
 * Where each export's rows come from: the ledger, contacts and payment-requests services (never their tables), with
 * the entity's filters applied at the source and the sort order of Document 1.
 */
import type { ContactStatus, ContactsService } from '../contacts/api.js';
import type { LedgerService, TxDirection, TxStatus } from '../ledger/api.js';
import type { PaymentRequestsService, RequestDirection, RequestStatus } from '../payment-requests/api.js';
import { balanceColumns, contactColumns, requestColumns, transactionColumns, type BalanceRow, type Names } from './columns.js';
import { csvEncoder, ndjsonEncoder, type Column, type Encoder } from './encode.js';
import type { Entity, ExportQuery } from './query.js';

export interface Services {
  contacts: ContactsService;
  ledger: LedgerService;
  requests: PaymentRequestsService;
}

/** An export ready to stream: its rows (not read yet) and how each becomes a line. */
export interface PreparedExport {
  rows: Iterator<unknown>;
  encoder: Encoder<unknown>;
}

function prepared<R>(rows: Iterable<R>, columns: readonly Column<R>[], q: ExportQuery): PreparedExport {
  const encoder = q.format === 'csv' ? csvEncoder(columns) : ndjsonEncoder(columns);
  return { rows: rows[Symbol.iterator](), encoder: encoder as Encoder<unknown> };
}

/** Names of the accepted contacts: only they name a counterparty (Document 1, "Rules"). */
export function acceptedNames(contacts: ContactsService): Names {
  const names = new Map<string, string>();
  for (const c of contacts.accepted()) if (c.pubkeyHash && c.name) names.set(c.pubkeyHash, c.name);
  return names;
}

const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The balance rows of the wallet's balance listing (every ledger balance, and a zero row for each accepted line that
 * has none), sorted by currency then contact name (unnamed last). They are per (contact, currency), so they number
 * what the contacts and their lines number: held in memory, unlike the other exports, to sort them by a name that
 * lives in another plugin.
 */
export function balanceRows(s: Services, q: ExportQuery, names: Names): BalanceRow[] {
  const rows: BalanceRow[] = [];
  const seen = new Set<string>();
  const push = (contactHash: string, currency: string, received: bigint, sent: bigint): void => {
    const key = `${contactHash}:${currency.toLowerCase()}`;
    if (seen.has(key) || (q.currency !== undefined && currency.toLowerCase() !== q.currency)) return;
    seen.add(key);
    rows.push({ currency, contactHash, contactName: names.get(contactHash) ?? null, received, sent });
  };
  for (const b of s.ledger.balances(q.contactHash)) push(b.contactHash, b.currency, b.received, b.sent);
  for (const c of s.contacts.accepted()) {
    if (!c.pubkeyHash || (q.contactHash !== undefined && c.pubkeyHash !== q.contactHash)) continue;
    for (const line of c.currencies) if (line.status === 'accepted') push(c.pubkeyHash, line.currency, 0n, 0n);
  }
  return rows.sort(
    (a, b) =>
      order(a.currency.toLowerCase(), b.currency.toLowerCase()) ||
      order(a.currency, b.currency) ||
      Number(a.contactName === null) - Number(b.contactName === null) ||
      order((a.contactName ?? '').toLowerCase(), (b.contactName ?? '').toLowerCase()) ||
      order(a.contactHash, b.contactHash),
  );
}

export function prepareExport(entity: Entity, q: ExportQuery, s: Services): PreparedExport {
  switch (entity) {
    case 'transactions': {
      const names = acceptedNames(s.contacts);
      const rows = s.ledger.exportTransactions({
        ...(q.contactHash ? { contactHash: q.contactHash } : {}),
        ...(q.status ? { status: q.status as TxStatus } : {}),
        ...(q.type ? { type: q.type as TxDirection } : {}),
        ...(q.from !== undefined ? { from: q.from } : {}),
        ...(q.to !== undefined ? { to: q.to } : {}),
        detail: q.view === 'full',
      });
      const router = s.ledger.router();
      return prepared(rows, transactionColumns(q.view, names, (txid) => router?.originOf(txid) ?? null), q);
    }
    case 'payment_requests': {
      const names = acceptedNames(s.contacts);
      const rows = s.requests.exportRequests({
        ...(q.contactHash ? { contactHash: q.contactHash } : {}),
        ...(q.status ? { status: q.status as RequestStatus } : {}),
        ...(q.direction ? { direction: q.direction as RequestDirection } : {}),
        ...(q.from !== undefined ? { from: q.from } : {}),
        ...(q.to !== undefined ? { to: q.to } : {}),
      });
      return prepared(rows, requestColumns(q.view, names), q);
    }
    case 'contacts':
      return prepared(s.contacts.exportContacts(q.status ? { status: q.status as ContactStatus } : {}), contactColumns(q.view), q);
    case 'balances':
      return prepared(balanceRows(s, q, acceptedNames(s.contacts)), balanceColumns(q.view), q);
  }
}

/** Lower-case letters and digits, every other run a single dash, at most 32 characters. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
}

/** `node-<entity>[-contact-<slug>]-<wallet-slug>-<YYYY-MM-DD>.<ext>` (Document 1). */
export function exportFileName(entity: Entity, contactSlug: string | null, walletSlug: string, date: string, format: 'csv' | 'json'): string {
  const parts = ['node', slug(entity), ...(contactSlug ? ['contact', contactSlug] : []), walletSlug, date];
  return `${parts.join('-')}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}
