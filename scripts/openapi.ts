/**
 * `npm run openapi`: writes docs/api/openapi.json, the OpenAPI document of the REST API with every builtin plugin
 * enabled, as a node serves it at `GET /api/v1/openapi.json`. test/integration/openapi.test.ts fails while the
 * committed copy differs from what the code serves.
 */
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, servedDocument } from '../test/support/openapi.js';

writeFileSync(OPENAPI_FILE, `${JSON.stringify(await servedDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
