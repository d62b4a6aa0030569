export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
/** The largest integer a double holds exactly: past it, `offset=9007199254740993` would silently become ...992. */
export const MAX_PAGE_PARAM = Number.MAX_SAFE_INTEGER;
/** The schema of `limit` and `offset`, beside the route's other query parameters. */
export function pageQuery(others = {}) {
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
export function pageParams(query, cap = MAX_PAGE_LIMIT, defaultLimit = DEFAULT_PAGE_LIMIT) {
    return { limit: Math.min(query.limit ?? defaultLimit, cap), offset: query.offset ?? 0 };
}
/** One page of a list held whole in memory. */
export function pageOf(rows, query, cap = MAX_PAGE_LIMIT) {
    const { limit, offset } = pageParams(query, cap);
    const page = rows.slice(offset, offset + limit);
    return { rows: page, count: page.length, total: rows.length, limit, offset };
}
//# sourceMappingURL=paging.js.map