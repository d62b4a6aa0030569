/**
 * `npm run openapi`: writes docs/api/openapi.json, the OpenAPI document of the REST API with every builtin plugin
 * enabled, as a node serves it at `GET /api/v1/openapi.json`, and client/responses.ts, the client library's answer
 * types made from it. test/integration/openapi.test.ts fails while the committed document differs from what the code
 * serves, test/unit/client-types.test.ts while the types differ from what the committed document gives.
 */
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, servedDocument } from '../test/support/openapi.js';
import { clientTypes } from './client-types.js';

const doc = await servedDocument();
writeFileSync(OPENAPI_FILE, `${JSON.stringify(doc, null, 2)}\n`);
writeFileSync(CLIENT_TYPES_FILE, clientTypes(doc as Parameters<typeof clientTypes>[0]));
process.stdout.write(`wrote ${OPENAPI_FILE} and ${CLIENT_TYPES_FILE}\n`);
