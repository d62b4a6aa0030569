import { MAX_PAGE_LIMIT } from '../../sdk/paging.js';
/**
 * The node-cli side of Document 1's paging (the node side is `sdk/paging.ts`), shared by the list commands of the
 * admin plugins (API keys, plugins). It lives beside the system plugin's api.ts: other plugins import it like that
 * module, as plain code (it reads nothing of the system plugin).
 *
 * `allPages`: every row of a paged list route, fetched 100 at a time. `rows` are the rows of every page (found
 * under `data[field]`); `data` is the last page's `data`, for the route's other fields.
 */
export async function allPages(api, path, field, query = {}) {
    const rows = [];
    for (;;) {
        const data = await api.get(path, { ...query, limit: MAX_PAGE_LIMIT, offset: rows.length });
        const page = Array.isArray(data[field]) ? data[field] : [];
        rows.push(...page);
        const total = typeof data.total === 'number' ? data.total : rows.length;
        if (page.length === 0 || rows.length >= total)
            return { rows, data };
    }
}
//# sourceMappingURL=paging.js.map