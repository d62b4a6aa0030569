/**
 * JSON shapes of the contact resources (Document 1, "Contact" and "Contact currency row"), with our additions
 * documented in docs/api/contacts.md. Amounts are trimmed decimal strings; fee_percent is a JSON number.
 */
import { formatMinor, type Minor } from '../../sdk/money.js';
import { amountSchema, arrayOf, booleanSchema, integerSchema, nullable, numberSchema, objectOf, optional, stringSchema } from '../../sdk/schema.js';
import type { JsonSchema } from '../../sdk/index.js';
import type { ContactRow, CurrencyRow } from './store.js';

export const fmt = (v: Minor | null): string | null => (v === null ? null : formatMinor(v));
const feeNumber = (v: string | null): number | null => (v === null ? null : Number(v));

export const addressesOf = (c: ContactRow): { http: string | null; https: string | null; tor: string | null } => ({
  http: c.addr_http,
  https: c.addr_https,
  tor: c.addr_tor,
});

/** The address shown as "the" address of a contact in messages: tor, then https, then http. */
export const primaryAddress = (c: ContactRow): string | null => c.addr_tor ?? c.addr_https ?? c.addr_http;

/** The currency that contact-level fields (my_available_credit, balance) describe: the first accepted line, else the first pending one. */
export function primaryRow(rows: readonly CurrencyRow[]): CurrencyRow | null {
  return rows.find((r) => r.status === 'accepted') ?? rows.find((r) => r.status === 'pending') ?? null;
}

