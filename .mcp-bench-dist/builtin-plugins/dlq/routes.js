import { ApiError } from '../../sdk/index.js';
const STATUSES = ['pending', 'retrying', 'resolved', 'abandoned'];
const DEFAULT_STATUSES = ['pending', 'retrying'];
/** `?status=pending,retrying` (comma-separated), `all`, or absent (pending + retrying). */
export function parseStatuses(raw) {
    if (raw === undefined || raw === null || raw === '')
        return DEFAULT_STATUSES;
    const parts = String(raw)
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    if (parts.includes('all'))
        return STATUSES;
    const bad = parts.filter((p) => !STATUSES.includes(p));
    if (bad.length || parts.length === 0) {
        throw new ApiError('invalid_status', 400, `status must be one or more of ${STATUSES.join(', ')} (comma-separated), or all`, { field: 'status' });
    }
    return [...new Set(parts)];
}
function itemId(raw) {
    if (!raw || !/^\d{1,15}$/.test(raw))
        throw new ApiError('invalid_id', 400, 'The dead letter id must be a positive integer');
    return Number(raw);
}
export function registerDlqRoutes(ctx) {
    const dlq = ctx.kernel.dlq;
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/system/dlq',
        access: { scope: 'system:read' },
        query: { type: 'object', properties: { status: { type: 'string' } } },
        handler: (req) => {
            const statuses = parseStatuses(req.query.status);
            const items = dlq.list(statuses);
            return { items, count: items.length, statuses, pending_count: dlq.pendingCount() };
        },
    });
    ctx.routes.add({
        method: 'GET',
        path: '/api/v1/system/dlq/:id',
        access: { scope: 'system:read' },
        handler: (req) => {
            const id = itemId(req.params.id);
            const item = dlq.get(id);
            if (!item)
                throw new ApiError('dlq_item_not_found', 404, `No dead letter with id ${id}`);
            return { item };
        },
    });
    ctx.routes.add({
        method: 'POST',
        path: '/api/v1/system/dlq/:id/retry',
        access: { scope: 'system:write' },
        handler: async (req) => {
            const id = itemId(req.params.id);
            const item = await dlq.retry(id);
            ctx.log.info('dead letter retried', { id, status: item.status, by: req.auth?.keyId });
            const refused = item.failure_reason?.startsWith('refused:') ?? false;
            return {
                message: refused ? `Dead letter ${id} reached the peer, which refused it (${item.failure_reason})` : `Dead letter ${id} delivered`,
                item,
            };
        },
    });
    ctx.routes.add({
        method: 'POST',
        path: '/api/v1/system/dlq/:id/abandon',
        access: { scope: 'system:write' },
        handler: (req) => {
            const id = itemId(req.params.id);
            const item = dlq.abandon(id);
            ctx.log.info('dead letter abandoned', { id, by: req.auth?.keyId });
            return { message: `Dead letter ${id} abandoned`, item };
        },
    });
}
//# sourceMappingURL=routes.js.map