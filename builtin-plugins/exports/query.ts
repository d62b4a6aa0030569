/**
 * The query string of the export routes (Document 1, "Exports"): `format`, `view`, and each entity's filters. A
 * parameter the route does not know is refused rather than ignored: a misspelt filter would otherwise hand the
 * operator every row while they believe they got a few.
 */
import { ApiError, type JsonSchema } from '../../sdk/index.js';
import { dayRange } from '../../sdk/dates.js';

export type Entity = 'transactions' | 'payment_requests' | 'contacts' | 'balances';
export type Format = 'csv' | 'json';
export type View = 'slim' | 'full';

export const TX_STATUSES = ['pending', 'sending', 'sent', 'accepted', 'rejected', 'cancelled', 'completed', 'failed'] as const;
export const TX_TYPES = ['sent', 'received', 'relay'] as const;
export const REQUEST_STATUSES = ['pending', 'sending', 'approved', 'failed', 'declined', 'cancelled', 'expired'] as const;
export const REQUEST_DIRECTIONS = ['incoming', 'outgoing'] as const;
export const CONTACT_STATUSES = ['accepted', 'pending', 'blocked'] as const;

/** The filters each entity takes besides `format` and `view`. */
export const FILTERS: Record<Entity, readonly string[]> = {
  transactions: ['contact_pubkey_hash', 'status', 'type', 'from', 'to'],
  payment_requests: ['contact_pubkey_hash', 'status', 'direction', 'from', 'to'],
  contacts: ['status'],
  balances: ['currency', 'contact_pubkey_hash'],
};

const STATUSES: Partial<Record<Entity, readonly string[]>> = {
  transactions: TX_STATUSES,
  payment_requests: REQUEST_STATUSES,
  contacts: CONTACT_STATUSES,
};

export interface ExportQuery {
  format: Format;
  view: View;
  contactHash?: string;
  status?: string;
  type?: string;
  direction?: string;
  /** Lower-cased: currencies match case-insensitively. */
  currency?: string;
  /** Start of the `from` day (UTC), ms. */
  from?: number;
  /** Start of the day after `to` (UTC), ms: the range is [from, to). */
  to?: number;
}

const parameters = (entity: Entity): string[] => ['format', 'view', ...FILTERS[entity]];

/** Every parameter a string: `parseQuery` reads the values, so each refusal names its field and what it takes. */
export function querySchema(entity: Entity): JsonSchema {
  return { type: 'object', properties: Object.fromEntries(parameters(entity).map((n) => [n, { type: 'string' }])) };
}

const invalid = (field: string, message: string, code = 'validation_error'): ApiError => new ApiError(code, 400, message, { field });

function oneOf<T extends string>(field: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase() as T;
  if (!allowed.includes(value)) throw invalid(field, `${field} must be one of ${allowed.join(', ')}`);
  return value;
}

export function parseQuery(entity: Entity, q: Record<string, string | undefined>): ExportQuery {
  const known = parameters(entity);
  for (const key of Object.keys(q)) {
    if (!known.includes(key)) throw invalid(key, `Unknown parameter ${key}: the ${entity} export takes ${known.join(', ')}`);
  }
  const out: ExportQuery = {
    format: oneOf('format', q.format, ['csv', 'json'] as const) ?? 'csv',
    view: oneOf('view', q.view, ['slim', 'full'] as const) ?? 'slim',
  };
  if (q.contact_pubkey_hash !== undefined) {
    const hash = q.contact_pubkey_hash.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) throw invalid('contact_pubkey_hash', 'contact_pubkey_hash must be a 64-character hex string', 'invalid_hash');
    out.contactHash = hash;
  }
  const status = oneOf('status', q.status, STATUSES[entity] ?? []);
  if (status) out.status = status;
  const type = oneOf('type', q.type, TX_TYPES);
  if (type) out.type = type;
  const direction = oneOf('direction', q.direction, REQUEST_DIRECTIONS);
  if (direction) out.direction = direction;
  if (q.currency !== undefined) {
    const code = q.currency.trim();
    if (!/^[A-Za-z0-9]{3,10}$/.test(code)) throw invalid('currency', 'currency must be 3-10 letters or digits', 'invalid_currency');
    out.currency = code.toLowerCase();
  }
  return { ...out, ...dayRange(q) };
}
