import { ok } from './api.js';
import { startTestNode } from './node.js';

/** Where the committed OpenAPI document lives (`npm run openapi` writes it). */
export const OPENAPI_FILE = 'docs/api/openapi.json';
/** Where the client library's answer types, made from that document, live (`npm run openapi` writes them too). */
export const CLIENT_TYPES_FILE = 'client/responses.ts';

/**
 * The OpenAPI document a node serves with every builtin plugin enabled (mcp-passthrough is off by default), as the
 * committed copy in docs/ describes it.
 */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const t = await startTestNode();
  try {
    await ok(t, 'POST', '/api/v1/plugins/mcp-passthrough/enable');
    await t.restart();
    const res = await fetch(`${t.node.baseUrl}/api/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  } finally {
    await t.destroy();
  }
}
