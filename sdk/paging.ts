/**
 * Paging of Document 1 ("Common query parameters"): `limit` (default 50; each route caps it, 100 unless it says
 * otherwise; a larger value is cut to the cap) and `offset` (default 0). Every list route declares its query with
 * `pageQuery` and reads the page with `pageParams` (or cuts an in-memory list with `pageOf`), so the bounds live here.
 *
 * Bounds: `limit` from 1 and `offset` from 0, both at most `MAX_PAGE_PARAM`, integers. Anything else (a negative or
 * fractional value, text, `offset=9223372036854775807`, `limit=1e30`) is refused before the handler with 400
 * `validation_error`, never passed on to the database. Exponent notation that names an integer in range is read as
 * that integer (`limit=1e2` is 100), as amounts read it.
 */
import type { JsonSchema } from './routes.js';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
/** The largest integer a double holds exactly: past it, `offset=9007199254740993` would silently become ...992. */
export const MAX_PAGE_PARAM = Number.MAX_SAFE_INTEGER;

export interface PageQuery {
  limit?: number;
  offset?: number;
}

export interface PageParams {
  limit: number;
  offset: number;
}

/** The schema of `limit` and `offset`, beside the route's other query parameters. */
export function pageQuery(others: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_PARAM },
      offset: { type: 'integer', minimum: 0, maximum: MAX_PAGE_PARAM },
      ...others,
    },
  };
}

/** The page a validated query asks for: defaults applied, `limit` cut to the route's cap. */
export function pageParams(query: PageQuery, cap = MAX_PAGE_LIMIT, defaultLimit = DEFAULT_PAGE_LIMIT): PageParams {
  return { limit: Math.min(query.limit ?? defaultLimit, cap), offset: query.offset ?? 0 };
}

export interface Page<T> {
  rows: T[];
  /** Rows returned. */
  count: number;
  /** Rows in the whole list. */
  total: number;
  limit: number;
  offset: number;
}

/** One page of a list held whole in memory. */
export function pageOf<T>(rows: readonly T[], query: PageQuery, cap = MAX_PAGE_LIMIT): Page<T> {
  const { limit, offset } = pageParams(query, cap);
  const page = rows.slice(offset, offset + limit);
  return { rows: page, count: page.length, total: rows.length, limit, offset };
}