/** The per-currency numbers of a row; `requested_minimum` only on outgoing rows whose minimum was enforced. */
export function currencyView(row: CurrencyRow): Record<string, unknown> {
  return {
    currency: row.currency,
    fee_percent: feeNumber(row.fee_percent),
    credit_limit: fmt(row.credit_limit),
    status: row.status,
    direction: row.direction,
    requested_minimum: row.direction === 'outgoing' && row.requested_enforced ? fmt(row.requested_credit) : null,
    requested_min_unmet: row.requested_min_unmet,
    requested_credit_limit: fmt(row.requested_credit),
    requested_credit_enforced: row.requested_enforced,
    my_available_credit: fmt(row.my_available_credit),
    peer_credit_limit: fmt(row.peer_extends),
    chain_valid: row.chain_valid,
    ...(row.status === 'declined' ? { decline_reason: row.decline_reason } : {}),
    ...(row.warning ? { warning: row.warning } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A contact as listed: declined rows are left out of `currencies` (the currency listing shows them). */
export function contactView(c: ContactRow, rows: readonly CurrencyRow[]): Record<string, unknown> {
  const live = rows.filter((r) => r.status !== 'declined');
  const primary = primaryRow(live);
  return {
    name: c.name,
    pubkey_hash: c.pubkey_hash,
    status: c.status,
    currencies: live.map(currencyView),
    my_available_credit: primary && primary.status === 'accepted' ? fmt(primary.my_available_credit) : null,
    addresses: addressesOf(c),
    online_status: c.online_status,
    last_ping_at: c.last_ping_at,
    chain_valid: c.chain_valid,
    created_at: c.created_at,
  };
}

/** A search hit: the fields of Document 1 (name, pubkey_hash, status, addresses, my_available_credit). */
export function searchView(c: ContactRow, rows: readonly CurrencyRow[]): Record<string, unknown> {
  const primary = primaryRow(rows.filter((r) => r.status !== 'declined'));
  return {
    name: c.name,
    pubkey_hash: c.pubkey_hash,
    status: c.status,
    addresses: addressesOf(c),
    my_available_credit: primary && primary.status === 'accepted' ? fmt(primary.my_available_credit) : null,
  };
}

/** An entry of GET /contacts/pending: the contact and its pending rows in one direction. */
export function pendingView(c: ContactRow, rows: readonly CurrencyRow[], direction: 'incoming' | 'outgoing'): Record<string, unknown> {
  const pending = rows.filter((r) => r.status === 'pending' && r.direction === direction);
  return {
    pubkey_hash: c.pubkey_hash,
    name: c.name,
    ...(direction === 'incoming' ? { suggested_name: c.suggested_name } : {}),
    status: c.status,
    is_new_contact: c.status !== 'accepted',
    restored: c.restored,
    addresses: addressesOf(c),
    created_at: c.created_at,
    currencies: pending.map((r) =>
      direction === 'incoming'
        ? {
            currency: r.currency,
            requested_credit_limit: fmt(r.requested_credit),
            requested_credit_enforced: r.requested_enforced,
            description: r.description,
            warning: r.warning,
            requested_at: r.updated_at,
          }
        : {
            currency: r.currency,
            fee_percent: feeNumber(r.fee_percent),
            credit_limit: fmt(r.credit_limit),
            requested_credit_limit: fmt(r.requested_credit),
            requested_credit_enforced: r.requested_enforced,
            requested_minimum: r.requested_enforced ? fmt(r.requested_credit) : null,
            delivered: r.request_delivered,
            description: r.description,
            requested_at: r.updated_at,
          },
    ),
  };
}

/** A row of GET /contacts/:hash/currencies (Document 1 shape plus the request fields); pending incoming rows omit fee and credit. */
export function currencyListView(row: CurrencyRow): Record<string, unknown> {
  const base: Record<string, unknown> = { currency: row.currency, status: row.status, direction: row.direction };
  if (!(row.status === 'pending' && row.direction === 'incoming') && row.fee_percent !== null) {
    base.fee_percent = feeNumber(row.fee_percent);
    base.credit_limit = fmt(row.credit_limit);
  }
  if (row.requested_credit !== null) {
    base.requested_credit_limit = fmt(row.requested_credit);
    base.requested_credit_enforced = row.requested_enforced;
  }
  if (row.status === 'declined') base.decline_reason = row.decline_reason;
  if (row.warning) base.warning = row.warning;
  base.my_available_credit = fmt(row.my_available_credit);
  return base;
}

// ---- The answers of the contact routes, as JSON schemas (`RouteDefinition.response`)

const hash = nullable({ type: 'string', pattern: '^[0-9a-f]{64}$' });
const amountOrNull = nullable(amountSchema);
const addressesSchema = objectOf({ http: nullable(stringSchema), https: nullable(stringSchema), tor: nullable(stringSchema) });
const currencySchema = objectOf({
  currency: stringSchema,
  fee_percent: nullable(numberSchema),
  credit_limit: amountOrNull,
  status: stringSchema,
  direction: stringSchema,
  requested_minimum: amountOrNull,
  requested_min_unmet: booleanSchema,
  requested_credit_limit: amountOrNull,
  requested_credit_enforced: booleanSchema,
  my_available_credit: amountOrNull,
  peer_credit_limit: amountOrNull,
  chain_valid: nullable(booleanSchema),
  decline_reason: optional(nullable(stringSchema)),
  warning: optional(stringSchema),
  created_at: stringSchema,
  updated_at: stringSchema,
});
const contactFields = {
  name: nullable(stringSchema),
  pubkey_hash: hash,
  status: stringSchema,
  my_available_credit: amountOrNull,
  addresses: addressesSchema,
};
const contactSchema = objectOf({
  ...contactFields,
  currencies: arrayOf(currencySchema),
  online_status: nullable(stringSchema),
  last_ping_at: nullable(stringSchema),
  chain_valid: nullable(booleanSchema),
  created_at: stringSchema,
});
const balanceSchema = objectOf({ received: amountSchema, sent: amountSchema, net: amountSchema });

export const contactListResponse = objectOf({ contacts: arrayOf(contactSchema), count: integerSchema, total: integerSchema, limit: integerSchema, offset: integerSchema });
export const contactSearchResponse = objectOf({ search_term: stringSchema, contacts: arrayOf(objectOf(contactFields)), count: integerSchema, total: integerSchema });
export const contactResponse = objectOf({
  contact: {
    allOf: [
      contactSchema,
      objectOf({
        currencies: arrayOf({ allOf: [currencySchema, objectOf({ balance: balanceSchema })] }),
        balance: { allOf: [balanceSchema, objectOf({ currency: nullable(stringSchema) })] },
        restored: booleanSchema,
        last_seen_at: nullable(stringSchema),
        suggested_name: nullable(stringSchema),
      }),
    ],
  },
});
const requestedLine = { currency: stringSchema, requested_credit_limit: amountOrNull, requested_credit_enforced: booleanSchema, description: nullable(stringSchema), requested_at: stringSchema };
/** A contact in a pending listing, with the lines asked for in the listing's direction (pendingView). */
const pendingEntry = (line: JsonSchema): JsonSchema =>
  objectOf({
    pubkey_hash: hash,
    name: nullable(stringSchema),
    suggested_name: optional(nullable(stringSchema)),
    status: stringSchema,
    is_new_contact: booleanSchema,
    restored: booleanSchema,
    addresses: addressesSchema,
    created_at: stringSchema,
    currencies: arrayOf(line),
  });
export const pendingResponse = objectOf({
  pending: objectOf({
    incoming: arrayOf(pendingEntry(objectOf({ ...requestedLine, warning: nullable(stringSchema) }))),
    outgoing: arrayOf(
      pendingEntry(objectOf({ ...requestedLine, fee_percent: nullable(numberSchema), credit_limit: amountOrNull, requested_minimum: amountOrNull, delivered: booleanSchema })),
    ),
  }),
  counts: objectOf({ incoming: integerSchema, outgoing: integerSchema, total: integerSchema }),
  limit: integerSchema,
  offset: integerSchema,
});

const messageFields = { message: stringSchema };
/** `notice: not_delivered` and its reason, when a decline recorded here cannot reach the contact. */
const noticeFields = { notice: optional({ const: 'not_delivered' }), notice_reason: optional(stringSchema) };
const decisionErrorSchema = objectOf({ currency: nullable(stringSchema), code: stringSchema, message: stringSchema });
const codes = arrayOf(stringSchema);

export const contactCreatedResponse = objectOf({ ...messageFields, status: { enum: ['pending', 'accepted'] }, address: stringSchema, name: stringSchema });
export const pingResponse = objectOf({
  contact_name: nullable(stringSchema),
  online_status: { enum: ['online', 'offline'] },
  chain_valid: booleanSchema,
  ...messageFields,
  my_available_credit: { type: 'object', additionalProperties: amountOrNull },
});
export const contactUpdatedResponse = objectOf({
  ...messageFields,
  updated: objectOf({ address: nullable(stringSchema), name: nullable(stringSchema), fee_percent: nullable(numberSchema), credit_limit: amountOrNull, currency: nullable(stringSchema) }),
});
/** DELETE, block and unblock (unblock also says the status the contact is back in). */
export const contactActionResponse = objectOf({ ...messageFields, address: nullable(stringSchema), status: optional(stringSchema) });
export const decisionsResponse = objectOf({ accepted: codes, declined: codes, deferred: optional(codes), errors: arrayOf(decisionErrorSchema), ...noticeFields });
export const declineResponse = objectOf({ ...messageFields, declined: codes, ...noticeFields });
export const currencyListResponse = objectOf({
  pubkey_hash: hash,
  currencies: arrayOf(
    objectOf({
      currency: stringSchema,
      status: { enum: ['pending', 'accepted', 'declined'] },
      direction: { enum: ['incoming', 'outgoing'] },
      fee_percent: optional(numberSchema),
      credit_limit: optional(amountOrNull),
      requested_credit_limit: optional(amountOrNull),
      requested_credit_enforced: optional(booleanSchema),
      decline_reason: optional(nullable(stringSchema)),
      warning: optional(stringSchema),
      my_available_credit: amountOrNull,
    }),
  ),
});
/** POST currencies (with the row's status), currency-decline and currency-remove. */
export const currencyActionResponse = objectOf({ ...messageFields, currency: stringSchema, status: optional(stringSchema), ...noticeFields });
