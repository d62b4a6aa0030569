import { ApiError, type DeadLetterStatus, type PluginContext } from '../../sdk/index.js';
import { arrayOf, booleanSchema, integerSchema, nullable, objectOf, stringSchema } from '../../sdk/schema.js';

const STATUSES: readonly DeadLetterStatus[] = ['pending', 'retrying', 'resolved', 'abandoned'];
const DEFAULT_STATUSES: readonly DeadLetterStatus[] = ['pending', 'retrying'];

/** `?status=pending,retrying` (comma-separated), `all`, or absent (pending + retrying). */
export function parseStatuses(raw: unknown): readonly DeadLetterStatus[] {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_STATUSES;
  const parts = String(raw)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (parts.includes('all')) return STATUSES;
  const bad = parts.filter((p) => !STATUSES.includes(p as DeadLetterStatus));
  if (bad.length || parts.length === 0) {
    throw new ApiError('invalid_status', 400, `status must be one or more of ${STATUSES.join(', ')} (comma-separated), or all`, { field: 'status' });
  }
  return [...new Set(parts)] as DeadLetterStatus[];
}

const STATUS = { type: 'string', enum: STATUSES };
/** A dead letter as every route shows it (DeadLetterItem). */
const itemSchema = objectOf({
  id: integerSchema,
  message_id: stringSchema,
  message_type: stringSchema,
  status: STATUS,
  retry_count: integerSchema,
  recipient_address: nullable(stringSchema),
  failure_reason: nullable(stringSchema),
  added_at: stringSchema,
  updated_at: stringSchema,
  retryable: booleanSchema,
});
const listResponse = objectOf({ items: arrayOf(itemSchema), count: integerSchema, statuses: arrayOf(STATUS), pending_count: integerSchema });
const itemResponse = objectOf({ item: itemSchema });
const actedResponse = objectOf({ message: stringSchema, item: itemSchema });

function itemId(raw: string | undefined): number {
  if (!raw || !/^\d{1,15}$/.test(raw)) throw new ApiError('invalid_id', 400, 'The dead letter id must be a positive integer');
  return Number(raw);
}

export function registerDlqRoutes(ctx: PluginContext): void {
  const dlq = ctx.kernel.dlq;

  ctx.routes.add<unknown, Record<string, unknown>>({
    method: 'GET',
    path: '/api/v1/system/dlq',
    access: { scope: 'system:read' },
    response: listResponse,
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
    response: itemResponse,
    handler: (req) => {
      const id = itemId(req.params.id);
      const item = dlq.get(id);
      if (!item) throw new ApiError('dlq_item_not_found', 404, `No dead letter with id ${id}`);
      return { item };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/system/dlq/:id/retry',
    access: { scope: 'system:write' },
    response: actedResponse,
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
    response: actedResponse,
    handler: (req) => {
      const id = itemId(req.params.id);
      const item = dlq.abandon(id);
      ctx.log.info('dead letter abandoned', { id, by: req.auth?.keyId });
      return { message: `Dead letter ${id} abandoned`, item };
    },
  });
}
