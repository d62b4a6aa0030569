/**
 * The four `GET /api/v1/export/*` routes of Document 1 (scope wallet:read). Each answers with a body streamed as the
 * client reads it; errors found before the first byte get the ordinary error envelope, a failure after it ends the
 * body with the sentinel line (Document 1, "Mid-stream error contract").
 */
import { ApiError, RawReply, type PluginContext, type RouteRequest } from '../../sdk/index.js';
import { exportFileName, prepareExport, slug, type Services } from './core.js';
import { parseQuery, querySchema, type Entity } from './query.js';
import { ExportStream } from './stream.js';

export const ENTITIES: readonly Entity[] = ['transactions', 'payment_requests', 'contacts', 'balances'];

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/x-ndjson' } as const;

const describe = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

export function registerExportRoutes(ctx: PluginContext, services: Services): void {
  const handle = (entity: Entity, req: RouteRequest): RawReply => {
    const q = parseQuery(entity, req.query);
    const { rows, encoder } = prepareExport(entity, q, services);
    // The first row is read before the status is committed: a source that cannot be read at all is a plain 500.
    let first: IteratorResult<unknown>;
    try {
      first = rows.next();
    } catch (err) {
      ctx.log.error('an export could not start', { request_id: req.requestId, entity, error: describe(err) });
      throw new ApiError('internal_error', 500, 'The export could not be read');
    }
    const body = new ExportStream(first, rows, encoder, (err, written) => {
      ctx.log.error('an export broke off', { request_id: req.requestId, entity, rows_written: written, error: describe(err) });
      return `export interrupted after ${written} rows by an internal error (request ${req.requestId}); this file is incomplete`;
    });
    const contact = q.contactHash ? slug(services.contacts.get(q.contactHash)?.name ?? '') || q.contactHash.slice(0, 12) : null;
    const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
    const file = exportFileName(entity, contact, ctx.identity.pubkeyHash.slice(0, 8), date, q.format);
    return new RawReply(body, CONTENT_TYPES[q.format], 200, {
      'Content-Disposition': `attachment; filename="${file}"`,
      'X-Node-Export-View': q.view,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  };

  for (const entity of ENTITIES) {
    ctx.routes.add({
      method: 'GET',
      path: `/api/v1/export/${entity}`,
      access: { scope: 'wallet:read' },
      query: querySchema(entity),
      produces: Object.values(CONTENT_TYPES),
      handler: (req) => handle(entity, req),
    });
  }
}
