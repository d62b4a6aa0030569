import type { JsonSchema, RouteDefinition } from '../../sdk/index.js';
import type { MountedRoute } from './route-table.js';

/**
 * The OpenAPI 3.1 document of the routes a node serves now, built from the route table (its plugins' routes
 * included), so that it cannot drift from the code: each route's path parameters, query and body schemas, the schema
 * of its success envelope's `data`, its scope and the error envelope. Served at `GET /api/v1/openapi.json` without a
 * key (it holds no secret) and kept in docs/api/openapi.json (`npm run openapi`; a test compares the two).
 */

const HMAC_RULE =
  'Every request carries X-API-Key (the key id), X-API-Timestamp (Unix seconds, within 300 s of the node clock), ' +
  'X-API-Nonce (8-64 characters, never reused) and X-API-Signature: lowercase hex HMAC-SHA256, keyed with the ' +
  "key's secret, of the uppercase method, the request path as sent (no origin, no query string), the timestamp, the " +
  'nonce and the exact body bytes (empty for GET), joined by a single LF with no trailing LF. The secret is never sent.';

const SIGNATURE_HEADERS = ['X-API-Timestamp', 'X-API-Nonce', 'X-API-Signature'];

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['success', 'error', 'timestamp', 'request_id'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      additionalProperties: true,
    },
    data: { type: 'null' },
    status_code: { type: 'integer' },
    timestamp: { type: 'string', format: 'date-time' },
    request_id: { type: 'string' },
  },
};

/** What `/healthz` answers (db/storage-health.ts): ok, or degraded by a storage fault since a time. */
const HEALTH: JsonSchema = {
  oneOf: [
    { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    {
      type: 'object',
      required: ['status', 'reason', 'since'],
      properties: { status: { const: 'degraded' }, reason: { enum: ['disk full', 'read-only file system', 'I/O error'] }, since: { type: 'string', format: 'date-time' } },
    },
  ],
};

/** The success envelope around a route's `data`. */
export function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'data', 'timestamp', 'request_id'],
    properties: {
      success: { const: true },
      data,
      message: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
      request_id: { type: 'string' },
    },
  };
}

/** `/keys/:key_id` → `/keys/{key_id}`, and the names of its parameters. */
function templated(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

function queryParameters(def: RouteDefinition): Record<string, unknown>[] {
  const schema = def.query as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  return Object.entries(schema?.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema?.required?.includes(name) ?? false,
    schema: s,
  }));
}

function operation(route: MountedRoute): Record<string, unknown> {
  const { def, owner } = route;
  const { params } = templated(route.fullPath);
  const scoped = 'scope' in def.access;
  const scopes = scoped ? ([] as string[]).concat((def.access as { scope: string | readonly string[] }).scope) : [];
  // A route that answers a RawReply names its content types; none means an empty body (a 204).
  const raw = def.produces === undefined ? null : ([] as string[]).concat(def.produces);
  const success = raw
    ? raw.length ? { content: Object.fromEntries(raw.map((type) => [type, { schema: {} }])) } : {}
    : { content: { 'application/json': { schema: successEnvelope(def.response ?? {}) } } };
  return {
    operationId: `${def.method.toLowerCase()} ${route.fullPath}`,
    tags: [owner],
    ...(scoped ? { security: [{ hmac: scopes }], description: `Scope: ${scopes.join(' or ')}.` } : { security: [] }),
    ...(def.confirm ? { 'x-confirm': 'A GUI session needs a fresh confirmation (403 confirmation_required)' } : {}),
    parameters: [
      ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...queryParameters(def),
      ...(scoped ? SIGNATURE_HEADERS.map((name) => ({ $ref: `#/components/parameters/${name}` })) : []),
    ],
    ...(def.body ? { requestBody: { required: false, content: { 'application/json': { schema: def.body } } } } : {}),
    responses: {
      '2XX': { description: 'Success', ...success },
      default: { $ref: '#/components/responses/Error' },
    },
  };
}

export function openApiDocument(routes: readonly MountedRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes].sort((a, b) => (a.fullPath === b.fullPath ? a.def.method.localeCompare(b.def.method) : a.fullPath.localeCompare(b.fullPath)));
  for (const route of sorted) {
    const { path } = templated(route.fullPath);
    (paths[path] ??= {})[route.def.method.toLowerCase()] = operation(route);
  }
  // The two routes the HTTP pipeline answers itself, before the route table.
  paths['/healthz'] = { get: { operationId: 'get /healthz', tags: ['kernel'], security: [], responses: { '200': { description: 'The node serves', content: { 'application/json': { schema: successEnvelope(HEALTH) } } } } } };
  paths['/api/v1/openapi.json'] = { get: { operationId: 'get /api/v1/openapi.json', tags: ['kernel'], security: [], responses: { '200': { description: 'This document', content: { 'application/json': { schema: { type: 'object' } } } } } } };
  return {
    openapi: '3.1.0',
    info: {
      title: 'wallet-node REST API',
      version,
      description: 'The REST API of a wallet node (Document 1), its plugins\' routes and their public routes. Generated from the route table.',
    },
    components: {
      parameters: Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, { name, in: 'header', required: true, schema: { type: 'string' } }])),
      responses: { Error: { description: 'The error envelope (Document 1, "Errors")', content: { 'application/json': { schema: ERROR_ENVELOPE } } } },
      securitySchemes: {
        hmac: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: HMAC_RULE },
      },
    },
    paths,
  };
}
