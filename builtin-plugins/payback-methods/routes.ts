/**
 * The /api/v1/payback-methods routes of Document 1, plus the rail catalog, payer payloads and the contact fetch
 * flow. Shapes, codes and decisions: docs/api/payback.md. Input is checked in the handlers (the kernel only
 * parses the JSON) so that every failing field, and a body that is not an object, is reported in the validation
 * envelope of convention 8; every other failure uses the ordinary error envelope.
 */
import { ApiError, created, type RouteDefinition, type RouteRequest } from '../../sdk/index.js';
import { pageOf, pageQuery, type PageQuery } from '../../sdk/paging.js';
import type { PaybackCore } from './core.js';
import type { FetchFlow } from './messages.js';
import { deletedResponse, listResponse, methodIdResponse, methodResponse, payloadResponse, revealedResponse, sharedResponse, sharePolicyResponse, typesResponse } from './schemas.js';
import { PaybackValidationError, isPlainObject, normalizeCurrency, validationReply } from './validate.js';

const READ = { scope: 'payback:read' } as const;
const WRITE = { scope: 'payback:write' } as const;
const BASE = '/api/v1/payback-methods';
const anyObject = { type: 'object' } as const;
/**
 * The create, update and share-policy bodies are parsed as JSON of any shape: one that is not an object is a
 * payback validation failure (convention 8, field `body`), not the kernel's ordinary schema error.
 */
const anyJson = {} as const;
/** 50 custom rows of 1024 characters, escaped, fit comfortably. */
const MAX_BODY = 512 * 1024;

type Body = Record<string, unknown>;
type Query = Record<string, string | undefined>;

/** The request body as an object, or a validation failure on `body`. */
function objectBody(body: unknown): Body {
  if (isPlainObject(body)) return body;
  throw new PaybackValidationError([{ field: 'body', code: 'invalid_type', message: 'the request body must be a JSON object' }]);
}

/** Answers a PaybackValidationError with the validation envelope; everything else goes to the kernel. */
function guarded<B, Q>(handler: (req: RouteRequest<B, Q>) => unknown): (req: RouteRequest<B, Q>) => Promise<unknown> {
  return async (req) => {
    try {
      return await handler(req);
    } catch (err) {
      if (err instanceof PaybackValidationError) return validationReply(err.errors, req.requestId);
      throw err;
    }
  };
}

function optionalCurrency(raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const code = typeof raw === 'string' ? normalizeCurrency(raw) : null;
  if (!code) throw new ApiError('invalid_currency', 400, 'currency must be 3 to 10 letters or digits', { field: 'currency' });
  return code;
}

export function registerRoutes(core: PaybackCore, flow: FetchFlow): void {
  const { ctx, registry } = core;
  const add = <B = unknown, Q = Query>(route: RouteDefinition<B, Q>): void =>
    ctx.routes.add<B, Q>({ ...route, handler: guarded(route.handler) });

  add<unknown, PageQuery & Record<string, unknown>>({
    method: 'GET',
    path: BASE,
    response: listResponse,
    access: READ,
    query: pageQuery(),
    handler: (req) => {
      const { rows, ...page } = pageOf(core.list(req.query).methods, req.query);
      return { methods: rows, ...page };
    },
  });

  add<unknown>({
    method: 'POST',
    path: BASE,
    response: methodIdResponse,
    access: WRITE,
    body: anyJson,
    maxBodyBytes: MAX_BODY,
    handler: (req) => created({ method_id: core.create(objectBody(req.body)) }),
  });

  add({
    method: 'GET',
    path: `${BASE}/types`,
    response: typesResponse,
    access: READ,
    handler: () => {
      const types = registry.catalog();
      return { types, count: types.length };
    },
  });

  // ---- one method. (Routes with the same number of parameters: the later registration wins a tie, so the
  // contact routes below are registered after these.)

  add({
    method: 'GET',
    path: `${BASE}/:id`,
    response: methodResponse,
    access: READ,
    handler: (req) => ({ method: core.view(core.row(req.params.id!)) }),
  });

  add({
    method: 'GET',
    path: `${BASE}/:id/reveal`,
    response: revealedResponse,
    access: WRITE,
    confirm: true,
    handler: (req) => ({ method: core.reveal(core.row(req.params.id!)) }),
  });

  add<unknown, Query>({
    method: 'GET',
    path: `${BASE}/:id/payload`,
    response: payloadResponse,
    access: WRITE,
    handler: (req) => {
      const row = core.row(req.params.id!);
      const payload = core.payload(row.type, row.currency, core.fieldsOf(row), req.query.amount || undefined);
      return { method_id: row.method_id, type: row.type, currency: row.currency, amount: req.query.amount || null, payload };
    },
  });

  add<unknown>({
    method: 'PUT',
    path: `${BASE}/:id`,
    response: methodIdResponse,
    access: WRITE,
    body: anyJson,
    maxBodyBytes: MAX_BODY,
    handler: (req) => {
      const row = core.row(req.params.id!);
      const body = objectBody(req.body);
      ctx.db.tx(() => core.update(row, body));
      return { method_id: row.method_id };
    },
  });

  add<unknown>({
    method: 'PUT',
    path: `${BASE}/:id/share-policy`,
    response: sharePolicyResponse,
    access: WRITE,
    body: anyJson,
    handler: (req) => {
      const row = core.row(req.params.id!);
      const policy = core.setSharePolicy(row, objectBody(req.body).share_policy);
      return { method_id: row.method_id, share_policy: policy };
    },
  });

  add({
    method: 'DELETE',
    path: `${BASE}/:id`,
    response: deletedResponse,
    access: WRITE,
    handler: (req) => {
      const row = core.row(req.params.id!);
      core.delete(row);
      return { method_id: row.method_id, deleted: true };
    },
  });

  // ---- methods contacts share with us

  add<Body, Query>({
    method: 'POST',
    path: `${BASE}/fetch/:contact`,
    response: sharedResponse,
    access: READ,
    body: anyObject,
    handler: async (req) => flow.fetch(req.params.contact ?? '', req.body.currency ?? req.query.currency),
  });

  add<unknown, Query>({
    method: 'GET',
    path: `${BASE}/contact/:contact`,
    response: sharedResponse,
    access: READ,
    handler: (req) => {
      const currency = optionalCurrency(req.query.currency);
      return flow.cached(flow.resolve(req.params.contact ?? ''), currency);
    },
  });

  add<unknown, Query>({
    method: 'GET',
    path: `${BASE}/contact/:contact/:method_id/payload`,
    response: payloadResponse,
    access: READ,
    handler: (req) => {
      const contact = flow.resolve(req.params.contact ?? '');
      const method = flow.cached(contact, null).methods.find((m) => m.method_id === req.params.method_id);
      if (!method) throw new ApiError('payback_method_not_found', 404, `${contact.name ?? 'This contact'} shared no method ${req.params.method_id}`);
      const payload = core.payload(method.type, method.currency, method.fields, req.query.amount || undefined);
      return { method_id: method.method_id, type: method.type, currency: method.currency, amount: req.query.amount || null, payload };
    },
  });
}
