/**
 * The OpenAPI document (issue 29): served without a key at GET /api/v1/openapi.json, built from the route table
 * (plugins' routes included, sandboxed plugins' declared routes too), valid OpenAPI 3.1 by a maintained validator
 * (@apidevtools/swagger-parser), and equal to the committed docs/api/openapi.json (`npm run openapi` rewrites it).
 */
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinPlugin } from '../../kernel/plugins/host.js';
import { definePlugin } from '../../sdk/index.js';
import { arrayOf, integerSchema, objectOf, stringSchema } from '../../sdk/schema.js';
import { call } from '../support/api.js';
import { OPENAPI_FILE, servedDocument } from '../support/openapi.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { run, sandboxNode } from './sandbox-support.js';

/**
 * Enveloped routes allowed to answer without a response schema, each with its reason. Empty: every route of the node
 * and of its builtin plugins declares one (a sandboxed plugin's routes have none: their answers are the plugin's).
 */
const WITHOUT_RESPONSE_SCHEMA: string[] = [];

/** `{}` or a bare `{type: 'object'}`: a schema that checks nothing of an answer's fields. */
const looseSchema = (schema: Record<string, unknown>): boolean =>
  Object.keys(schema).length === 0 || (Object.keys(schema).length === 1 && schema.type === 'object');

let doc: any;
let sandboxed: TestNode;

beforeAll(async () => {
  doc = await servedDocument();
  const { t, author } = await sandboxNode();
  sandboxed = t;
  await run(t, author, 'hello');
}, 60_000);
afterAll(async () => {
  await sandboxed?.destroy();
});

describe('GET /api/v1/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const copy = structuredClone(doc);
    await expect(SwaggerParser.validate(copy)).resolves.toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('equals the committed docs/api/openapi.json (run npm run openapi after changing a route)', () => {
    expect(doc).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('describes every route: scopes as the HMAC scheme, path parameters, query and body schemas, the envelopes', () => {
    const keys = doc.paths['/api/v1/keys/{key_id}'].delete;
    expect(keys.security).toEqual([{ hmac: ['admin'] }]);
    expect(keys.parameters[0]).toEqual({ name: 'key_id', in: 'path', required: true, schema: { type: 'string' } });
    expect(doc.paths['/api/v1/keys'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(doc.paths['/api/v1/keys'].post['x-confirm']).toBeTruthy();
    expect(doc.components.securitySchemes.hmac.description).toMatch(/HMAC-SHA256.*joined by a single LF/);
    expect(doc.paths['/api/v1/plugins/mcp-passthrough/config'].get.tags).toEqual(['mcp-passthrough']);
    expect(doc.paths['/p/mcp-passthrough/mcp'].post.security).toEqual([]);
    expect(doc.paths['/healthz'].get).toBeTruthy();
    expect(doc.paths['/api/v1/payback-methods/{id}/reveal'].get['x-confirm']).toBeTruthy();
    expect(doc.paths['/api/v1/wallet/send'].post.responses.default).toEqual({ $ref: '#/components/responses/Error' });
  });

  it('gives every route a response schema for its data, or the content types of its raw answer (produces)', () => {
    const unschemed: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const envelope = (op.responses['2XX'] ?? op.responses['200']).content?.['application/json']?.schema;
        // Only enveloped answers carry `data`; a raw answer is described by its content types alone.
        if (!envelope?.properties?.success) continue;
        const data = envelope.properties.data;
        if (!data || looseSchema(data)) unschemed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(unschemed).toEqual(WITHOUT_RESPONSE_SCHEMA);
  });

  it('is readable without a key, and lists an enabled sandboxed plugin\'s routes', async () => {
    const res = await fetch(`${sandboxed.node.baseUrl}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const served = (await res.json()) as any;
    expect(served.paths['/api/v1/plugins/hello/notes/{key}'].put.security).toEqual([{ hmac: ['hello:write'] }]);
    expect(served.paths['/p/hello/greet'].get.security).toEqual([]);
    expect(served.paths['/p/mcp-passthrough/mcp']).toBeUndefined();
  });
});

/** A plugin whose one route answers outside the response schema it declares. */
const liar: BuiltinPlugin = {
  manifest: { name: 'liar', version: '0.0.1', enabled_by_default: true },
  definition: definePlugin({
    setup(ctx) {
      ctx.routes.plugin<unknown, { shape?: string }>({
        method: 'GET',
        path: 'answer',
        access: { scope: 'wallet:read' },
        response: objectOf({ name: stringSchema, parts: arrayOf(objectOf({ id: integerSchema })) }),
        handler: (req) =>
          req.query.shape === 'right'
            ? { name: 'ok', parts: [{ id: 1 }] }
            : req.query.shape === 'more'
              ? { name: 'ok', parts: [{ id: 1, note: 'a field the document leaves out' }] }
              : { name: 42, parts: [] },
      });
    },
  }),
};

describe('contract checks: answers against their route response schema', () => {
  it('a node in test mode answers 500 response_schema_mismatch for data outside the schema, so the test that caused it fails', async () => {
    const t = await startTestNode({ extraBuiltins: [liar] });
    try {
      expect((await call(t, 'GET', '/api/v1/plugins/liar/answer?shape=right')).status).toBe(200);
      const wrong = await call(t, 'GET', '/api/v1/plugins/liar/answer');
      expect([wrong.status, wrong.body.error.code]).toEqual([500, 'response_schema_mismatch']);
      expect(wrong.body.error.message).toContain('data/name must be string');
      // A field the schema does not name, however deep, is a mismatch too: the OpenAPI document says all a route sends.
      const more = await call(t, 'GET', '/api/v1/plugins/liar/answer?shape=more');
      expect([more.status, more.body.error.code]).toEqual([500, 'response_schema_mismatch']);
      expect(more.body.error.message).toContain('data/parts/0 has note, which the schema does not name');
    } finally {
      await t.destroy();
    }
  });

  it('a node started as users start it does not check: the answer goes out as it is', async () => {
    const t = await startTestNode({ extraBuiltins: [liar], env: { NODE_TEST_MODE: 'false' } });
    try {
      const wrong = await call(t, 'GET', '/api/v1/plugins/liar/answer');
      expect([wrong.status, wrong.body.data]).toEqual([200, { name: 42, parts: [] }]);
    } finally {
      await t.destroy();
    }
  });
});
