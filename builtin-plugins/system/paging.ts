import type { CliApi, CliQuery } from '../../sdk/cli.js';

/**
 * Paging of Document 1 ("Common query parameters") shared by the list routes of the admin plugins (API keys,
 * plugins) and their node-cli commands. It lives beside the system plugin's api.ts: other plugins import it like
 * that module, as plain code (it reads nothing of the system plugin).
 */

/**
 * Node side, for list routes that hold their whole list in memory: `limit` (default 50, at most 100) and `offset`
 * (default 0). Declare `query: PAGE_QUERY` on the route (a limit below 1, a negative offset or a non-integer
 * answers 400 validation_error) and cut with `pageOf`.
 */
export const PAGE_QUERY = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1 }, offset: { type: 'integer', minimum: 0 } },
} as const;

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

export interface PageQuery {
  limit?: number;
  offset?: number;
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

export function pageOf<T>(rows: readonly T[], query: PageQuery): Page<T> {
  const limit = Math.min(query.limit ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT);
  const offset = query.offset ?? 0;
  const page = rows.slice(offset, offset + limit);
  return { rows: page, count: page.length, total: rows.length, limit, offset };
}

/**
 * node-cli side: every row of a paged list route, fetched 100 at a time. `rows` are the rows of every page (found
 * under `data[field]`); `data` is the last page's `data`, for the route's other fields.
 */
export async function allPages<T>(
  api: CliApi,
  path: string,
  field: string,
  query: CliQuery = {},
): Promise<{ rows: T[]; data: Record<string, unknown> }> {
  const rows: T[] = [];
  for (;;) {
    const data = await api.get<Record<string, unknown>>(path, { ...query, limit: MAX_PAGE_LIMIT, offset: rows.length });
    const page = Array.isArray(data[field]) ? (data[field] as T[]) : [];
    rows.push(...page);
    const total = typeof data.total === 'number' ? data.total : rows.length;
    if (page.length === 0 || rows.length >= total) return { rows, data };
  }
}
