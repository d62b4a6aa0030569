/**
 * The columns of each export, slim and full, in Document 1's order, and the rules of its "Rules" paragraph:
 * descriptions display-sanitised, signed content verbatim, counterparty names only from accepted contacts, dates
 * `YYYY-MM-DDTHH:MM:SSZ`, amounts as `_decimal` (8 decimals), `_whole` and `_frac` (the sign on the whole part).
 */
import { formatMinorFixed, toParts, type Minor } from '../../sdk/money.js';
import { clampUtf8, stripUnsafeText } from '../../sdk/text.js';
import type { ExportedContact } from '../contacts/api.js';
import type { ExportedTx } from '../ledger/api.js';
import type { ExportedRequest } from '../payment-requests/api.js';
import type { Cell, Column, Kind } from './encode.js';
import type { View } from './query.js';

/** Key hash → name of the accepted contacts, taken when the export starts. */
export type Names = ReadonlyMap<string, string>;

/** A balance row: one contact and currency. */
export interface BalanceRow {
  currency: string;
  contactHash: string;
  contactName: string | null;
  received: Minor;
  sent: Minor;
}

/**
 * The most a description within Document 1's 255 characters can take in UTF-8 (4 bytes each): a valid description
 * is never cut, and whatever arrived longer (older data, a foreign node) still makes a bounded cell.
 */
export const DESCRIPTION_MAX_BYTES = 255 * 4;

