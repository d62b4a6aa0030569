/**
 * The client library's answer types (client/responses.ts) are made from the committed OpenAPI document, which
 * test/integration/openapi.test.ts holds to the code: `npm run openapi` writes both.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { NodeClient, type ResponseData, type ResponseRoute } from '../../client/index.js';
import { clientTypes, typeOf } from '../../scripts/client-types.js';
import { CLIENT_TYPES_FILE, OPENAPI_FILE } from '../support/openapi.js';

describe('client answer types', () => {
  it('equal what the committed OpenAPI document gives (run npm run openapi after changing a route)', () => {
    const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(clientTypes(doc));
  });

  it('type required, optional and nullable fields, maps, unions and routes that never succeed', () => {
    const schema = {
      type: 'object',
      required: ['id', 'note', 'tags', 'state'],
      properties: {
        id: { type: 'integer' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        tags: { type: 'array', items: { type: 'string' } },
        state: { enum: ['on', 'off'] },
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        'odd-name': { const: true },
      },
    };
    expect(typeOf(schema)).toBe(
      '{\n  id: number;\n  note: (string | null);\n  tags: Array<string>;\n  state: ("on" | "off");\n  counts?: {\n    [key: string]: number;\n  };\n  "odd-name"?: true;\n}',
    );
    expect(typeOf({ not: {} })).toBe('never');
    expect(typeOf({})).toBe('unknown');
    expect(typeOf({ allOf: [{ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, { anyOf: [{ type: 'string' }, { type: 'number' }] }] })).toBe(
      '({\n  a: string;\n} & (string | number))',
    );
  });

  // Compile-time assertions: `npm run typecheck` fails when a route's answer type loses or changes these fields.
  it('are what a script gets from the client library, typed per route', () => {
    const node = new NodeClient({ baseUrl: 'http://127.0.0.1:1', keyId: 'k', secret: 's' });
    const send = (): Promise<ResponseData['POST /api/v1/wallet/send']> => node.post('/api/v1/wallet/send', {});
    expectTypeOf(send).returns.resolves.toHaveProperty('txid').toEqualTypeOf<string | null>();
    expectTypeOf<ResponseData['GET /api/v1/wallet/info']['public_key_hash']>().toEqualTypeOf<string>();
    expectTypeOf<ResponseData['GET /api/v1/backup/status']['next_scheduled']>().toEqualTypeOf<string | null>();
    expectTypeOf<ResponseData['POST /api/v1/backup/restore']>().toEqualTypeOf<never>();
    expectTypeOf<'GET /api/v1/system/status'>().toMatchTypeOf<ResponseRoute>();
  });
});
