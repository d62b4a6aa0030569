import type { CliApi, CliQuery } from './cli.js';
import { MAX_PAGE_LIMIT } from './paging.js';

/**
 * The node-cli side of Document 1's paging (the node side is `paging.ts`), for the list commands of plugins.
 *
 * `allPages`: every row of a paged list route, fetched 100 at a time. `rows` are the rows of every page (found
 * under `data[field]`); `data` is the last page's `data`, for the route's other fields.
 */
export async function allPages<T, D extends Record<string, unknown> = Record<string, unknown>>(
  api: Pick<CliApi, 'get'>,
  path: string,
  field: string,
  query: CliQuery = {},
): Promise<{ rows: T[]; data: D }> {
  const rows: T[] = [];
  for (;;) {
    const data = await api.get<D>(path, { ...query, limit: MAX_PAGE_LIMIT, offset: rows.length });
    const page = Array.isArray(data[field]) ? (data[field] as T[]) : [];
    rows.push(...page);
    const total = typeof data.total === 'number' ? data.total : rows.length;
    if (page.length === 0 || rows.length >= total) return { rows, data };
  }
}