/** A description as a reader should see it: control, bidirectional and zero-width characters removed, byte-clamped. */
export function displayDescription(text: string | null): string | null {
  return text === null ? null : clampUtf8(stripUnsafeText(text), DESCRIPTION_MAX_BYTES);
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const DAY_S = 86_400;
let cachedDay = NaN;
let cachedDayText = '';

/**
 * `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds, cut not rounded). The date part is kept per day and the time made by
 * arithmetic: an export formats millions of these, and `toISOString` per row cost as much as reading the row.
 */
export function exportDate(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  const seconds = Math.floor(ms / 1000);
  const day = Math.floor(seconds / DAY_S);
  if (day !== cachedDay) {
    const iso = new Date(day * DAY_S * 1000).toISOString();
    cachedDayText = iso.slice(0, iso.indexOf('T') + 1);
    cachedDay = day;
  }
  const t = seconds - day * DAY_S;
  return `${cachedDayText}${TWO_DIGITS[Math.floor(t / 3600)]}:${TWO_DIGITS[Math.floor(t / 60) % 60]}:${TWO_DIGITS[t % 60]}Z`;
}

/** A stored ISO 8601 time in the export's form; null when absent or unreadable. */
export const exportDateOf = (iso: string | null): string | null => (iso === null ? null : exportDate(Date.parse(iso)));

const col = <R>(name: string, kind: Kind, get: (row: R) => Cell): Column<R> => ({ name, kind, get });

/** The three amount columns of one amount (`amount_decimal`, `amount_whole`, `amount_frac`), split once per row. */
function amountColumns<R>(prefix: string, of: (row: R) => Minor): Column<R>[] {
  let last: R | undefined;
  let parts = { value: 0n, whole: 0n, frac: 0n };
  const split = (r: R): typeof parts => {
    if (r !== last) {
      last = r;
      const value = of(r);
      parts = { value, ...toParts(value) };
    }
    return parts;
  };
  return [
    col<R>(`${prefix}_decimal`, 'decimal', (r) => {
      const p = split(r);
      return p.value >= 0n ? `${p.whole}.${String(p.frac).padStart(8, '0')}` : formatMinorFixed(p.value);
    }),
    col<R>(`${prefix}_whole`, 'int', (r) => split(r).whole),
    col<R>(`${prefix}_frac`, 'int', (r) => split(r).frac),
  ];
}

/** Where a routed payment came from, when this node is its destination (the router knows); null otherwise. */
export type OriginOf = (txid: string) => string | null;

const ROUTE_STANDARD = 'standard';

export function transactionColumns(view: View, names: Names, originOf: OriginOf = () => null): Column<ExportedTx>[] {
  type R = ExportedTx;
  const slim: Column<R>[] = [
    col<R>('txid', 'text', (r) => r.txid),
    col<R>('date_utc', 'date', (r) => exportDate(r.createdAt)),
    col<R>('direction', 'text', (r) => r.type),
    col<R>('status', 'text', (r) => r.status),
    col<R>('counterparty_name', 'text', (r) => names.get(r.contactHash) ?? null),
    col<R>('counterparty_pubkey_hash', 'text', (r) => r.contactHash),
    col<R>('currency', 'text', (r) => r.currency),
    ...amountColumns<R>('amount', (r) => r.amount),
    col<R>('description', 'text', (r) => displayDescription(r.description)),
  ];
  if (view === 'slim') return slim;
  const d = (r: R): NonNullable<R['detail']> => r.detail!;
  return [
    ...slim,
    col<R>('routing_marker', 'text', (r) => d(r).memo),
    col<R>('tx_type', 'text', (r) => d(r).txType),
    col<R>('sender_address', 'text', (r) => d(r).senderAddress),
    col<R>('receiver_address', 'text', (r) => d(r).receiverAddress),
    col<R>('sender_signature', 'token', (r) => d(r).senderSignature),
    col<R>('recipient_signature', 'token', (r) => d(r).recipientSignature),
    col<R>('signed_message_content', 'verbatim', (r) => d(r).content),
    col<R>('previous_txid', 'text', (r) => d(r).prevTxid),
    // A direct payment's two ends are its sender and recipient. A routed leg (its memo is the route's hash) has them
    // only where this node is one: the originator is the sender of its first leg, the destination the recipient of
    // its last, and the router remembers where a payment it delivered came from. A relay is told neither end.
    col<R>('initial_sender_address', 'text', (r) => {
      const x = d(r);
      if (x.memo === ROUTE_STANDARD || r.type === 'sent') return r.type === 'relay' ? null : x.senderAddress;
      return r.type === 'received' ? originOf(r.txid) : null;
    }),
    col<R>('end_recipient_address', 'text', (r) => {
      const x = d(r);
      if (x.memo === ROUTE_STANDARD || r.type === 'received') return r.type === 'relay' ? null : x.receiverAddress;
      return null;
    }),
    col<R>('recovery_count', 'int', (r) => d(r).recoveryCount),
    col<R>('expires_at', 'date', (r) => exportDate(d(r).expiresAt)),
    col<R>('source_table', 'text', (r) => r.source),
  ];
}

export function requestColumns(view: View, names: Names): Column<ExportedRequest>[] {
  type R = ExportedRequest;
  const slim: Column<R>[] = [
    col<R>('request_id', 'text', (r) => r.requestId),
    col<R>('date_utc', 'date', (r) => exportDate(r.createdAt)),
    col<R>('direction', 'text', (r) => r.direction),
    col<R>('status', 'text', (r) => r.status),
    col<R>('counterparty_name', 'text', (r) => names.get(r.contactHash) ?? null),
    col<R>('counterparty_pubkey_hash', 'text', (r) => r.contactHash),
    col<R>('currency', 'text', (r) => r.currency),
    ...amountColumns<R>('amount', (r) => r.amount),
    col<R>('description', 'text', (r) => displayDescription(r.description)),
  ];
  if (view === 'slim') return slim;
  return [
    ...slim,
    col<R>('requester_pubkey_hash', 'text', (r) => r.requesterHash),
    col<R>('recipient_pubkey_hash', 'text', (r) => r.recipientHash),
    col<R>('requester_address', 'text', (r) => r.requesterAddress),
    col<R>('expires_at', 'date', (r) => exportDate(r.expiresAt)),
    col<R>('responded_at', 'date', (r) => exportDate(r.respondedAt)),
    col<R>('resulting_txid', 'text', (r) => r.resultingTxid),
    // A request travels in a signed envelope that is not kept: there is no signed payload of its own to show.
    col<R>('signed_message_content', 'verbatim', () => null),
    col<R>('stored_contact_name', 'text', (r) => r.storedContactName),
    col<R>('source_table', 'text', (r) => r.source),
  ];
}

export function contactColumns(view: View): Column<ExportedContact>[] {
  type R = ExportedContact;
  const slim: Column<R>[] = [
    col<R>('name', 'text', (r) => r.name),
    col<R>('pubkey_hash', 'text', (r) => r.pubkeyHash),
    col<R>('status', 'text', (r) => r.status),
    col<R>('online_status', 'text', (r) => r.onlineStatus),
    col<R>('created_at_utc', 'date', (r) => exportDateOf(r.createdAt)),
    col<R>('last_ping_at_utc', 'date', (r) => exportDateOf(r.lastPingAt)),
  ];
  if (view === 'slim') return slim;
  return [
    ...slim,
    col<R>('tor_address', 'text', (r) => r.addresses.tor),
    col<R>('https_address', 'text', (r) => r.addresses.https),
    col<R>('http_address', 'text', (r) => r.addresses.http),
    col<R>('valid_chain', 'bool', (r) => r.chainValid),
    // The contacts plugin does not keep the version a contact's node reports (yet): empty, like an unknown value.
    col<R>('remote_version', 'text', () => null),
    col<R>('contact_id', 'int', (r) => r.id),
    col<R>('pubkey', 'token', (r) => r.pubkey),
  ];
}

export function balanceColumns(view: View): Column<BalanceRow>[] {
  type R = BalanceRow;
  const net = (r: R): Minor => r.received - r.sent;
  const slim: Column<R>[] = [
    col<R>('currency', 'text', (r) => r.currency),
    col<R>('contact_name', 'text', (r) => r.contactName),
    col<R>('contact_pubkey_hash', 'text', (r) => r.contactHash),
    col<R>('received_decimal', 'decimal', (r) => formatMinorFixed(r.received)),
    col<R>('sent_decimal', 'decimal', (r) => formatMinorFixed(r.sent)),
    col<R>('net_decimal', 'decimal', (r) => formatMinorFixed(net(r))),
  ];
  if (view === 'slim') return slim;
  const [, receivedWhole, receivedFrac] = amountColumns<R>('received', (r) => r.received);
  const [, sentWhole, sentFrac] = amountColumns<R>('sent', (r) => r.sent);
  const [, netWhole, netFrac] = amountColumns<R>('net', net);
  return [...slim, receivedWhole!, receivedFrac!, sentWhole!, sentFrac!, netWhole!, netFrac!];
}
